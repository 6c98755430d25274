#include "bench/ab/dit_in_process_arm.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "engine/core/queue.h"
#include "engine/models/music3/acoustic/acoustic_scheduler.h"
#include "engine/models/music3/acoustic/acoustic_selector.h"
#include "engine/models/music3/acoustic/acoustic_stage.h"
#include "engine/models/music3/acoustic/acoustic_synthetic.h"
#include "engine/models/music3/acoustic/acoustic_windows.h"

namespace music3::bench {
namespace {
constexpr int kInputs = 4;
const int kWindowSteps = acoustic::AcousticOptions{}.steps;  // the release's steps per window
}

InProcessDitArm::InProcessDitArm(const std::string& spec, const std::string& arm, const std::string& device,
                                 const std::string& geometry, int64_t length, bool window_loop,
                                 const ArmContext& ctx)
    : spec_(spec), geometry_(geometry), length_(length), window_loop_(window_loop), seed_(ctx.seed) {
  if (length < 1) throw std::invalid_argument("arm '" + spec + "': a step needs at least one latent");
  const auto t = device_type_from_name(device);
  if (!t || (*t != DeviceType::CPU && *t != DeviceType::CUDA))
    throw std::invalid_argument("arm '" + spec + "': unknown device '" + device + "' (expected cpu or cuda)");
  const Queue q = *t == DeviceType::CPU ? cpu_queue(ctx.threads) : cuda_queue(0);
  weights_ = acoustic::synthetic_dit_weights(acoustic::dit_geometry(geometry), seed_);
  const auto request = runtime::arm_request_from_name(arm);
  arm_ = acoustic::make_dit_arm(weights_, q, request, instruments_);
  if (request != runtime::ArmRequest::Auto && runtime::arm_name(arm_->kind()) != arm)
    throw std::runtime_error("arm '" + spec + "': requested the " + arm + " arm, the selector chose " +
                             runtime::arm_name(arm_->kind()));
  const auto& c = weights_.cfg;
  for (int i = 0; i < kInputs; ++i)
    inputs_.push_back({acoustic::synthetic_normal(size_t(c.in_channels * length_), seed_ + 2 * i + 1),
                       acoustic::synthetic_normal(size_t(c.condition_dim * length_), seed_ + 2 * i + 2),
                       to_bf16(1.0f - float(i + 1) / float(kInputs + 1))});
  if (window_loop_) {
    overlap_ = std::min(acoustic::kOverlapLatents, length_);
    sigmas_ = acoustic::flow_sigmas(kWindowSteps);
    noise_ = acoustic::synthetic_normal(size_t(c.in_channels * overlap_), seed_ + 101);
    carried_ = acoustic::synthetic_normal(size_t(c.in_channels * overlap_), seed_ + 102);
    std::vector<bf16> x = inputs_[0].x;
    if (!arm_->run_steps(x.data(), window_steps(inputs_[0])))
      throw std::runtime_error("arm '" + spec + "': the " + runtime::arm_name(arm_->kind()) +
                               " arm has no window loop of its own (dit-loop times run_steps)");
  }
}

acoustic::WindowSteps InProcessDitArm::window_steps(const Input& in) const {
  return {length_, in.cond.data(), &sigmas_, overlap_, noise_.data(), carried_.data(), overlap_, {}};
}

double InProcessDitArm::run_one_window() {
  const Input& in = inputs_[next_++ % kInputs];
  std::vector<bf16> x = in.x;
  const acoustic::WindowSteps steps = window_steps(in);
  const auto t0 = std::chrono::steady_clock::now();
  arm_->run_steps(x.data(), steps);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / kWindowSteps;
}

double InProcessDitArm::run_one_frame() {
  const Input& in = inputs_[next_++ % kInputs];
  const auto t0 = std::chrono::steady_clock::now();
  const acoustic::VelocityPair v = arm_->velocities(in.x.data(), length_, in.t, in.cond.data());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const size_t want = size_t(weights_.cfg.in_channels * length_);
  if (v.conditional.size() != want || v.unconditional.size() != want)
    throw std::runtime_error("arm '" + spec_ + "': a step returned " + std::to_string(v.conditional.size()) + " and " +
                             std::to_string(v.unconditional.size()) + " values, expected " + std::to_string(want));
  return ms;
}

std::vector<double> InProcessDitArm::run_repetition(int warmup, int frames) {
  return timed_frames(warmup, frames, [this] { return window_loop_ ? run_one_window() : run_one_frame(); });
}

nlohmann::json InProcessDitArm::describe() const {
  return {{"kind", window_loop_ ? "in-process dit window loop (run_steps), ms per step" : "in-process dit guided step"},
          {"arm", runtime::arm_name(arm_->kind())},
          {"geometry", geometry_},
          {"config", weights_.cfg.describe()},
          {"latent_length", length_},
          {"branches", 2},
          {"steps_per_window", window_loop_ ? kWindowSteps : 1},
          {"seed", seed_},
          {"instruments",
           {{"host_forwards", instruments_.host_forwards},
            {"device_forwards", instruments_.device_forwards},
            {"staged_bytes", instruments_.staged_bytes}}}};
}

}  // namespace music3::bench
