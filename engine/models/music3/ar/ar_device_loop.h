// The AR loop's device-resident frame: the iterations of run_ar() (ar_loop.h) with the sample, the depth frame, the
// feedback embedding and the next decode step issued back to back on the device, one wait per iteration.
// Contract: device_frame_arms() names the two device arms when this call can run there: an untraced run without a
// teacher, the LM and the depth stage on their device arms over one queue (the LM's with its code embeddings staged),
// and providers on its device for
// lm_sample, feedback_embedding and embedding_gather; else nullopt, and run_ar() drives the iterations from the host.
// run_device_iterations() fills `r` as the host-driven loop does, from the same ops on the same inputs, so with the
// same bits (tokens, codes, frame hiddens, the non-finite count): per iteration it issues the LM sample
// (LmDeviceArm::issue_sample), the depth frame with its inputs filled on the device (the LM's last hidden copied,
// c0's embedding gathered by the sampled column), then, unless this iteration is the last one possible
// (max_frames), the feedback embedding into the decode's input and the decode step; the sample's and the frame's
// read-backs (and the emitted frame's LM hidden) are queued into host staging before the feedback, behind a mark,
// and the host waits for that mark alone (the one wait): it records the frame while the decode runs and queues the
// next iteration behind it, so the device never waits for the host between iterations. An iteration that samples <|audio_end|> has issued a depth frame, a feedback and a
// decode that upstream never runs: their results are discarded (the loop ends there), and the discarded frame's
// forward calls are counted by the depth arm (they ran) while its frame is not collected. Where the recorded depth
// draws end, the sample is read first: <|audio_end|> ends the loop, anything else throws "draws_exhausted".
// Thread-safety: as run_ar().
#pragma once
#include <optional>

#include "engine/models/music3/ar/ar_loop.h"
#include "engine/models/music3/depth/depth_device_arm.h"
#include "engine/models/music3/lm/lm_device_arm.h"

namespace music3::ar {

struct DeviceFrameArms {
  lm::LmDeviceArm* lm = nullptr;
  depth::DepthDeviceArm* depth = nullptr;
};

std::optional<DeviceFrameArms> device_frame_arms(const ArModels& m, const ArOptions& o, const ArTrace* trace);
void run_device_iterations(const ArModels& m, const DeviceFrameArms& arms, const ArOptions& o, ArResult& r);

}  // namespace music3::ar
