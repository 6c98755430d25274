#include "engine/models/music3/vocoder/vocoder_stages.h"

namespace music3::vocoder {

std::string Stage::name() const {
  const std::string blk = "blocks." + std::to_string(block) + ".";
  switch (kind) {
    case Kind::DecInProj: return "dec_in_proj";
    case Kind::ConvIn: return "conv_in";
    case Kind::BlockSnake: return blk + "snake1";
    case Kind::BlockUp: return blk + "conv_t1";
    case Kind::ResidualUnit: return blk + "res_unit" + std::to_string(unit + 1);
    case Kind::SnakeOut: return "snake_out";
    case Kind::ConvOut: return "conv_out";
    case Kind::Tanh: return "tanh";
  }
  return "?";
}

std::vector<Stage> vocoder_stages(const VocoderConfig& cfg) {
  using K = Stage::Kind;
  std::vector<Stage> out = {{K::DecInProj}, {K::ConvIn}};
  for (int b = 0; b < cfg.blocks(); ++b) {
    out.push_back({K::BlockSnake, b});
    out.push_back({K::BlockUp, b});
    for (int u = 0; u < 3; ++u) out.push_back({K::ResidualUnit, b, u});
  }
  for (K k : {K::SnakeOut, K::ConvOut, K::Tanh}) out.push_back({k});
  return out;
}

}  // namespace music3::vocoder
