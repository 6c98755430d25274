// `music3 generate`: prompt and lyrics to a song, end to end (engine/models/music3/pipeline/generate_run.h) on
// one pipeline checkpoint folder in the diffusers hub layout, written as a WAV or FLAC file.
// Contract: the flags are checked, the output path's format and (without --force) its absence too, then the
// checkpoint is read and checked whole (PipelineModels: layout, configs, coupling rules, every component's weights,
// every arm selected) before any generation work; the audio is written whole or not at all (io::write_audio_file
// renames a finished temporary into place). On a terminal, stderr shows one progress line (--quiet silences it).
// Returns 0, or 7 when a stage met non-finite values (nothing is written); throws UsageError (a bad flag),
// ArmRefused (no arm for the device; exit 6) or another std::exception naming the bad input (exit 5), as main()
// maps them. --json prints the summary object (README: `music3 generate`). Registered as generate_command().
#pragma once
#include <string>
#include <vector>

namespace music3::cli {
int run_generate_command(const std::vector<std::string>& args);
extern const char* const kGenerateUsage;
}  // namespace music3::cli
