// The comparisons of one song's stage outputs with the real pipeline's trace (pipeline_trace.h), shared by the
// stage-by-stage gate (e2e_gate.cpp: each stage fed upstream's input) and the whole-run gate (whole_gate.cpp:
// `run_generate`, each stage fed the engine's own output). Each check asserts (GoogleTest) and records
// `<gate>.<metric>` for the case (gate_record.h):
//   check_text_ids   both rows of the prompt ids equal (text_ids.mismatches);
//   check_ar         iteration and frame counts and the EOS outcome exactly, every token and code equal up to a
//                    shared near-tie (tokens/codes.defects, .near_ties reported; for the differing tokens also the
//                    largest score gap, tokens.near_tie_max_gap_ulps); a token whose pick one side's conditional
//                    prefilter masked (no finite score gap) only up to a shared near-tie at that prefilter's
//                    threshold (near_tie.h prefilter_near_tie over both sides' sliced logits: tokens.prefilter_ties,
//                    and the farthest masked pick below its threshold, tokens.prefilter_tie_max_ulps), frame_hiddens
//                    within `hidden`;
//   check_latents    window count and lengths exactly, the windows' latents (concatenated) within `band` and at
//                    least `min_exact` of them bit-exact;
//   check_audio      sample count exactly, the stitched audio within `band`, at least `min_exact` bit-exact.
// Thread-safety: as GoogleTest assertions (one test thread).
#pragma once
#include <string>
#include <vector>

#include "engine/models/music3/ar/ar_loop.h"
#include "engine/models/music3/pipeline/pipeline_trace.h"
#include "engine/models/music3/vocoder/vocoder_stitch.h"
#include "gates/lib/gate_record.h"

namespace music3::gates {

struct SongCheck {
  std::string gate, case_name;
  const pipeline::PipelineTrace& trace;
};

void check_text_ids(const SongCheck& c, const std::vector<int32_t>& ids);
void check_ar(const SongCheck& c, const ar::ArResult& r, const ar::ArTrace& trace, const UlpBounds& hidden);
void check_latents(const SongCheck& c, const std::vector<std::vector<bf16>>& windows, const UlpBounds& band,
                   double min_exact);
void check_audio(const SongCheck& c, const vocoder::StereoAudio& audio, const UlpBounds& band, double min_exact);

}  // namespace music3::gates
