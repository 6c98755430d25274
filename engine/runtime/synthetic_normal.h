// The standard-normal stream behind every component's synthetic weights (benches and device gates that need a
// full-size model without a checkpoint). Contract: SyntheticNormal(seed, salt) yields a fixed sequence of f32
// draws, Box-Muller over two splitmix64 uniforms in (0, 1); the salt keeps components' streams apart for the same
// seed. Not the sampler's generator (that is engine/core/counter_rng.h): these values never meet an oracle. One
// object per thread. skip(k) moves the stream past k draws at once (splitmix64's state only counts), which is what
// lets fill_normal() write a multi-GB tensor on every core with the bits of the one sequential stream.
#pragma once
#include <cmath>
#include <cstdint>

#include "engine/core/bf16.h"

namespace music3::runtime {

class SyntheticNormal {
 public:
  SyntheticNormal(uint64_t seed, uint64_t salt) : state_(seed * 0x9E3779B97F4A7C15ull + salt) {}
  float next() {
    const double u1 = (double(bits() >> 11) + 0.5) / 9007199254740992.0, u2 = double(bits() >> 11) / 9007199254740992.0;
    return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }
  void skip(uint64_t draws) { state_ += 2 * draws * kGolden; }  // next() takes two uniforms

 private:
  static constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
  uint64_t bits() {
    uint64_t z = (state_ += kGolden);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

// out[i] = bf16(mean + stddev * the stream's next draw), i in [0, count), on every core (parallel_for), then the
// stream stands past the count draws: the values and the stream's state are those of the sequential loop.
void fill_normal(SyntheticNormal& n, bf16* out, int64_t count, float mean, float stddev);

}  // namespace music3::runtime
