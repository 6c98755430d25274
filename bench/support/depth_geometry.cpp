#include "bench/support/depth_geometry.h"

#include <stdexcept>

namespace music3::bench {

depth::DepthConfig depth_geometry(const std::string& name) {
  depth::DepthConfig c = depth::DepthConfig::full();
  if (name == "full") return c;
  if (name == "mid") {
    c.hidden = 1024;
    c.heads = 4;
    c.intermediate = 1536;
    return c;
  }
  if (name == "tiny") {
    c.hidden = 64;
    c.layers = 2;
    c.heads = 4;
    c.intermediate = 128;
    c.vocab = 128;
    return c;
  }
  throw std::invalid_argument("depth geometry '" + name + "' is unknown (expected full, mid or tiny)");
}

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
