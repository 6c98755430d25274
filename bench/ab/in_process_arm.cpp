#include "bench/ab/in_process_arm.h"

#include <chrono>
#include <stdexcept>

#include "bench/depth/depth_geometry.h"
#include "engine/core/device_type.h"
#include "engine/core/queue.h"
#include "engine/models/music3/depth/depth_synthetic.h"

namespace music3::bench {
namespace {
constexpr int kInputFrames = 8;

Queue queue_named(const std::string& spec, const std::string& device, int threads) {
  try {
    return queue_by_name(device, threads);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("arm '" + spec + "': " + e.what());
  }
}
}  // namespace

InProcessDepthArm::InProcessDepthArm(const std::string& spec, const std::string& arm, const std::string& device,
                                     const std::string& geometry, const ArmContext& ctx)
    : spec_(spec), geometry_(geometry), seed_(ctx.seed) {
  const depth::DepthConfig cfg = depth_geometry(geometry);
  const Queue q = queue_named(spec, device, ctx.threads);
  const depth::ArmRequest request = depth::arm_request_from_name(arm);
  engine_ = std::make_unique<depth::DepthEngine>(depth::synthetic_depth_weights(cfg, seed_, ctx.threads), q, request);
  if (request != depth::ArmRequest::Auto && depth::arm_name(engine_->arm_kind()) != arm)
    throw std::runtime_error("arm '" + spec + "': requested the " + arm + " arm, the selector chose " +
                             depth::arm_name(engine_->arm_kind()));
  const size_t H = static_cast<size_t>(cfg.hidden);
  last_hidden_.resize(kInputFrames * 2 * H);
  c0_.resize(kInputFrames * H);
  for (int i = 0; i < kInputFrames; ++i)
    depth::synthetic_frame_inputs(cfg, seed_, uint64_t(i), last_hidden_.data() + size_t(i) * 2 * H,
                                  c0_.data() + size_t(i) * H);
}

double InProcessDepthArm::run_one_frame() {
  const size_t H = static_cast<size_t>(engine_->config().hidden), slot = size_t(next_frame_ % kInputFrames);
  depth::FrameInputs in;
  in.last_hidden = last_hidden_.data() + slot * 2 * H;
  in.c0_embedding = c0_.data() + slot * H;
  in.frame = next_frame_++;
  in.draws.seed = seed_;
  const auto t0 = std::chrono::steady_clock::now();
  const depth::FrameResult r = engine_->run_frame(in);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (r.codes.size() != size_t(engine_->config().steps()))
    throw std::runtime_error("arm '" + spec_ + "': a frame returned " + std::to_string(r.codes.size()) + " codes");
  return ms;
}

std::vector<double> InProcessDepthArm::run_repetition(int warmup, int frames) {
  return timed_frames(warmup, frames, [this] { return run_one_frame(); });
}

nlohmann::json InProcessDepthArm::describe() const {
  const auto& ins = engine_->instruments();
  return {{"kind", "in-process DepthEngine"},
          {"arm", depth::arm_name(engine_->arm_kind())},
          {"device", device_type_name(engine_->queue().device)},
          {"geometry", geometry_},
          {"config", engine_->config().describe()},
          {"bytes_per_frame", frame_bytes(engine_->config()).per_frame},
          {"seed", seed_},
          {"instruments",
           {{"frames", ins.frames},
            {"host_forwards", ins.host_forwards},
            {"device_forwards", ins.device_forwards},
            {"staged_bytes", ins.staged_bytes},
            {"nonfinite_logits", ins.nonfinite_logits}}}};
}

}  // namespace music3::bench
