// The depth geometries the benches and the A/B runner name, and the bytes a frame must
// move at least.
// Contract: depth_geometry("full" | "mid" | "tiny") returns the same geometry as
// `music3 depth --synthetic NAME` (full: the release; mid: a quarter of the widths with
// all 4 layers, the host arm's benchmark geometry; tiny: a 2-layer smoke geometry);
// any other name throws std::invalid_argument naming it. frame_bytes() counts bf16
// bytes as the issue does: steps() forward calls each read every layer's weights, one
// head and the final norm, and steps()+1 projection GEMMs read the [H,H] projection.
#pragma once
#include <string>

#include "engine/models/music3/depth/depth_config.h"

namespace music3::bench {

depth::DepthConfig depth_geometry(const std::string& name);

struct FrameBytes {
  double layer_weights = 0;  // all layers: 2 norms, q/k/v/o, gate/up/down
  double head = 0;           // one audio head [V,H]
  double final_norm = 0;     // [H]
  double projection = 0;     // [H,H]
  double per_frame = 0;      // steps * (layer_weights + head + final_norm) + (steps + 1) * projection
};
FrameBytes frame_bytes(const depth::DepthConfig& cfg);

}  // namespace music3::bench
