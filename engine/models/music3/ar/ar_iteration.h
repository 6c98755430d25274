// The pieces of one AR iteration both of run_ar()'s loops (ar_loop.cpp, ar_device_loop.cpp) share, so they record
// the same result the same way:
//  - the draws, from ArDraws: the LM's for iteration `it` (recorded: copied into `slice`, column by column from the
//    full-vocabulary row; else the generator keyed by (seed, it)) and the depth stage's for depth frame `d`; a
//    recording too short throws ArError "draws_exhausted" naming the iteration or frame;
//  - record_sample(): the sample's token and non-finite count into the result, one iteration more;
//  - emit_frame(): frame [last[0], h1..h7] appended (the conditional row of the LM hidden that predicted c0, then
//    the depth frame's hiddens), the progress and frames_out callbacks called; true once max_frames are out.
// Thread-safety: pure functions over the caller's buffers (and the caller's callbacks).
#pragma once
#include <cstdint>
#include <vector>

#include "engine/models/music3/ar/ar_loop.h"
#include "engine/models/music3/depth/depth_arm.h"
#include "engine/models/music3/lm/lm_sampler.h"

namespace music3::ar {

lm::LmDraws lm_draws_for(const ArDraws& d, int64_t it, std::vector<float>& slice);
depth::DrawSource depth_draws_for(const ArDraws& d, int64_t frame, int steps, int audio_vocab);
void record_sample(ArResult& r, const lm::LmSample& s);
// last_row: [hidden]; depth_hidden: [steps, hidden].
bool emit_frame(ArResult& r, const ArOptions& o, const bf16* last_row, int64_t hidden,
                const std::vector<bf16>& depth_hidden);

}  // namespace music3::ar
