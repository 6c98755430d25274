// The interface both arms of the depth stage implement, and its per-frame data.
// Contract: run_frame() runs one frame of the per-frame schedule (upstream's
// MiniMaxMusic3RVQDepthDecoder sampling loop): steps() forward calls over positions 0..steps(), a head, CFG,
// top-k and a draw after each, and returns the codes c1..c_steps with the
// conditional row's final-normed hidden of every call. With forced_codes set, the
// codes are still drawn and returned, but the forced ones are fed back (teacher
// forcing, for per-call parity against the oracle's trajectory).
// Thread-safety: an arm is used from one thread at a time.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/models/music3/depth/depth_instruments.h"
#include "engine/runtime/arm.h"

namespace music3::depth {

using runtime::arm_name;
using runtime::ArmKind;

struct DrawSource {
  enum class Kind { Generator, Replay };
  Kind kind = Kind::Generator;
  uint64_t seed = 0;             // Generator: Exp(1) draws keyed by (seed, frame, step)
  const float* replay = nullptr;  // Replay: [steps, vocab] recorded draws for this frame
};

struct FrameInputs {
  const bf16* last_hidden = nullptr;   // [2, H]: conditional row, unconditional row
  const bf16* c0_embedding = nullptr;  // [H]: the LM's embed_tokens[c0 + 151675]
  uint64_t frame = 0;
  DrawSource draws;
  const int32_t* forced_codes = nullptr;  // [steps] or null
};

// Optional per-call record, for the gates (both rows).
struct FrameTrace {
  std::vector<bf16> final_hidden;  // [steps, 2, H]
  std::vector<bf16> head_logits;   // [steps, 2, V]
  std::vector<float> guided;       // [steps, V]
};

struct FrameResult {
  std::vector<int32_t> codes;  // [steps]
  std::vector<bf16> hidden;    // [steps, H]: conditional rows
};

class DepthArm {
 public:
  virtual ~DepthArm() = default;
  virtual ArmKind kind() const = 0;
  virtual FrameResult run_frame(const FrameInputs& in, FrameTrace* trace) = 0;
};

}  // namespace music3::depth
