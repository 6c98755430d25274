#include "engine/models/music3/pipeline/window_warm_up.h"

#include <chrono>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/models/music3/acoustic/acoustic_windows.h"

namespace music3::pipeline {

double warm_up_windows(PipelineModels& m) {
  const auto t0 = std::chrono::steady_clock::now();
  const int64_t frames = acoustic::kWindowFrames, length = acoustic::latent_length(frames);
  const auto device = runtime::ArmKind::Device;
  if (m.encoder().kind() == device) {
    const std::vector<bf16> hiddens(size_t(frames * m.frame_width()), bf16{});
    m.encoder().encode(hiddens.data(), frames, length);
  }
  const std::vector<bf16> latents(size_t(m.dit().latent_channels() * length), bf16{});
  if (m.dit().kind() == device) {
    const std::vector<bf16> cond(size_t(m.dit().cond_channels() * length), bf16{});
    m.dit().velocities(latents.data(), length, to_bf16(1.0f), cond.data());
  }
  if (m.vocoder().kind() == device) m.vocoder().decode(latents.data(), length);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace music3::pipeline
