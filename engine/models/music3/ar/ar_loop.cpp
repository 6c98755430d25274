#include "engine/models/music3/ar/ar_loop.h"

#include <chrono>
#include <cmath>
#include <cstring>

#include "engine/models/music3/ar/ar_device_loop.h"
#include "engine/models/music3/ar/ar_iteration.h"
#include "engine/models/music3/lm/lm_ids.h"
#include "engine/models/music3/lm/lm_sampler.h"
#include "engine/ops/feedback_rule.h"

namespace music3::ar {

ArError::ArError(std::string kind, const std::string& message)
    : std::runtime_error(kind + ": " + message), kind_(std::move(kind)) {}

int max_frames_for(double audio_duration) {
  if (!(audio_duration > 0) || !std::isfinite(audio_duration))
    throw ArError("bad_duration", "audio duration must be positive and finite, got " + std::to_string(audio_duration));
  const double frames = std::floor(audio_duration * lm::kFrameRate);
  if (frames < 1)
    throw ArError("bad_duration", "audio duration " + std::to_string(audio_duration) +
                                      " s is shorter than one audio frame (1/25 s)");
  return frames > lm::kMaxFrames ? lm::kMaxFrames : int(frames);
}

void feedback_embedding(const lm::LmWeights& lm, const runtime::HostTensor& audio_embeddings, int audio_vocab,
                        const int32_t* codes, int codebooks, bf16* out) {
  const int H = lm.cfg.hidden;
  const bf16* semantic = lm.embed.ptr() + (int64_t(codes[0]) + lm::kCodeOffset) * H;
  const float scale = feedback_scale(codebooks);
  for (int i = 0; i < H; ++i)
    out[i] = ops::feedback_element(semantic[i], audio_embeddings.ptr(), codes + 1, codebooks - 1, audio_vocab, H, i,
                                   scale);
}

float feedback_scale(int codebooks) { return static_cast<float>(std::pow(double(codebooks), -0.5)); }

namespace {

ArResult finished(ArResult r) {
  if (r.frames == 0)
    throw ArError("zero_frames", "the language model sampled <|audio_end|> before any frame was emitted");
  return r;
}

}  // namespace

ArResult run_ar(const ArModels& m, const int32_t* text_ids, int prompt, const ArOptions& o, ArTrace* trace) {
  const auto& lc = m.lm_weights.cfg;
  const auto& dc = m.depth.config();
  const int H = lc.hidden, K = lm::kSampledColumns, S = dc.steps(), A = dc.vocab, C = dc.codebooks;
  if (dc.hidden != H)
    throw ArError("geometry", "the depth decoder's hidden size " + std::to_string(dc.hidden) +
                                  " differs from the language model's " + std::to_string(H));
  if (prompt < 1 || prompt > lm::kMaxPromptTokens)
    throw ArError("prompt_length", "the prompt has " + std::to_string(prompt) + " tokens; 1 .. " +
                                       std::to_string(lm::kMaxPromptTokens) + " are accepted");
  if (o.max_frames < 1 || o.max_frames > lm::kMaxFrames)
    throw ArError("bad_duration", "max_frames " + std::to_string(o.max_frames) + " outside 1 .. 9000");
  for (int64_t i = 0; i < 2 * int64_t(prompt); ++i)
    if (text_ids[i] < 0 || text_ids[i] >= lc.vocab)
      throw ArError("bad_token", "text id " + std::to_string(text_ids[i]) + " at " + std::to_string(i) +
                                     " is outside the vocabulary of " + std::to_string(lc.vocab));
  const bf16* embed = m.lm_weights.embed.ptr();
  std::vector<bf16> x(2 * size_t(prompt) * size_t(H)), last(2 * size_t(H)), logits(2 * size_t(K)), fb(2 * size_t(H));
  for (int64_t r = 0; r < 2 * int64_t(prompt); ++r)
    std::memcpy(x.data() + r * H, embed + int64_t(text_ids[r]) * H, size_t(H) * sizeof(bf16));
  if (trace) trace->prefill_hidden.resize(x.size());
  ArResult r;
  // Room for every frame up front: growth by doubling copied the rows already out and touched fresh pages each
  // time (on the H200's 60 s song, part of the first window's wait); the rows and their order are unchanged.
  r.frame_hiddens.reserve(size_t(o.max_frames) * size_t(1 + S) * size_t(H));
  const auto t_prefill = std::chrono::steady_clock::now();
  m.lm.prefill(x.data(), prompt, prompt + o.max_frames, last.data(), trace ? trace->prefill_hidden.data() : nullptr);
  r.prefill_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_prefill).count();

