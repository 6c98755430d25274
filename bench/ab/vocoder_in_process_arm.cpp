#include "bench/ab/vocoder_in_process_arm.h"

#include <chrono>
#include <stdexcept>

#include "engine/core/queue.h"
#include "engine/models/music3/vocoder/vocoder_selector.h"
#include "engine/models/music3/vocoder/vocoder_synthetic.h"

namespace music3::bench {
namespace {
constexpr int kWindows = 4;
}

InProcessVocoderArm::InProcessVocoderArm(const std::string& spec, const std::string& arm, const std::string& device,
                                         const std::string& geometry, int64_t latents, const ArmContext& ctx)
    : spec_(spec), geometry_(geometry), latents_(latents), seed_(ctx.seed) {
  if (latents < 1) throw std::invalid_argument("arm '" + spec + "': a window needs at least one latent");
  const auto t = device_type_from_name(device);
  if (!t || (*t != DeviceType::CPU && *t != DeviceType::CUDA))
    throw std::invalid_argument("arm '" + spec + "': unknown device '" + device + "' (expected cpu or cuda)");
  const Queue q = *t == DeviceType::CPU ? cpu_queue(ctx.threads) : cuda_queue(0);
  weights_ = vocoder::synthetic_vocoder_weights(vocoder::vocoder_geometry(geometry), seed_);
  const auto request = runtime::arm_request_from_name(arm);
  arm_ = vocoder::make_vocoder_arm(weights_, q, request);
  if (request != runtime::ArmRequest::Auto && runtime::arm_name(arm_->kind()) != arm)
    throw std::runtime_error("arm '" + spec + "': requested the " + arm + " arm, the selector chose " +
                             runtime::arm_name(arm_->kind()));
  for (int i = 0; i < kWindows; ++i) windows_.push_back(vocoder::synthetic_latents(weights_.cfg, latents_, seed_ + i));
}

double InProcessVocoderArm::run_one_frame() {
  const auto& w = windows_[next_++ % kWindows];
  const auto t0 = std::chrono::steady_clock::now();
  const vocoder::Waveform out = arm_->decode(w.data(), latents_);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (out.samples != weights_.cfg.output_length(latents_))
    throw std::runtime_error("arm '" + spec_ + "': a window returned " + std::to_string(out.samples) + " samples");
  return ms;
}

std::vector<double> InProcessVocoderArm::run_repetition(int warmup, int frames) {
  return timed_frames(warmup, frames, [this] { return run_one_frame(); });
}

nlohmann::json InProcessVocoderArm::describe() const {
  return {{"kind", "in-process vocoder"},
          {"arm", runtime::arm_name(arm_->kind())},
          {"geometry", geometry_},
          {"config", weights_.cfg.describe()},
          {"latents_per_window", latents_},
          {"samples_per_window", weights_.cfg.output_length(latents_)},
          {"weight_bytes", weights_.bytes()},
          {"seed", seed_},
          {"instruments", {{"forwards", arm_->forwards()}}}};
}

}  // namespace music3::bench
