// The draws of one AR iteration, as both of run_ar()'s loops (ar_loop.cpp, ar_device_loop.cpp) take them from
// ArDraws: the LM's for iteration `it` (recorded: copied into `slice`, column by column from the full-vocabulary
// row; else the generator keyed by (seed, it)) and the depth stage's for depth frame `d`. A recording too short
// throws ArError "draws_exhausted" naming the iteration or frame. Thread-safety: pure functions over the caller's
// buffers.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/models/music3/ar/ar_loop.h"
#include "engine/models/music3/depth/depth_arm.h"
#include "engine/models/music3/lm/lm_sampler.h"

namespace music3::ar {

lm::LmDraws lm_draws_for(const ArDraws& d, int64_t it, std::vector<float>& slice);
depth::DrawSource depth_draws_for(const ArDraws& d, int64_t frame, int steps, int audio_vocab);

}  // namespace music3::ar
