// The standard-normal stream behind every component's synthetic weights (benches and device gates that need a
// full-size model without a checkpoint). Contract: SyntheticNormal(seed, salt) yields a fixed sequence of f32
// draws, Box-Muller over two splitmix64 uniforms in (0, 1); the salt keeps components' streams apart for the same
// seed. Not the sampler's generator (that is engine/core/counter_rng.h): these values never meet an oracle. One
// object per thread.
#pragma once
#include <cmath>
#include <cstdint>

namespace music3::runtime {

class SyntheticNormal {
 public:
  SyntheticNormal(uint64_t seed, uint64_t salt) : state_(seed * 0x9E3779B97F4A7C15ull + salt) {}
  float next() {
    const double u1 = (double(bits() >> 11) + 0.5) / 9007199254740992.0, u2 = double(bits() >> 11) / 9007199254740992.0;
    return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }

 private:
  uint64_t bits() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

}  // namespace music3::runtime
