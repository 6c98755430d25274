// cfg_topk_sample on CUDA: one block of 1024 threads runs sampler_algo.h's steps with
// the same scalar functions as the CPU provider, so both write the same code,
// guided logits and count from the same inputs (V <= 4096; thread t holds indices t + 1024 j).
//   - guided logits and the non-finite count: the count's block sum is an integer sum, exact in any order;
//   - step 2's kept set as a threshold: keep_i <=> #{j : g_j > g_i} < top_k <=> g_i >= thr, thr the top_k-th
//     largest g (with multiplicity). (If g_i >= thr, every g_j > g_i is > thr, and at most top_k - 1 values are;
//     if g_i < thr, the top_k values >= thr are all > g_i.) thr is found by a radix select over the order-preserving
//     32-bit key of g + 0.0f (so -0 and +0, equal as values, get one key): four passes of 8 bits, each a shared
//     histogram (integer atomics: order-free) of the candidates' next digit and one warp's suffix scan to pick
//     the digit holding the rank. It replaced a rank count in which nearly every warp scanned all V values in
//     shared memory (33.8 us per call in the H200's depth frame);
//   - the max and the argmax are order-free (max of finite values; argmax under draw_beats, a total order);
//   - both tree sums perform exactly sampler_algo.h's additions: levels s >= 1024 inside each thread's own
//     slots (i and i + s are both thread t's), then one level at a time through shared memory with a barrier
//     between levels, the last five (s < 32) within warp 0 by shuffles;
//   - 1024 threads: one code per thread at the depth stage's V = 1024, so each step between two barriers is one
//     value deep. 256 threads (4 codes each) would take the tree's levels 512 and 256 into registers (2 of the 7
//     barriers of each sum) but lengthen every thread's chains fourfold; not measured against this, so it stays.
// Launched under PDL (pdl.cuh): the draws are read before pdl_wait() (their writers, exp_draws or the upload of
// recorded draws, run before the frame's graph, so they completed before the kernel directly before this one
// could pass its wait); everything else after it.
#include <stdexcept>
#include <string>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/cuda/sampler_block.cuh"
#include "engine/ops/ops.h"
#include "engine/ops/sampler_algo.h"

namespace music3::ops {
namespace {

using namespace sampler_block;

constexpr int kThreads = 1024;
constexpr uint32_t kMaxVocab = 4096;
constexpr int kPerThread = kMaxVocab / kThreads;

__global__ void __launch_bounds__(kThreads)
    cfg_topk_sample_kernel(const bf16* logits, uint32_t vocab, const float* draws, float* __restrict__ guided_out,
                           int32_t* code_out, uint32_t* nonfinite, float cfg_scale, int top_k) {
  using namespace sampler;
  __shared__ SamplerShared<kThreads> sh;
  const uint32_t padded = tree_size(vocab);

  float e[kPerThread];
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const uint32_t i = threadIdx.x + j * kThreads;
    e[j] = i < vocab ? draws[i] : 0.0f;
  }
  pdl_wait();
  pdl_trigger();

  uint32_t bad = 0;
  float local_max = -3.0e38f;  // <= every guided value (guided_logit maps anything below to -1e9)
  float g[kPerThread];
  uint32_t key[kPerThread];
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const uint32_t i = threadIdx.x + j * kThreads;
    g[j] = 0.0f;
    key[j] = 0;
    if (i < vocab) {
      const bf16 c = logits[i], u = logits[vocab + i];
      bad += !is_finite_f32(to_f32(c)) + !is_finite_f32(to_f32(u));
      g[j] = guided_logit(c, u, cfg_scale);
      guided_out[i] = g[j];
      local_max = fmaxf(local_max, g[j]);
      key[j] = order_key(g[j]);
    }
  }
  bad = block_reduce(bad, 0u, sh.scratch_u, SumOp{});
  const float max_g = block_reduce(local_max, -3.0e38f, sh.scratch_f, MaxOp{});
  const bool keep_all = static_cast<uint32_t>(top_k) >= vocab;
  const auto key_at = [&](int j, uint32_t& k) {
    k = key[j];
    return threadIdx.x + j * kThreads < vocab;
  };
  const uint32_t threshold =
      keep_all ? 0u : radix_select<kThreads, kPerThread>(key_at, static_cast<uint32_t>(top_k), sh.bins, sh.pick);

  float weight[kPerThread], w[kPerThread];
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const uint32_t i = threadIdx.x + j * kThreads;
    weight[j] = i < vocab ? kept_weight(g[j], max_g, key[j] >= threshold) : 0.0f;
    w[j] = weight[j];
  }
  const float sum = block_tree_sum<kThreads>(w, padded, sh.tree);

#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const uint32_t i = threadIdx.x + j * kThreads;
    weight[j] = normalized(weight[j], sum);
    w[j] = i < padded ? weight[j] : 0.0f;
  }
  const float sum_p = block_tree_sum<kThreads>(w, padded, sh.tree);

  Candidate best{f32_from_bits(0xFF800000u), 0xFFFFFFFFu};  // -inf, beaten by any real index
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const uint32_t i = threadIdx.x + j * kThreads;
    if (i < vocab) best = better(Candidate{draw_score(renormalized(weight[j], sum_p), e[j]), i}, best);
  }
  best = block_argmax<kThreads>(best, sh.scratch_c);
  if (threadIdx.x == 0) {
    code_out[0] = static_cast<int32_t>(best.index);
    *nonfinite += bad;
  }
}

}  // namespace

void cfg_topk_sample_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const CfgTopkSampleArgs*>(args);
  const int64_t vocab = p.logits.shape[1];
  if (vocab > kMaxVocab)
    throw std::invalid_argument("cfg_topk_sample (cuda): argument 'logits' has V = " + std::to_string(vocab) +
                                ", above the kernel's " + std::to_string(kMaxVocab) + ": " + p.logits.describe());
  launch_pdl("cfg_topk_sample", cfg_topk_sample_kernel, dim3(1), dim3(kThreads), 0, stream_of(q),
             p.logits.as<const bf16>(), static_cast<uint32_t>(vocab), p.exp_draws.as<const float>(),
             p.guided_out.as<float>(), p.code_out.as<int32_t>(), p.nonfinite.as<uint32_t>(), p.cfg_scale, p.top_k);
}

}  // namespace music3::ops
