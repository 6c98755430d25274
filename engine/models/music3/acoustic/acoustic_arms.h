// The two model seams of the acoustic stage (issue 12): the condition encoder and the flow-matching DiT.
// The window loop (scheduler, guidance, overlap, splice, carry) is written against these interfaces only, so it can
// be gated with recorded oracle outputs (a replaying arm) as well as with the real host and device arms.
// Contracts:
// - ConditionEncoderArm::encode(frames, n, latent_length): frames is one window's frame_hiddens [n][8·H] bf16
//   (row j = LM hidden then h1..h7); returns the DiT condition [latent_length][cond_channels] bf16 (the
//   resampled, transposed encoder output, before any overlap splice).
// - DitArm::velocities(x, length, t, cond): x is the latents [latent_channels][length] bf16, t the timestep as the
//   pipeline feeds it (bf16), cond the condition [length][cond_channels] bf16. Returns both guidance branches, each
//   [latent_channels][length] bf16: the conditional call (cond) and the unconditional call (an all-zero
//   condition). The guidance combination is the loop's job, not the arm's. An arm may evaluate the branches as one
//   batch of 2; the result must stay within the device band of two batch-1 calls.
// An arm is used by one thread at a time; forwards() counts model evaluations (one per branch).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/runtime/arm.h"

namespace music3::acoustic {

using runtime::ArmKind;

class ConditionEncoderArm {
 public:
  virtual ~ConditionEncoderArm() = default;
  virtual std::vector<bf16> encode(const bf16* frames, int64_t n, int64_t latent_length) = 0;
  virtual int64_t cond_channels() const = 0;
  virtual int64_t forwards() const = 0;
  virtual ArmKind kind() const = 0;
};

struct VelocityPair {
  std::vector<bf16> conditional;    // [latent_channels][length]
  std::vector<bf16> unconditional;  // [latent_channels][length]
};

// One window's N guided Euler steps as AcousticWindowLoop hands them to an arm that runs them itself
// (acoustic_stage.h's order per step i: the overlap re-noised to t_i = bf16(sigma_i), both branches, guidance, the
// Euler update).
struct WindowSteps {
  int64_t length = 0;                          // L
  const bf16* cond = nullptr;                  // [L][cond_channels], the spliced condition
  const std::vector<float>* sigmas = nullptr;  // flow_sigmas(N): N + 1 values
  int64_t overlap = 0;                         // ov: the columns re-noised every step (0: none)
  const bf16* noise_prompt = nullptr;          // [latent_channels][ov]
  const bf16* carried = nullptr;               // [latent_channels][carried_length]
  int64_t carried_length = 0;
  std::function<void(int step)> after_step;    // once step i's update is done, steps in order
};

class DitArm {
 public:
  virtual ~DitArm() = default;
  virtual VelocityPair velocities(const bf16* x, int64_t length, bf16 t, const bf16* cond) = 0;
  // Runs the window's steps where the arm's velocities are and returns true, x [latent_channels][length] in and
  // out, with the bits of the loop's own steps over velocities() (guidance and Euler in engine/ops/flow_math.h's
  // arithmetic); forwards() moves by 2 per step. The default returns false: the loop runs the steps on the host.
  virtual bool run_steps(bf16* /*x*/, const WindowSteps& /*steps*/) { return false; }
  virtual int64_t latent_channels() const = 0;
  virtual int64_t cond_channels() const = 0;
  virtual int64_t forwards() const = 0;
  virtual ArmKind kind() const = 0;
};

}  // namespace music3::acoustic
