// kv_append on CUDA: grid (B, 3), block y = 0, 1, 2 copies qkv[b, yH:(y+1)H] to
// q_out[b, :], k_cache[b, pos, :] or v_cache[b, pos, :]. Pure copies.
#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void kv_append_kernel(const bf16* __restrict__ qkv, bf16* __restrict__ q_out, bf16* __restrict__ k_cache,
                                 bf16* __restrict__ v_cache, int64_t width, int64_t tmax, int64_t pos) {
  const int64_t b = blockIdx.x;
  const int part = static_cast<int>(blockIdx.y);
  const bf16* src = qkv + (b * 3 + part) * width;
  bf16* dst = part == 0 ? q_out + b * width : (part == 1 ? k_cache : v_cache) + (b * tmax + pos) * width;
  for (int64_t i = threadIdx.x; i < width; i += kThreads) dst[i] = src[i];
}

}  // namespace

void kv_append_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const KvAppendArgs*>(args);
  const dim3 grid(static_cast<unsigned>(p.qkv.shape[0]), 3);
  kv_append_kernel<<<grid, kThreads, 0, stream_of(q)>>>(p.qkv.as<const bf16>(), p.q_out.as<bf16>(),
                                                         p.k_cache.as<bf16>(), p.v_cache.as<bf16>(),
                                                         p.q_out.shape[1], p.k_cache.shape[1], p.pos);
  check_launch("kv_append");
}

}  // namespace music3::ops
