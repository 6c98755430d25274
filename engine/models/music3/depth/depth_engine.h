// The engine's depth path: owns the weights and the queue, draws device memory from
// the device's shared pool (runtime/device_pools.h), asks select_depth_arm() which
// arm runs, and runs frames on it. With release_host, the host weights (the
// checkpoint's mapping) are dropped once the device arm has staged them. This is the production
// call site the reachability gate drives; the CLI and the benches use it too.
// Contract: construction either yields a running arm or throws (ArmRefused names the
// device); run_frame() validates its inputs (forced codes in range, replay draws
// present) and counts frames and forwards in instruments().
// Thread-safety: one thread at a time.
#pragma once
#include <memory>

#include "engine/core/device_pool.h"
#include "engine/core/queue.h"
#include "engine/models/music3/depth/depth_arm.h"
#include "engine/models/music3/depth/depth_selector.h"
#include "engine/models/music3/depth/depth_weights.h"

namespace music3::depth {

class DepthDeviceArm;

class DepthEngine {
 public:
  DepthEngine(DepthWeights weights, const Queue& q, ArmRequest request, bool release_host = false);
  ~DepthEngine();
  DepthEngine(const DepthEngine&) = delete;  // arms hold references into this object
  DepthEngine& operator=(const DepthEngine&) = delete;

  FrameResult run_frame(const FrameInputs& in, FrameTrace* trace = nullptr);
  ArmKind arm_kind() const { return arm_->kind(); }
  // The device arm when it runs the frames (the AR loop's device-resident frame drives it directly), else null.
  DepthDeviceArm* device_arm();
  const SelectionOutcome& selection() const { return selection_; }
  const DepthInstruments& instruments() const { return instruments_; }
  const DepthConfig& config() const { return cfg_; }
  const Queue& queue() const { return queue_; }

 private:
  DepthConfig cfg_;
  DepthWeights weights_;
  Queue queue_;
  DepthInstruments instruments_;
  SelectionOutcome selection_;
  std::unique_ptr<DepthArm> arm_;
};

}  // namespace music3::depth
