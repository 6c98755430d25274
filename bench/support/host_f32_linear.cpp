#include "bench/support/host_f32_linear.h"

#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/core/dot_bf16.h"

namespace music3::bench {
namespace {

inline float dot_f32_in_bf16_order(const float* a, const float* b, int64_t K) {
  constexpr int kLanes = kDotLanes;
  float lane[kLanes] = {};
  const int64_t k16 = K - K % kLanes;
  for (int64_t k = 0; k < k16; k += kLanes)
    for (int l = 0; l < kLanes; ++l) lane[l] += a[k + l] * b[k + l];
  for (int s = kLanes / 2; s >= 1; s /= 2)
    for (int l = 0; l < s; ++l) lane[l] += lane[l + s];
  float acc = lane[0];
  for (int64_t k = k16; k < K; ++k) acc += a[k] * b[k];
  return acc;
}

}  // namespace

void linear_f32_container(const float* x, int M, const float* w, int N, int K, float* y, int threads) {
  parallel_for(N, threads, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n)
      for (int m = 0; m < M; ++m)
        y[int64_t(m) * N + n] = round_bf16(dot_f32_in_bf16_order(x + int64_t(m) * K, w + n * K, K));
  });
}

}  // namespace music3::bench
