// Teacher-forcing arms for the window-loop gates: a ConditionEncoderArm and a DitArm that return upstream's
// recorded outputs (a LoopGolden) in call order, and compare every input they are given with what upstream's
// modules received at the same call.
// Contract: the encoder's call k must be window k (n frames, latent length L, the frames bit-identical to the
// golden's frame_hiddens from the window's start); the DiT's call c is window c / N, step c % N, and compares x,
// t and the condition with the recorded DiT inputs. Mismatches are counted (elements, and the largest bf16 ULP
// distance), never thrown, so a gate can report and bound them; a call beyond the recording throws
// std::out_of_range. forwards() counts model evaluations: one per encoder call, two per DiT call (both branches).
// Used by one thread at a time.
#pragma once
#include <cstdint>

#include "engine/models/music3/acoustic/acoustic_arms.h"
#include "gates/acoustic/loop_oracle.h"

namespace music3::gates {

struct InputMismatch {
  int64_t calls = 0;
  int64_t elements = 0;    // differing elements over every call
  double max_ulp = 0;      // largest bf16 ULP distance among them
  int64_t shape_errors = 0;  // calls whose sizes (n, L) differed
  void add(const bf16* got, const bf16* expected, int64_t n);
};

class ReplayConditionEncoder : public acoustic::ConditionEncoderArm {
 public:
  explicit ReplayConditionEncoder(const LoopGolden& g) : g_(g) {}
  std::vector<bf16> encode(const bf16* frames, int64_t n, int64_t latent_length) override;
  int64_t cond_channels() const override { return g_.cond_channels; }
  int64_t forwards() const override { return calls_; }
  acoustic::ArmKind kind() const override { return acoustic::ArmKind::Host; }
  const InputMismatch& frames_mismatch() const { return frames_; }

 private:
  const LoopGolden& g_;
  int64_t calls_ = 0;
  InputMismatch frames_;
};

class ReplayDit : public acoustic::DitArm {
 public:
  explicit ReplayDit(const LoopGolden& g) : g_(g) {}
  acoustic::VelocityPair velocities(const bf16* x, int64_t length, bf16 t, const bf16* cond) override;
  int64_t latent_channels() const override { return g_.channels; }
  int64_t cond_channels() const override { return g_.cond_channels; }
  int64_t forwards() const override { return 2 * calls_; }
  acoustic::ArmKind kind() const override { return acoustic::ArmKind::Host; }
  const InputMismatch& x_mismatch() const { return x_; }
  const InputMismatch& t_mismatch() const { return t_; }
  const InputMismatch& cond_mismatch() const { return cond_; }

 private:
  const LoopGolden& g_;
  int64_t calls_ = 0;
  InputMismatch x_, t_, cond_;
};

}  // namespace music3::gates
