// The autoregressive stage (diffusers' MiniMaxMusic3AutoregressiveStep): text ids to
// frame hiddens, driving a language-model arm and the depth stage.
// Contract, upstream's order: prefill both rows (conditional, CFG) from embed_tokens of
// the ids; then for iteration i = 0 .. max_frames: sliced logits of the last hidden, the
// LM sampler (lm_sampler.h); <|audio_end|> breaks before the depth stage; the depth stage
// draws c1..c7 from (last hidden, embed_tokens[token]); iteration 0 is a warm-up (sampled
// and fed back, never emitted); from iteration 1 on, frame [last[0], h1..h7] is emitted
// and, once max_frames are out, the loop ends before the feedback; the feedback
// embedding (both rows) is bf16(bf16(embed[c0 + 151675] + bf16(sum_k audio_emb[c_k +
// (k-1)A])) * codebooks^-0.5) (one rounding for the 7-row sum, one for the add, one for
// the scale) and one decode step gives the next last hidden. Zero emitted frames throw
// ArError kind "zero_frames". Draws: the engine's counter-based generator keyed by seed,
// or recorded ones (LM: [iterations, V] indexed by the full-vocabulary id; depth:
// [frames, 7, A]); a teacher (recorded tokens and codes) is fed back instead of the
// sampled ones, which are still drawn and returned. A traced run brings each iteration's
// logits to the host and samples there (the trace holds logits, guided logits and
// probabilities); an untraced one asks the arm for the sample alone (LmArm::sample_last,
// drawn on the arm's device where lm_sample has a provider there), or, without a teacher
// and with both arms on the device, runs the device-resident frame (ar_device_loop.h):
// the same tokens, codes and hiddens, by the ops' contracts. Thread-safety: one call at a
// time per arm.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/models/music3/depth/depth_engine.h"
#include "engine/models/music3/lm/lm_arm.h"
#include "engine/models/music3/lm/lm_weights.h"

namespace music3::ar {

class ArError : public std::runtime_error {
 public:
  ArError(std::string kind, const std::string& message);
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
};

// min(int(audio_duration * 25), 9000); throws ArError "bad_duration" for a duration that
// is not positive and finite or shorter than one frame.
int max_frames_for(double audio_duration);

struct ArDraws {
  uint64_t seed = 0;                     // used where no recording is given
  const float* lm_replay = nullptr;      // [lm_rows, lm_vocab]
  int64_t lm_rows = 0, lm_vocab = 0;
  const float* depth_replay = nullptr;   // [depth_rows, 7, A]
  int64_t depth_rows = 0;
};

struct ArTeacher {
  const int32_t* tokens = nullptr;  // [iterations]
  int64_t iterations = 0;
  const int32_t* codes = nullptr;   // [frames, 8]
  int64_t frames = 0;
};

struct ArTrace {
  std::vector<bf16> prefill_hidden;  // [2, P, H]
  std::vector<bf16> last_hidden;     // [I, 2, H]
  std::vector<bf16> lm_logits;       // [I, 2, K]
  std::vector<float> guided, probs;  // [I, K]
  std::vector<bf16> feedback;        // [decode steps, 2, H]
  std::vector<bf16> depth_hidden;    // [D, 7H]
  std::vector<float> depth_guided;   // [D, 7, A]
};

struct ArResult {
  std::vector<bf16> frame_hiddens;  // [frames, 8H]
  int64_t frames = 0, iterations = 0;
  bool eos = false;
  std::vector<int32_t> tokens;  // [iterations] as sampled
  std::vector<int32_t> codes;   // [depth frames, 8] as sampled (c0 from the token fed)
  uint32_t nonfinite_logits = 0;
  double prefill_seconds = 0;  // the prompt's prefill, host clock (it returns with the last hidden on the host)
  bool device_frame = false;   // the iterations ran on the device-resident frame (ar_device_loop.h)
};

struct ArOptions {
  int max_frames = 1;
  ArDraws draws;
  const ArTeacher* teacher = nullptr;
  // Benchmarking only (music3 generate --ignore-eos): both rows' <|audio_end|> logit is set to the lowest finite
  // bf16 before sampling, so the conditional row's top-50 pre-filter removes it and the loop runs max_frames frames,
  // as upstream's pipeline does with that lm_head column masked to -inf (bench/pipeline/diffusers_pipeline_peer.py:
  // its guided value is NaN, then -inf by the same pre-filter). Not upstream's song: never set by the gates' runs.
  bool ignore_eos = false;
  std::function<void(int64_t frames, int64_t iterations)> progress;  // after every iteration
  // After every emitted frame: the frame hiddens so far, [frames, 8H], final (never rewritten); the pointer is
  // valid during the call only (the buffer grows).
  std::function<void(const bf16* frame_hiddens, int64_t frames)> frames_out;
};

struct ArModels {
  lm::LmArm& lm;
  const lm::LmWeights& lm_weights;  // embed_tokens for the prompt, c0 and the feedback
  depth::DepthEngine& depth;
  const runtime::HostTensor& audio_embeddings;  // the depth decoder's [7A, H]
};

// text_ids: [2, prompt] (row 0 conditional, row 1 the CFG copy).
ArResult run_ar(const ArModels& models, const int32_t* text_ids, int prompt, const ArOptions& options,
                ArTrace* trace = nullptr);

// The feedback embedding of one frame's codes [8] (c0 then c1..c7): out [H] (ops/feedback_rule.h's rule).
void feedback_embedding(const lm::LmWeights& lm, const runtime::HostTensor& audio_embeddings, int audio_vocab,
                        const int32_t* codes, int codebooks, bf16* out);
// Its scale, codebooks^-0.5 (in f64, then f32).
float feedback_scale(int codebooks);

}  // namespace music3::ar
