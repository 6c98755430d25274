// cfg_topk_sample on CUDA: one block of 1024 threads runs sampler_algo.h's steps with
// the same scalar functions as the CPU provider, so both write the same code,
// guided logits and count from the same inputs (V <= 4096, the shared-memory size).
//   - guided logits and the non-finite count: strided over i; the count's block sum
//     is an integer sum, exact in any order;
//   - #{j : g_j > g_i}: each thread scans g in shared memory 32 values at a time,
//     stopping once the count reaches top_k (only "< top_k" matters);
//   - the max and the argmax are order-free (max of finite values; argmax under
//     draw_beats, a total order);
//   - both tree sums perform exactly sampler_algo.h's additions, one level at a
//     time with a barrier between levels.
#include <stdexcept>
#include <string>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/ops.h"
#include "engine/ops/sampler_algo.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 1024;
constexpr uint32_t kMaxVocab = 4096;
constexpr int kPerThread = kMaxVocab / kThreads;

// sampler::tree_sum over a[0, p) by the whole block; a[] is consumed.
__device__ float block_tree_sum(float* a, uint32_t p) {
  for (uint32_t s = p / 2; s >= 1; s /= 2) {
    for (uint32_t i = threadIdx.x; i < s; i += kThreads) sampler::tree_sum_add(a, i, s);
    __syncthreads();
  }
  const float sum = a[0];
  __syncthreads();  // a[] may be overwritten by the caller next
  return sum;
}

struct Candidate {
  float score;
  uint32_t index;
};

__device__ Candidate better(Candidate x, Candidate y) {
  return sampler::draw_beats(x.score, x.index, y.score, y.index) ? x : y;
}

__global__ void __launch_bounds__(kThreads)
    cfg_topk_sample_kernel(const bf16* __restrict__ logits, uint32_t vocab, const float* __restrict__ draws,
                           float* __restrict__ guided_out, int32_t* __restrict__ code_out,
                           uint32_t* __restrict__ nonfinite, float cfg_scale, int top_k) {
  using namespace sampler;
  __shared__ float guided[kMaxVocab];
  __shared__ float tree[kMaxVocab];
  __shared__ float scratch_f[32];
  __shared__ uint32_t scratch_u[32];
  __shared__ Candidate scratch_c[32];
  const uint32_t padded = tree_size(vocab);

  uint32_t bad = 0;
  float local_max = -3.0e38f;  // <= every guided value (guided_logit maps anything below to -1e9)
  for (uint32_t i = threadIdx.x; i < vocab; i += kThreads) {
    const bf16 c = logits[i], u = logits[vocab + i];
    bad += !is_finite_f32(to_f32(c)) + !is_finite_f32(to_f32(u));
    const float g = guided_logit(c, u, cfg_scale);
    guided[i] = g;
    guided_out[i] = g;
    local_max = fmaxf(local_max, g);
  }
  bad = block_reduce(bad, 0u, scratch_u, SumOp{});
  const float max_g = block_reduce(local_max, -3.0e38f, scratch_f, MaxOp{});  // its barriers publish guided[]

  float weight[kPerThread];
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const uint32_t i = threadIdx.x + j * kThreads;
    weight[j] = 0.0f;
    if (i < vocab) {
      const float g = guided[i];
      // Counted 32 values at a time, so the shared-memory loads pipeline; stopping only
      // between blocks can count past top_k, which is_kept() cannot tell apart.
      uint32_t greater = 0;
      for (uint32_t t0 = 0; t0 < vocab && is_kept(greater, top_k); t0 += 32) {
#pragma unroll
        for (uint32_t u = 0; u < 32; ++u) greater += (t0 + u < vocab) && guided[t0 + u] > g;
      }
      weight[j] = kept_weight(g, max_g, is_kept(greater, top_k));
    }
    if (i < padded) tree[i] = weight[j];
  }
  __syncthreads();
  const float sum = block_tree_sum(tree, padded);

#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const uint32_t i = threadIdx.x + j * kThreads;
    weight[j] = normalized(weight[j], sum);
    if (i < padded) tree[i] = weight[j];
  }
  __syncthreads();
  const float sum_p = block_tree_sum(tree, padded);

  Candidate best{f32_from_bits(0xFF800000u), 0xFFFFFFFFu};  // -inf, beaten by any real index
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const uint32_t i = threadIdx.x + j * kThreads;
    if (i < vocab) best = better(Candidate{draw_score(renormalized(weight[j], sum_p), draws[i]), i}, best);
  }
  for (int o = 16; o >= 1; o /= 2) {
    Candidate other{__shfl_xor_sync(0xFFFFFFFFu, best.score, o), __shfl_xor_sync(0xFFFFFFFFu, best.index, o)};
    best = better(other, best);
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) scratch_c[warp] = best;
  __syncthreads();
  if (warp == 0) {
    best = scratch_c[lane];  // kThreads / 32 == 32 warps: every lane has one
    for (int o = 16; o >= 1; o /= 2) {
      Candidate other{__shfl_xor_sync(0xFFFFFFFFu, best.score, o), __shfl_xor_sync(0xFFFFFFFFu, best.index, o)};
      best = better(other, best);
    }
    if (lane == 0) {
      code_out[0] = static_cast<int32_t>(best.index);
      *nonfinite += bad;
    }
  }
}

}  // namespace

void cfg_topk_sample_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const CfgTopkSampleArgs*>(args);
  const int64_t vocab = p.logits.shape[1];
  if (vocab > kMaxVocab)
    throw std::invalid_argument("cfg_topk_sample (cuda): argument 'logits' has V = " + std::to_string(vocab) +
                                ", above the kernel's " + std::to_string(kMaxVocab) + ": " + p.logits.describe());
  cfg_topk_sample_kernel<<<1, kThreads, 0, stream_of(q)>>>(
      p.logits.as<const bf16>(), static_cast<uint32_t>(vocab), p.exp_draws.as<const float>(),
      p.guided_out.as<float>(), p.code_out.as<int32_t>(), p.nonfinite.as<uint32_t>(), p.cfg_scale, p.top_k);
  check_launch("cfg_topk_sample");
}

}  // namespace music3::ops
