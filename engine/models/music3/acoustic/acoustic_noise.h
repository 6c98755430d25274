// The initial noise of each acoustic window: the engine's counter-based generator (engine/core/counter_rng.h), or
// recorded noise (an oracle trace, a --noise file) injected for parity.
// Contract: window_noise(k, channels, length) returns [channels][length] bf16.
// - Drawn: element i of window k is a standard normal from Box-Muller on the Philox block (i / 4) of counter
//   stream k keyed by the seed (each block gives two (u1, u2) pairs, u1 in (0, 1] and u2 in [0, 1) from 24 bits
//   each; radius and angle in f64, the value rounded once to bf16, as torch draws randn directly in bf16). A pure
//   function of (seed, k, i): windows and elements never share draws, and the result does not depend on threads.
// - Recorded: window k is the k-th recorded tensor; a missing window or one whose element count differs from
//   channels * length throws NoiseError naming the window and both sizes.
// A NoiseSource is immutable after construction: thread-safe.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::acoustic {

class NoiseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class NoiseSource {
 public:
  static NoiseSource drawn(uint64_t seed);
  static NoiseSource recorded(std::vector<std::vector<bf16>> windows);
  std::vector<bf16> window_noise(int64_t window, int64_t channels, int64_t length) const;
  bool is_recorded() const { return recorded_; }

 private:
  bool recorded_ = false;
  uint64_t seed_ = 0;
  std::vector<std::vector<bf16>> windows_;
};

// One drawn value: element `index` of window `window` (what window_noise fills in, exposed for the gates).
float normal_draw(uint64_t seed, uint64_t window, uint64_t index);

}  // namespace music3::acoustic
