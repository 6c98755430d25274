// The work of each vocoder stage (vocoder_stages()) for one window, as the device arm issues it with channels-last
// activations and every conv on the implicit GEMM (the full geometry's default): the GEMM FLOPs (2 per MAC, both
// streams) and the bytes the stage's ops read and write at least once each (activations, weights and the transposed
// conv's bf16 columns; Snake and the residual add as the separate passes the arm runs). bench-vocoder writes them
// beside the measured per-stage times, so a run shows which stages sit at the copy ceiling and which at the GEMM rate.
// Contract: stage_costs(cfg, L) has one entry per vocoder_stages(cfg) entry, in order. Pure; thread-safe.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/models/music3/vocoder/vocoder_config.h"

namespace music3::bench {

struct StageCost {
  std::string name;
  int64_t channels_in = 0, channels_out = 0, time_out = 0;
  double flops = 0, bytes = 0;
};

std::vector<StageCost> stage_costs(const vocoder::VocoderConfig& cfg, int64_t latents);

}  // namespace music3::bench
