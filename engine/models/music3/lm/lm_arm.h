// The interface both arms of the language model implement: a two-row (conditional,
// unconditional) Qwen3 decoder with its own K/V cache, as the AR loop drives it.
// Contract: prefill() starts a sequence from inputs_embeds [2, P, H] (row-major, batch
// first) at positions 0..P-1, sized for `capacity` positions in all; it writes the
// final-normed hidden of every position [2, P, H] to `all` (when not null) and of the
// last position [2, H] to `last`. decode() appends one position per row from
// inputs_embeds [2, H] and writes its final-normed hidden [2, H]. head() writes the
// sliced logits [2, K] (lm_ids.h) of hidden rows [2, H]: lm_head at the 16,385
// sampleable ids only, bf16 as the GEMM rounds them. sample_last() runs the LM sampler
// (lm_sampler.h) on the sliced logits of the last position the arm produced (prefill's or
// decode's `last`) and returns the sample alone; with mask_eos, column 0 (<|audio_end|>) of
// both rows is set to the lowest finite bf16 first (ArOptions::ignore_eos); it gives
// lm_sample(head(last)) bit for bit. position() is the number of positions cached. Calls past capacity throw std::out_of_range. An arm is used by
// one thread at a time.
#pragma once
#include "engine/core/bf16.h"
#include "engine/models/music3/lm/lm_sampler.h"
#include "engine/runtime/arm.h"

namespace music3::lm {

class LmArm {
 public:
  virtual ~LmArm() = default;
  virtual runtime::ArmKind kind() const = 0;
  virtual void prefill(const bf16* embeds, int prompt, int capacity, bf16* last, bf16* all) = 0;
  virtual void decode(const bf16* embeds, bf16* last) = 0;
  virtual void head(const bf16* last, bf16* logits) = 0;
  virtual LmSample sample_last(const LmDraws& draws, bool mask_eos) = 0;
  virtual int position() const = 0;
};

}  // namespace music3::lm
