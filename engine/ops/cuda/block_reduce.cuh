// Block-wide reductions for the CUDA providers, each a fixed tree (a warp butterfly
// over lanes, then warp 0 over the warps' results, padded with the identity), so a
// given launch shape always combines values in the same order. Every thread of the
// block must call them and every thread gets the result; blockDim.x must be a
// multiple of 32. `scratch` is 32 shared values of the reduced type.
#pragma once
#include <cstdint>

namespace music3::ops {

struct SumOp {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
struct MaxOp {
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
  for (int o = 16; o >= 1; o /= 2) v = op(v, __shfl_xor_sync(0xFFFFFFFFu, v, o));
  return v;
}

template <class T, class Op>
__device__ __forceinline__ T block_reduce(T v, T identity, T* scratch, Op op) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = warp_reduce(v, op);
  __syncthreads();  // a previous reduction may still be reading scratch[0]
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_reduce(lane < warps ? scratch[lane] : identity, op);
    if (lane == 0) scratch[0] = v;
  }
  __syncthreads();
  return scratch[0];
}

}  // namespace music3::ops
