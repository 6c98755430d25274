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
#include "engine/ops/ops.h"
#include "engine/ops/sampler_algo.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 1024;
constexpr int kWarps = kThreads / 32;
constexpr uint32_t kMaxVocab = 4096;
constexpr int kPerThread = kMaxVocab / kThreads;
constexpr int kRadixBits = 8;
constexpr int kBins = 1 << kRadixBits;

// The order-preserving key of a finite float: g_a > g_b <=> key(g_a) > key(g_b), -0 mapped with +0.
__device__ __forceinline__ uint32_t order_key(float g) {
  const uint32_t u = __float_as_uint(g + 0.0f);  // -0 + +0 = +0
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// sampler::tree_sum over the padded slots p of v (thread t's slot t + kThreads j in v[j]); v is consumed and
// `tree` (kThreads floats of shared memory) is overwritten.
__device__ float block_tree_sum(float (&v)[kPerThread], uint32_t p, float* tree) {
  // Levels s = sj kThreads >= kThreads: slot t + kThreads j (< s) and its partner t + kThreads (j + sj) are both
  // this thread's.
#pragma unroll
  for (int sj = kPerThread / 2; sj >= 1; sj /= 2)
    if (p / 2 >= static_cast<uint32_t>(sj * kThreads))
#pragma unroll
      for (int j = 0; j < sj; ++j) v[j] = v[j] + v[j + sj];
  tree[threadIdx.x] = v[0];
  __syncthreads();
  uint32_t s = min(p / 2, static_cast<uint32_t>(kThreads / 2));
  for (; s >= 32; s /= 2) {
    if (threadIdx.x < s) sampler::tree_sum_add(tree, threadIdx.x, s);
    __syncthreads();
  }
  if (threadIdx.x < 32) {  // warp 0, the levels below 32: lane i holds slot i
    float a = tree[threadIdx.x];
    for (; s >= 1; s /= 2) {
      const float partner = __shfl_down_sync(0xFFFFFFFFu, a, s);
      if (threadIdx.x < s) a = a + partner;  // tree_sum_add: a[i] + a[i + s]
    }
    if (threadIdx.x == 0) tree[0] = a;
  }
  __syncthreads();
  const float sum = tree[0];
  __syncthreads();  // tree[] may be overwritten by the caller next
  return sum;
}

struct Candidate {
  float score;
  uint32_t index;
};

__device__ Candidate better(Candidate x, Candidate y) {
  return sampler::draw_beats(x.score, x.index, y.score, y.index) ? x : y;
}

// The key of the rank-th largest of the V keys (1 <= rank <= V), by most significant digit first: per pass, each
// candidate (its key's higher digits equal the prefix found so far) counts its next digit; warp 0 scans the bins
// from the top and takes the digit where the count from above reaches the rank.
__device__ uint32_t radix_select(const uint32_t (&key)[kPerThread], uint32_t vocab, uint32_t rank, uint32_t* bins,
                                 uint32_t* shared_pick) {
  uint32_t prefix = 0, mask = 0;
  for (int shift = 32 - kRadixBits; shift >= 0; shift -= kRadixBits) {
    for (int b = threadIdx.x; b < kBins; b += kThreads) bins[b] = 0;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const uint32_t i = threadIdx.x + j * kThreads;
      if (i < vocab && (key[j] & mask) == prefix) atomicAdd(&bins[(key[j] >> shift) & (kBins - 1)], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 32) {
      // Lane l holds bins 255 - 8 l .. 248 - 8 l (from the top); counts from above by an inclusive warp scan.
      constexpr int kPerLane = kBins / 32;
      const int lane = threadIdx.x;
      uint32_t c[kPerLane], local = 0;
#pragma unroll
      for (int k = 0; k < kPerLane; ++k) local += c[k] = bins[kBins - 1 - (lane * kPerLane + k)];
      uint32_t inclusive = local;
      for (int o = 1; o < 32; o *= 2) {
        const uint32_t up = __shfl_up_sync(0xFFFFFFFFu, inclusive, o);
        if (lane >= o) inclusive += up;
      }
      uint32_t above = inclusive - local;  // keys in higher bins than this lane's first
      const bool here = above < rank && rank <= inclusive;
      if (here) {
#pragma unroll
        for (int k = 0; k < kPerLane; ++k) {
          if (above + c[k] >= rank) {
            shared_pick[0] = static_cast<uint32_t>(kBins - 1 - (lane * kPerLane + k));
            shared_pick[1] = rank - above;
            break;
          }
          above += c[k];
        }
      }
    }
    __syncthreads();
    prefix |= shared_pick[0] << shift;
    mask |= static_cast<uint32_t>(kBins - 1) << shift;
    rank = shared_pick[1];
    __syncthreads();  // shared_pick and bins are rewritten by the next pass
  }
  return prefix;
}

__global__ void __launch_bounds__(kThreads)
    cfg_topk_sample_kernel(const bf16* logits, uint32_t vocab, const float* draws, float* __restrict__ guided_out,
                           int32_t* code_out, uint32_t* nonfinite, float cfg_scale, int top_k) {
  using namespace sampler;
  __shared__ float tree[kThreads];
  __shared__ uint32_t bins[kBins];
  __shared__ uint32_t pick[2];
  __shared__ float scratch_f[32];
  __shared__ uint32_t scratch_u[32];
  __shared__ Candidate scratch_c[32];
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
  bad = block_reduce(bad, 0u, scratch_u, SumOp{});
  const float max_g = block_reduce(local_max, -3.0e38f, scratch_f, MaxOp{});
  const bool keep_all = static_cast<uint32_t>(top_k) >= vocab;
  const uint32_t threshold = keep_all ? 0u : radix_select(key, vocab, static_cast<uint32_t>(top_k), bins, pick);

  float weight[kPerThread], w[kPerThread];
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const uint32_t i = threadIdx.x + j * kThreads;
    weight[j] = i < vocab ? kept_weight(g[j], max_g, key[j] >= threshold) : 0.0f;
    w[j] = weight[j];
  }
  const float sum = block_tree_sum(w, padded, tree);

#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const uint32_t i = threadIdx.x + j * kThreads;
    weight[j] = normalized(weight[j], sum);
    w[j] = i < padded ? weight[j] : 0.0f;
  }
  const float sum_p = block_tree_sum(w, padded, tree);

  Candidate best{f32_from_bits(0xFF800000u), 0xFFFFFFFFu};  // -inf, beaten by any real index
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const uint32_t i = threadIdx.x + j * kThreads;
    if (i < vocab) best = better(Candidate{draw_score(renormalized(weight[j], sum_p), e[j]), i}, best);
  }
  for (int o = 16; o >= 1; o /= 2) {
    Candidate other{__shfl_xor_sync(0xFFFFFFFFu, best.score, o), __shfl_xor_sync(0xFFFFFFFFu, best.index, o)};
    best = better(other, best);
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) scratch_c[warp] = best;
  __syncthreads();
  if (warp == 0) {
    best = scratch_c[lane];  // kWarps == 32: every lane has one
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
static_assert(kWarps == 32, "the argmax's second stage reads one candidate per lane");

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
