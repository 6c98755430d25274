// add_rms_norm on CUDA: one block of 256 threads per row, in the same order as add.cu
// and then rms_norm.cu, so the bits equal the two kernels': thread tid writes
// h[i] = bf16( f32(x[m|0, i]) + f32(r[m|0, i]) ) and sums f32(h[i])^2 over i = tid,
// tid + 256, ... in increasing i; the block's fixed tree (block_reduce.cuh) gives ss;
// r = 1 / sqrtf(ss / N + eps); a[i] = bf16( bf16(h[i] * r) * w[i] ), h[i] as the thread
// wrote it. Launched under PDL (pdl.cuh): it reads only w before pdl_wait().
#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;  // rms_norm.cu's block: the partial sums' order depends on it
constexpr int kBatch = 16;     // elements per thread held in registers: one batch covers N <= 4096

// x, r and h may be one buffer (h = x + r in place), so none is declared __restrict__. A
// thread loads a whole batch of its elements before storing any, keeps the last batch's h
// and the first batch's w (loaded before pdl_wait: no earlier work writes the weights) in
// registers, so a row of N <= 4096 costs one round trip to memory after the wait.
__global__ void __launch_bounds__(kThreads)
    add_rms_norm_kernel(const bf16* x, const bf16* r, const bf16* __restrict__ w, bf16* h, bf16* __restrict__ a,
                        int64_t n, int64_t x_stride, int64_t r_stride, float eps) {
  constexpr int64_t kStride = int64_t{kThreads} * kBatch;
  __shared__ float scratch[32];
  const int64_t tid = threadIdx.x;
  bf16 wv[kBatch], hv[kBatch];
#pragma unroll
  for (int u = 0; u < kBatch; ++u)
    if (tid + u * kThreads < n) wv[u] = w[tid + u * kThreads];
  pdl_wait();
  pdl_trigger();
  const bf16* xr = x + blockIdx.x * x_stride;
  const bf16* rr = r + blockIdx.x * r_stride;
  bf16* hr = h + blockIdx.x * n;
  bf16* ar = a + blockIdx.x * n;
  float ss = 0.0f;
  for (int64_t base = tid; base < n; base += kStride) {
    bf16 xv[kBatch], rv[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int64_t i = base + int64_t{u} * kThreads;
      if (i < n) xv[u] = xr[i], rv[u] = rr[i];
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int64_t i = base + int64_t{u} * kThreads;
      if (i < n) {
        hv[u] = to_bf16(to_f32(xv[u]) + to_f32(rv[u]));
        hr[i] = hv[u];
        const float v = to_f32(hv[u]);
        ss = __fmaf_rn(v, v, ss);  // increasing i, as rms_norm.cu
      }
    }
  }
  ss = block_reduce(ss, 0.0f, scratch, SumOp{});
  const float inv_rms = 1.0f / sqrtf(ss / static_cast<float>(n) + eps);
  for (int64_t base = tid; base < n; base += kStride) {
    const bool first = base == tid, last = base + kStride >= n;
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int64_t i = base + int64_t{u} * kThreads;
      if (i < n) {
        const bf16 hu = last ? hv[u] : hr[i], wu = first ? wv[u] : w[i];
        ar[i] = to_bf16(round_bf16(to_f32(hu) * inv_rms) * to_f32(wu));
      }
    }
  }
}

}  // namespace

void add_rms_norm_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const AddRmsNormArgs*>(args);
  const int64_t rows = p.h_out.shape[0], cols = p.h_out.shape[1];
  launch_pdl("add_rms_norm", add_rms_norm_kernel, dim3(static_cast<unsigned>(rows)), dim3(kThreads), 0, stream_of(q),
             p.x.as<const bf16>(), p.r.as<const bf16>(), p.w.as<const bf16>(), p.h_out.as<bf16>(),
             p.a_out.as<bf16>(), cols, p.x.shape[0] == 1 ? int64_t{0} : cols, p.r.shape[0] == 1 ? int64_t{0} : cols,
             p.eps);
}

}  // namespace music3::ops
