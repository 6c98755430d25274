// One block's pieces of the CUDA samplers (cfg_topk_sample.cu, lm_sample.cu), each performing exactly
// sampler_algo.h's arithmetic so that a sampler built from them gives the CPU provider's bits:
//   - order keys: key(a) > key(b) <=> a > b for floats, -0 mapped with +0 (equal as values, one key);
//     order_key_nan_top also ranks NaN above every number (torch.topk's order);
//   - radix_select: the key of the rank-th largest candidate, most significant digit first, four passes of 8 bits,
//     each a shared histogram (integer atomics: order-free) of the candidates' next digit and one warp's suffix
//     scan to pick the digit holding the rank;
//   - block_tree_sum: sampler::tree_sum's additions, levels s >= kThreads inside each thread's own slots (slot
//     t + kThreads j in v[j]), then one level at a time through shared memory with a barrier between levels, the
//     last five (s < 32) within warp 0 by shuffles;
//   - block_argmax: the best candidate under draw_beats (a total order, so any reduction order gives it).
// Every thread of the block calls each function (they hold barriers); kThreads is the block size.
#pragma once
#include <cstdint>

#include "engine/ops/sampler_algo.h"

namespace music3::ops::sampler_block {

constexpr int kRadixBits = 8;
constexpr int kBins = 1 << kRadixBits;

// The order-preserving key of a non-NaN float: g_a > g_b <=> key(g_a) > key(g_b), -0 mapped with +0.
__device__ __forceinline__ uint32_t order_key(float g) {
  const uint32_t u = __float_as_uint(g + 0.0f);  // -0 + +0 = +0
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// order_key, with every NaN above +inf (key 0xFFFFFFFF; +inf's key is 0xFF800000).
__device__ __forceinline__ uint32_t order_key_nan_top(float g) { return g != g ? 0xFFFFFFFFu : order_key(g); }

// The float whose order_key_nan_top is `key` (NaN for the NaN key; +0 for the zeros' key).
__device__ __forceinline__ float key_value(uint32_t key) {
  if (key == 0xFFFFFFFFu) return __uint_as_float(0x7FC00000u);
  return __uint_as_float((key & 0x80000000u) ? (key & 0x7FFFFFFFu) : ~key);
}

// sampler::tree_sum over the padded slots p of v (thread t's slot t + kThreads j in v[j]); v is consumed and
// `tree` (kThreads floats of shared memory) is overwritten.
template <int kThreads, int kSlots>
__device__ float block_tree_sum(float (&v)[kSlots], uint32_t p, float* tree) {
  // Levels s = sj kThreads >= kThreads: slot t + kThreads j (< s) and its partner t + kThreads (j + sj) are both
  // this thread's.
#pragma unroll
  for (int sj = kSlots / 2; sj >= 1; sj /= 2)
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

// A sampler block's shared memory: the tree's level above the registers, the radix select's bins and pick, and the
// reductions' scratch.
template <int kThreads>
struct SamplerShared {
  float tree[kThreads];
  uint32_t bins[kBins];
  uint32_t pick[2];
  float scratch_f[32];
  uint32_t scratch_u[32];
  Candidate scratch_c[32];
  Candidate winner;  // a block_argmax result shared with every thread
};

__device__ __forceinline__ Candidate better(Candidate x, Candidate y) {
  return sampler::draw_beats(x.score, x.index, y.score, y.index) ? x : y;
}

// The block's best candidate under draw_beats, returned to warp 0 (`scratch`: 32 shared Candidates).
template <int kThreads>
__device__ Candidate block_argmax(Candidate best, Candidate* scratch) {
  constexpr int kWarps = kThreads / 32;
  static_assert(kWarps <= 32 && kThreads % 32 == 0, "the second stage reads one candidate per lane of warp 0");
  for (int o = 16; o >= 1; o /= 2) {
    Candidate other{__shfl_xor_sync(0xFFFFFFFFu, best.score, o), __shfl_xor_sync(0xFFFFFFFFu, best.index, o)};
    best = better(other, best);
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) scratch[warp] = best;
  __syncthreads();
  if (warp == 0) {
    best = lane < kWarps ? scratch[lane] : Candidate{__uint_as_float(0xFF800000u), 0xFFFFFFFFu};  // -inf: beaten
    for (int o = 16; o >= 1; o /= 2) {
      Candidate other{__shfl_xor_sync(0xFFFFFFFFu, best.score, o), __shfl_xor_sync(0xFFFFFFFFu, best.index, o)};
      best = better(other, best);
    }
  }
  return best;
}

// The key of the rank-th largest candidate (1 <= rank <= the candidates), by most significant digit first: per
// pass, each candidate (its key's higher digits equal the prefix found so far) counts its next digit; warp 0 scans
// the bins from the top and takes the digit where the count from above reaches the rank. key_at(j, key) gives the
// key of this thread's slot j and says whether the slot holds a candidate (j < kSlots). kWarpAggregated: a warp's
// candidates of one digit add their count in one atomic (__match_any_sync), for rows long enough that most of them
// share the first pass's digit (the counts, so the result, are the same either way).
template <int kThreads, int kSlots, bool kWarpAggregated = false, class KeyAt>
__device__ uint32_t radix_select(KeyAt key_at, uint32_t rank, uint32_t* bins, uint32_t* shared_pick) {
  uint32_t prefix = 0, mask = 0;
  for (int shift = 32 - kRadixBits; shift >= 0; shift -= kRadixBits) {
    for (int b = threadIdx.x; b < kBins; b += kThreads) bins[b] = 0;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kSlots; ++j) {
      uint32_t key;
      const bool counted = key_at(j, key) && (key & mask) == prefix;
      const uint32_t digit = (key >> shift) & (kBins - 1);
      if constexpr (kWarpAggregated) {
        const uint32_t peers = __match_any_sync(0xFFFFFFFFu, counted ? digit : uint32_t(kBins));
        if (counted && (threadIdx.x % 32) == uint32_t(__ffs(peers) - 1)) atomicAdd(&bins[digit], __popc(peers));
      } else if (counted) {
        atomicAdd(&bins[digit], 1u);
      }
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

}  // namespace music3::ops::sampler_block
