#include "bench/ab/lm_in_process_arm.h"

#include <chrono>
#include <stdexcept>

#include "bench/lm/lm_bench_weights.h"
#include "bench/support/uniform_bf16.h"
#include "engine/core/queue.h"
#include "engine/models/music3/lm/lm_ids.h"
#include "engine/models/music3/lm/lm_selector.h"

namespace music3::bench {

InProcessLmArm::InProcessLmArm(const std::string& spec, const std::string& arm, const std::string& device,
                               const std::string& geometry, int kv, const ArmContext& ctx)
    : spec_(spec), geometry_(geometry), kv_(kv), seed_(ctx.seed) {
  if (kv < 1) throw std::invalid_argument("arm '" + spec + "': the K/V length must be at least 1");
  const auto t = device_type_from_name(device);
  if (!t || (*t != DeviceType::CPU && *t != DeviceType::CUDA))
    throw std::invalid_argument("arm '" + spec + "': unknown device '" + device + "' (expected cpu or cuda)");
  const Queue q = *t == DeviceType::CPU ? cpu_queue(ctx.threads) : cuda_queue(0);
  weights_ = synthetic_lm_weights(lm_bench_geometry(geometry), seed_);
  const auto request = runtime::arm_request_from_name(arm);
  lm::select_lm_arm(q, request, weights_, instruments_, &arm_);
  if (request != runtime::ArmRequest::Auto && runtime::arm_name(arm_->kind()) != arm)
    throw std::runtime_error("arm '" + spec + "': requested the " + arm + " arm, the selector chose " +
                             runtime::arm_name(arm_->kind()));
  const size_t H = size_t(weights_.cfg.hidden);
  prompt_ = uniform_bf16(2 * size_t(kv) * H, seed_ + 10);
  embeds_ = uniform_bf16(2 * H, seed_ + 11);
  last_.resize(2 * H);
  logits_.resize(2 * size_t(lm::kSampledColumns));
}

double InProcessLmArm::run_one_step() {
  const auto t0 = std::chrono::steady_clock::now();
  arm_->decode(embeds_.data(), last_.data());
  arm_->head(last_.data(), logits_.data());
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<double> InProcessLmArm::run_repetition(int warmup, int frames) {
  arm_->prefill(prompt_.data(), kv_, kv_ + warmup + frames, last_.data(), nullptr);
  return timed_frames(warmup, frames, [this] { return run_one_step(); });
}

nlohmann::json InProcessLmArm::describe() const {
  return {{"kind", "in-process lm step"},
          {"arm", runtime::arm_name(arm_->kind())},
          {"geometry", geometry_},
          {"config", weights_.cfg.describe()},
          {"kv", kv_},
          {"step_bytes", step_bytes(weights_.cfg, kv_)},
          {"seed", seed_},
          {"instruments",
           {{"host_forwards", instruments_.host_forwards},
            {"device_forwards", instruments_.device_forwards},
            {"staged_bytes", instruments_.staged_bytes}}}};
}

}  // namespace music3::bench
