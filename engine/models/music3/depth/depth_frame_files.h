// The depth stage's file formats (safetensors), shared by the CLI, the gates and
// the oracle goldens, which use the same tensor names:
//   inputs: last_hidden BF16 [F,2,H], c0_embedding BF16 [F,H]
//   draws:  exp_draws F32 [F,steps,V]
//   dump:   codes I32 [F,steps], hidden BF16 [F,steps,H]
// Contract: readers check names, dtypes and shapes against the geometry and throw
// naming the file, tensor, expected and actual; non-finite inputs are refused.
// Thread-safety: no shared state: thread-safe for distinct paths.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/models/music3/depth/depth_arm.h"
#include "engine/models/music3/depth/depth_config.h"

namespace music3::depth {

struct DepthFrameInputs {
  int64_t frames = 0;
  std::vector<bf16> last_hidden;   // [F, 2, H]
  std::vector<bf16> c0_embedding;  // [F, H]
};

DepthFrameInputs read_frame_inputs(const std::string& path, const DepthConfig& cfg);
std::vector<float> read_exp_draws(const std::string& path, const DepthConfig& cfg, int64_t frames);
DepthFrameInputs synthetic_inputs(const DepthConfig& cfg, uint64_t seed, int64_t frames);
void write_depth_dump(const std::string& path, const DepthConfig& cfg, const std::vector<FrameResult>& frames);

}  // namespace music3::depth
