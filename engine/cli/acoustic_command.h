// `music3 acoustic`: frame hiddens to per-window latents (the acoustic stage: condition encoder, DiT, Euler
// schedule with guidance, 200-frame windows; engine/models/music3/acoustic/acoustic_stage.h).
// Contract: reads --frames (frame_hiddens BF16 [F, 8H] or [1, F, 8H], as `music3 ar --dump` writes it) and the
// checkpoint's condition_encoder/ and transformer/; draws each window's noise from the engine's generator keyed
// by --seed, or takes window<k>.noise from --noise (an oracle trace or an earlier --dump); runs --steps Euler steps
// per window on the arms that --device/--arm select; --dump writes window<k> BF16 [C, L] (what `music3 vocode
// --latents` reads) and window<k>.noise. On a terminal, stderr shows the window and step. Returns 0, or 7 when a
// latent is not finite; throws UsageError (a bad flag), ArmRefused (no arm for the device) or another
// std::exception naming the bad input (a tensor, a geometry, the noise), which main() maps through the shared
// table. --json prints a summary. Registered in the command table as acoustic_command() (command.h).
#pragma once
#include <string>
#include <vector>

namespace music3::cli {
int run_acoustic_command(const std::vector<std::string>& args);
extern const char* const kAcousticUsage;
}  // namespace music3::cli
