// The vocoder's forward as a list of stages, each named as upstream's module (diffusers MiniMaxMusic3Vocoder):
// dec_in_proj, conv_in, then per up-block i blocks.i.snake1, blocks.i.conv_t1, blocks.i.res_unit1..3, then
// snake_out, conv_out and tanh. Both arms run decode() as this list, stage by stage, and offer run_stage() so the
// per-stage gate can feed each stage upstream's recorded input (oracle_bridge/vocoder/record_stages.py writes
// `<name()>.in` / `.out`).
// Contract: vocoder_stages(cfg) is the forward order for cfg (5 stages per up-block + 5); Stage::name() is the
// upstream module path. Pure functions; thread-safe.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/models/music3/vocoder/vocoder_config.h"

namespace music3::vocoder {

struct Stage {
  enum class Kind { DecInProj, ConvIn, BlockSnake, BlockUp, ResidualUnit, SnakeOut, ConvOut, Tanh };
  Kind kind = Kind::DecInProj;
  int block = -1;  // the up-block of BlockSnake, BlockUp and ResidualUnit
  int unit = -1;   // 0..2 for ResidualUnit
  std::string name() const;
};

std::vector<Stage> vocoder_stages(const VocoderConfig& cfg);

// One stage's input or output for both stereo streams: [2][channels][time] bf16, left stream first.
struct StageTensor {
  int channels = 0;
  int64_t time = 0;
  std::vector<bf16> data;
};

}  // namespace music3::vocoder
