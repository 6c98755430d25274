// `music3 vocode`: latent windows to a 44.1 kHz stereo audio file.
// Contract: reads --latents, a safetensors file holding window0, window1, ... ([1, C, L] or [C, L], BF16 or F32
// rounded to bf16), decodes each window with the arm select_vocoder_arm() picks for --device/--arm, stitches
// them (crops 86 / 258 latents x 512, clamp) and writes --out in --format or the format its extension names.
// Returns the exit code: 0 ok, 2 usage or input error (unknown format, existing file without --force,
// unwritable path, bad checkpoint or latents: the message names it), 3 device refused. --json prints a summary.
#pragma once
#include <string>
#include <vector>

namespace music3::cli {
int run_vocode_command(const std::vector<std::string>& args);
extern const char* const kVocodeUsage;
}  // namespace music3::cli
