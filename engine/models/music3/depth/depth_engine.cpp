#include "engine/models/music3/depth/depth_engine.h"

#include <stdexcept>
#include <string>

#include "engine/models/music3/depth/depth_device_arm.h"
#include "engine/models/music3/depth/depth_host_arm.h"
#include "engine/runtime/device_pools.h"

namespace music3::depth {

DepthEngine::DepthEngine(DepthWeights weights, const Queue& q, ArmRequest request, bool release_host)
    : cfg_(weights.cfg), weights_(std::move(weights)), queue_(q) {
  // The host loop is where a run starts; the selector decides whether it stays.
  arm_ = std::make_unique<DepthHostArm>(weights_, queue_.threads, instruments_);
  selection_ = select_depth_arm(queue_, request, weights_, runtime::shared_device_pool(queue_), instruments_, &arm_,
                                release_host);
  if (selection_.release_host) weights_ = DepthWeights{};
}

DepthEngine::~DepthEngine() = default;

DepthDeviceArm* DepthEngine::device_arm() { return dynamic_cast<DepthDeviceArm*>(arm_.get()); }

FrameResult DepthEngine::run_frame(const FrameInputs& in, FrameTrace* trace) {
  if (!in.last_hidden || !in.c0_embedding) throw std::invalid_argument("depth frame: missing last_hidden or c0_embedding");
  if (in.draws.kind == DrawSource::Kind::Replay && !in.draws.replay)
    throw std::invalid_argument("depth frame: replay draws requested but none given");
  if (in.forced_codes)
    for (int s = 0; s < cfg_.steps(); ++s)
      if (in.forced_codes[s] < 0 || in.forced_codes[s] >= cfg_.vocab)
        throw std::invalid_argument("depth frame " + std::to_string(in.frame) + ": forced code " +
                                    std::to_string(in.forced_codes[s]) + " at step " + std::to_string(s) +
                                    " is outside [0, " + std::to_string(cfg_.vocab) + ")");
  return arm_->run_frame(in, trace);
}

}  // namespace music3::depth
