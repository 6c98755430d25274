// `music3 vocode`: latent windows to a 44.1 kHz stereo audio file.
// Contract: reads --latents, a safetensors file holding window0, window1, ... ([1, C, L] or [C, L], BF16 or F32
// rounded to bf16), decodes each window with the arm select_vocoder_arm() picks for --device/--arm, stitches
// them (crops 86 / 258 latents x 512, clamp) and writes --out in --format or the format its extension names.
// Returns exit_code::kOk; throws UsageError (a bad flag), ArmRefused (no arm for the device) or another
// std::exception naming the bad input (an audio error prefixed by its kind: unknown_format, exists, unwritable,
// bad_samples), which main() maps through the shared table. --json prints a summary.
// Registered in the command table as vocode_command() (command.h).
#pragma once
#include <string>
#include <vector>

namespace music3::cli {
int run_vocode_command(const std::vector<std::string>& args);
extern const char* const kVocodeUsage;
}  // namespace music3::cli
