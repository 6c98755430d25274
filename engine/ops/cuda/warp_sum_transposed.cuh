// Sums v[i] over the warp's 32 lanes for every i < V (V a power of two <= 32) in V - 1 + 5 - log2(V) shuffles,
// each value with the tree of a plain xor butterfly (a lane adds its own value first, then its partner's) over the
// distances in one order: 1, 2, 4, 8, 16 (kHighFirst false: the GEMV, gemv_bt.cuh) or 16, 8, 4, 2, 1 (true: the
// decode attention's dot products, gqa_attention_fixed.cu, whose tree is gqa_attention.cu's plain butterfly). The
// first log2(V) steps each pair lanes at that step's distance o and keep half of the values (the lane with bit o
// set keeps the upper half), so every lane ends with one value's whole sum; the plain butterfly finishes the rest
// of the distances. Returns the value index lane l holds: low first, bitrev(l mod V); high first, l's bits 4, 3, ...
// read as a log2(V)-digit number. Device-side helper: no state.
#pragma once

namespace music3::ops {

template <int V, bool kHighFirst = false>
__device__ __forceinline__ int warp_sum_transposed(float (&v)[V], int lane) {
  constexpr int kFirst = kHighFirst ? 16 : 1;
  int index = 0, o = kFirst;
#pragma unroll
  for (int half = V / 2; half >= 1; half /= 2, o = kHighFirst ? o / 2 : o * 2) {
    const bool upper = (lane & o) != 0;
#pragma unroll
    for (int i = 0; i < half; ++i) {
      const float send = upper ? v[i] : v[i + half];
      const float keep = upper ? v[i + half] : v[i];
      v[i] = keep + __shfl_xor_sync(0xFFFFFFFFu, send, o);
    }
    if (upper) index += half;
  }
#pragma unroll
  for (; kHighFirst ? o >= 1 : o < 32; o = kHighFirst ? o / 2 : o * 2)
    v[0] += __shfl_xor_sync(0xFFFFFFFFu, v[0], o);
  return index;
}

}  // namespace music3::ops
