#include "engine/models/music3/ar/ar_iteration.h"

#include <string>

#include "engine/models/music3/lm/lm_ids.h"

namespace music3::ar {

lm::LmDraws lm_draws_for(const ArDraws& d, int64_t it, std::vector<float>& slice) {
  if (!d.lm_replay) return lm::LmDraws{nullptr, d.seed, uint64_t(it)};
  if (it >= d.lm_rows)
    throw ArError("draws_exhausted", "the recorded LM draws hold " + std::to_string(d.lm_rows) + " iterations; iteration " +
                                         std::to_string(it) + " needs one more");
  slice.resize(size_t(lm::kSampledColumns));
  for (int col = 0; col < lm::kSampledColumns; ++col) slice[size_t(col)] = d.lm_replay[it * d.lm_vocab + lm::column_id(col)];
  return lm::LmDraws{slice.data()};
}

depth::DrawSource depth_draws_for(const ArDraws& d, int64_t frame, int steps, int audio_vocab) {
  if (!d.depth_replay) return {depth::DrawSource::Kind::Generator, d.seed, nullptr};
  if (frame >= d.depth_rows)
    throw ArError("draws_exhausted", "the recorded depth draws hold " + std::to_string(d.depth_rows) + " frames; frame " +
                                         std::to_string(frame) + " needs one more");
  return {depth::DrawSource::Kind::Replay, 0, d.depth_replay + frame * steps * audio_vocab};
}

void record_sample(ArResult& r, const lm::LmSample& s) {
  r.nonfinite_logits += s.nonfinite;
  r.tokens.push_back(s.token);
  ++r.iterations;
}

bool emit_frame(ArResult& r, const ArOptions& o, const bf16* last_row, int64_t hidden,
                const std::vector<bf16>& depth_hidden) {
  r.frame_hiddens.insert(r.frame_hiddens.end(), last_row, last_row + hidden);
  r.frame_hiddens.insert(r.frame_hiddens.end(), depth_hidden.begin(), depth_hidden.end());
  ++r.frames;
  if (o.progress) o.progress(r.frames, r.iterations);
  if (o.frames_out) o.frames_out(r.frame_hiddens.data(), r.frames);
  return r.frames == o.max_frames;
}

}  // namespace music3::ar
