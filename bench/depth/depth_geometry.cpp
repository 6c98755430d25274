#include "bench/depth/depth_geometry.h"

namespace music3::bench {

depth::DepthConfig depth_geometry(const std::string& name) { return depth::DepthConfig::named(name); }

FrameBytes frame_bytes(const depth::DepthConfig& c) {
  const double H = c.hidden, I = c.intermediate, V = c.vocab, bf16 = 2;
  FrameBytes b;
  b.layer_weights = c.layers * (2 * H + 4 * H * H + 3 * I * H) * bf16;
  b.head = V * H * bf16;
  b.final_norm = H * bf16;
  b.projection = H * H * bf16;
  b.per_frame = c.steps() * (b.layer_weights + b.head + b.final_norm) + (c.steps() + 1) * b.projection;
  return b;
}

}  // namespace music3::bench
