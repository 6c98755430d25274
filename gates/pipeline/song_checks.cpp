#include "gates/pipeline/song_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/models/music3/lm/lm_ids.h"
#include "gates/lib/code_agreement.h"
#include "gates/lib/near_tie.h"

namespace music3::gates {

namespace {

constexpr int K = lm::kSampledColumns;

int column_of(int32_t id) { return id == lm::kAudioEndId ? 0 : id - lm::kCodeOffset + 1; }

void check_exact_fraction(const SongCheck& c, const std::string& metric, const UlpStats& s, double min_exact) {
  const double exact = s.compared ? double(s.exact) / double(s.compared) : 0.0;
  record(c.gate, c.case_name, metric, exact, min_exact, BoundKind::Lower);
  EXPECT_GE(exact, min_exact) << metric;
}

}  // namespace

void check_text_ids(const SongCheck& c, const std::vector<int32_t>& ids) {
  const std::vector<int32_t>& ref = c.trace.text_ids;
  int mismatches = ids.size() == ref.size() ? 0 : 1;
  for (size_t i = 0; mismatches == 0 && i < ids.size(); ++i) mismatches += ids[i] != ref[i];
  EXPECT_EQ(ids, ref) << "prompt ids differ from upstream's TokenizeStep";
  record(c.gate, c.case_name, "text_ids.mismatches", mismatches, 0);
}

void check_ar(const SongCheck& c, const ar::ArResult& r, const ar::ArTrace& trace, const UlpBounds& hidden) {
  const pipeline::PipelineTrace& t = c.trace;
  EXPECT_EQ(r.iterations, t.iterations);
  EXPECT_EQ(r.frames, t.frames);
  EXPECT_EQ(r.eos, t.eos);
  ASSERT_EQ(r.frame_hiddens.size(), t.frame_hiddens.size());
  check_ulp(c.gate, c.case_name, "frame_hiddens.ulp", ulp_stats(r.frame_hiddens, t.frame_hiddens), hidden);
  ASSERT_EQ(trace.guided.size(), t.guided.size());
  ASSERT_EQ(trace.lm_logits.size(), t.lm_logits.size());
  int defects = 0, near_ties = 0, prefilter_ties = 0;
  double max_gap = 0, max_tie = 0;
  for (int64_t it = 0; it < t.iterations; ++it) {
    const int32_t mine = r.tokens[size_t(it)], ref = t.tokens[size_t(it)];
    if (mine == ref) continue;
    const float *g_mine = trace.guided.data() + it * K, *g_ref = t.guided.data() + it * K;
    const float* draws = t.lm_draws_sliced.data() + it * K;
    const double gap = near_tie_gap_ulps(g_mine, g_ref, draws, column_of(mine), column_of(ref));
    if (!std::isinf(gap)) {
      max_gap = std::max(max_gap, gap);
      if (shared_near_tie(g_mine, g_ref, draws, column_of(mine), column_of(ref)))
        ++near_ties;
      else
        ADD_FAILURE() << "iteration " << it << ": token " << mine << " vs upstream " << ref
                      << " is not a shared near-tie (score gap " << gap << " ULPs)",
            ++defects;
      continue;
    }
    // One side's conditional prefilter masked the other's pick: a shared near-tie only at that prefilter's threshold.
    const PrefilterTie tie = prefilter_near_tie(trace.lm_logits.data() + it * 2 * K, t.lm_logits.data() + it * 2 * K,
                                                K, draws, column_of(mine), column_of(ref), lm::kCfgScale, lm::kCfgTopK);
    if (tie.holds)
      ++prefilter_ties, max_tie = std::max(max_tie, tie.threshold_ulps);
    else
      ADD_FAILURE() << "iteration " << it << ": token " << mine << " vs upstream " << ref
                    << " is a flip of the conditional prefilter but not a shared near-tie at its threshold (the "
                    << "masked pick " << tie.threshold_ulps << " ULPs below it, score gap " << tie.gap_ulps << " ULPs)",
          ++defects;
  }
  record(c.gate, c.case_name, "tokens.defects", defects, 0);
  record(c.gate, c.case_name, "tokens.near_ties", near_ties, 0, BoundKind::ReportOnly);
  record(c.gate, c.case_name, "tokens.near_tie_max_gap_ulps", max_gap, kNearTieUlps, BoundKind::ReportOnly);
  record(c.gate, c.case_name, "tokens.prefilter_ties", prefilter_ties, 0, BoundKind::ReportOnly);
  record(c.gate, c.case_name, "tokens.prefilter_tie_max_ulps", max_tie, kPrefilterTieUlps, BoundKind::ReportOnly);
  std::vector<int32_t> mine, ref;
  for (int64_t d = 0; d < t.depth_frames; ++d)
    for (int k = 1; k < 8; ++k) {
      mine.push_back(r.codes[size_t(d * 8 + k)]);
      ref.push_back(t.codes[size_t(d * 8 + k)]);
    }
  ASSERT_EQ(trace.depth_guided.size(), t.depth_guided.size());
  const CodeAgreement codes = compare_codes(mine.data(), trace.depth_guided.data(), ref.data(), t.depth_guided.data(),
                                            t.depth_draws.data(), t.depth_frames, 7, int(t.audio_vocab));
  for (const auto& defect : codes.defects_found) ADD_FAILURE() << "depth " << defect;
  record(c.gate, c.case_name, "codes.defects", codes.defects, 0);
  record(c.gate, c.case_name, "codes.near_ties", codes.near_ties, 0, BoundKind::ReportOnly);
}

void check_latents(const SongCheck& c, const std::vector<std::vector<bf16>>& windows, const UlpBounds& band,
                   double min_exact) {
  ASSERT_EQ(windows.size(), c.trace.windows.size()) << "window count";
  std::vector<bf16> got, expected;
  for (size_t k = 0; k < windows.size(); ++k) {
    ASSERT_EQ(windows[k].size(), c.trace.windows[k].latents.size()) << "window " << k << " length";
    got.insert(got.end(), windows[k].begin(), windows[k].end());
    expected.insert(expected.end(), c.trace.windows[k].latents.begin(), c.trace.windows[k].latents.end());
  }
  const UlpStats s = ulp_stats(got, expected);
  EXPECT_EQ(s.nonfinite, 0u);
  check_ulp(c.gate, c.case_name, "latents.ulp", s, band);
  check_exact_fraction(c, "latents.exact_fraction", s, min_exact);
}

void check_audio(const SongCheck& c, const vocoder::StereoAudio& audio, const UlpBounds& band, double min_exact) {
  ASSERT_EQ(audio.samples, c.trace.samples);
  // f32 audio in f32 ULPs (the output's own format, gates/lib/ulp_stats.h).
  const UlpStats s = ulp_stats(audio.data.data(), c.trace.audio.data(), audio.data.size(), UlpScale::F32);
  check_ulp(c.gate, c.case_name, "audio.ulp", s, band);
  check_exact_fraction(c, "audio.exact_fraction", s, min_exact);
}

}  // namespace music3::gates