  if (const auto arms = device_frame_arms(m, o, trace)) {
    run_device_iterations(m, *arms, o, r);
    return finished(std::move(r));
  }
  std::vector<float> draws(static_cast<size_t>(K)), guided(draws.size()), probs(draws.size());
  std::vector<int32_t> fed_codes(static_cast<size_t>(C));
  auto append = [](auto& v, const auto* p, size_t n) { v.insert(v.end(), p, p + n); };
  for (int64_t it = 0; it <= o.max_frames; ++it) {
    const lm::LmDraws lm_draws = lm_draws_for(o.draws, it, draws);
    lm::LmSample s;
    if (trace) {  // the logits, guided logits and probabilities come to the host for the trace
      m.lm.head(last.data(), logits.data());
      if (o.ignore_eos) lm::mask_eos(logits.data());
      s = lm::lm_sample(logits.data(), lm_draws, lm::kCfgScale, lm::kCfgTopK, lm::kTopK, guided.data(), probs.data());
      append(trace->last_hidden, last.data(), last.size());
      append(trace->lm_logits, logits.data(), logits.size());
      append(trace->guided, guided.data(), guided.size());
      append(trace->probs, probs.data(), probs.size());
    } else {  // the same sample, where the arm's device can draw it without the logits coming back
      s = m.lm.sample_last(lm_draws, o.ignore_eos);
    }
    record_sample(r, s);
    int32_t token = s.token;
    if (o.teacher) {
      if (it >= o.teacher->iterations)
        throw ArError("teacher_exhausted", "the teacher trace holds " + std::to_string(o.teacher->iterations) +
                                               " tokens; iteration " + std::to_string(it) + " needs one more");
      token = o.teacher->tokens[it];
    }
    if (token == lm::kAudioEndId) {
      r.eos = true;
      break;
    }
    if (token < lm::kCodeOffset || token >= lm::kCodeOffset + lm::kSemanticVocab)
      throw ArError("bad_token", "token " + std::to_string(token) + " at iteration " + std::to_string(it) +
                                     " is neither <|audio_end|> nor a semantic code");
    const int64_t d = int64_t(r.codes.size()) / C;  // depth frames so far
    depth::FrameInputs in;
    in.last_hidden = last.data();
    in.c0_embedding = embed + int64_t(token) * H;
    in.frame = uint64_t(it);
    in.draws = depth_draws_for(o.draws, d, S, A);
    if (o.teacher) {
      if (d >= o.teacher->frames)
        throw ArError("teacher_exhausted", "the teacher trace holds codes of " + std::to_string(o.teacher->frames) +
                                               " frames; frame " + std::to_string(d) + " needs one more");
      in.forced_codes = o.teacher->codes + d * C + 1;
    }
    depth::FrameTrace ft;
    const depth::FrameResult fr = m.depth.run_frame(in, trace ? &ft : nullptr);
    r.codes.push_back(token - lm::kCodeOffset);
    append(r.codes, fr.codes.data(), fr.codes.size());
    if (trace) {
      append(trace->depth_hidden, fr.hidden.data(), fr.hidden.size());
      append(trace->depth_guided, ft.guided.data(), ft.guided.size());
    }
    if (it > 0 && emit_frame(r, o, last.data(), H, fr.hidden)) break;  // before the feedback
    if (o.teacher) std::memcpy(fed_codes.data(), o.teacher->codes + d * C, size_t(C) * sizeof(int32_t));
    else std::memcpy(fed_codes.data(), r.codes.data() + d * C, size_t(C) * sizeof(int32_t));
    feedback_embedding(m.lm_weights, m.audio_embeddings, A, fed_codes.data(), C, fb.data());
    std::memcpy(fb.data() + H, fb.data(), size_t(H) * sizeof(bf16));
    if (trace) append(trace->feedback, fb.data(), fb.size());
    m.lm.decode(fb.data(), last.data());
  }
  return finished(std::move(r));
}

}  // namespace music3::ar
