// lm_sample on CUDA: one block of 512 threads runs lm_ops.h's rule with sampler_block.cuh's pieces and the CPU
// provider's scalar functions (sampler_algo.h, sampler_math.h), so both write the same column, guided logits,
// probabilities and count from the same inputs. K <= 16,896: thread t holds columns t + 512 j (j < 32, the
// tree's slots [0, 16384)) and the column 16384 + t, the LM's K = 16,385 in one block, so the AR loop reads back
// 8 bytes instead of both rows of logits and samples without waiting on the host.
//   - the conditional row's threshold: a radix select of the cfg_top_k-th largest raw conditional logit over
//     order_key_nan_top (NaN above every number, torch.topk's order), read back as a float; a column is dropped
//     where c < that float (no column when it is NaN, as upstream's comparison with a NaN threshold);
//   - the top_k threshold as in cfg_topk_sample: keep_i <=> #{j : g_j > g_i} < top_k <=> key(g_i) >= the
//     top_k-th largest key (g is NaN-free after nan_to_num, and -0 shares +0's key);
//   - the max and the argmax are order-free (max of finite values; argmax under draw_beats, a total order), the
//     non-finite count an integer sum;
//   - both tree sums perform exactly sampler_algo.h's additions over tree_size(K) slots: where that is 32,768 its
//     first level adds slot 16384 + t onto slot t (every other slot at and above 16,384 is an absent +0, and
//     x + +0 = x for the weights, all >= +0), then block_tree_sum over the slots below 16,384;
//   - a kept column's weight is recomputed from g wherever it is needed (the same operations give the same bits),
//     so a thread holds g and one array of weights (about 70 registers of the 128 that 512 threads allow);
//   - E: the recorded draw of the column, or exp1_draw at its full-vocabulary id, formed only for the columns of
//     positive p (a 16,385-column row of Philox draws is ~0.2 ms of one multiprocessor), the whole row only when
//     none of those scores above +0 (the CPU provider's rule, which op_lm_sample holds to the dense one);
//   - the radix selects aggregate a warp's counts of one digit into one atomic (most of a row shares the first
//     pass's digit).
// Launched under PDL (pdl.cuh): pdl_wait() before any read (the logits are the kernel's predecessor's output).
#include <algorithm>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/cuda/sampler_block.cuh"
#include "engine/ops/lm_ops.h"
#include "engine/ops/sampler_algo.h"

namespace music3::ops {
namespace {

using namespace sampler_block;

constexpr int kThreads = 512;
constexpr int kSlots = 32;                                   // columns t + kThreads j: the tree's [0, kTreeMain)
constexpr uint32_t kTreeMain = uint32_t(kThreads) * kSlots;  // 16,384
constexpr uint32_t kMaxColumns = kTreeMain + kThreads;       // + column kTreeMain + t per thread

struct GeneratedDraws {
  uint64_t seed, iteration;
  uint32_t step;
  int32_t first_id, next_id;
};

// The column of this thread's slot j (j == kSlots: the column above the tree's main slots).
__device__ __forceinline__ uint32_t column_of(int j) {
  return j < kSlots ? threadIdx.x + uint32_t(j) * kThreads : kTreeMain + threadIdx.x;
}

__device__ __forceinline__ float nan_to_num(float g) {
  if (g != g) return -1e9f;
  if (g == __uint_as_float(0x7F800000u)) return 1e9f;
  if (g == __uint_as_float(0xFF800000u)) return -1e9f;
  return g;
}

__global__ void __launch_bounds__(kThreads)
    lm_sample_kernel(const bf16* logits, uint32_t K, const float* recorded, GeneratedDraws gen, float* guided_out,
                     float* probs_out, int32_t* column_out, uint32_t* nonfinite, float cfg_scale, uint32_t cfg_rank,
                     uint32_t rank) {
  using namespace sampler;
  __shared__ SamplerShared<kThreads> sh;
  pdl_wait();
  pdl_trigger();

  // The conditional row's cfg_rank-th largest raw logit.
  const auto cond_key = [&](int j, uint32_t& key) {
    const uint32_t i = column_of(j);
    if (i >= K) return false;
    key = order_key_nan_top(to_f32(logits[i]));
    return true;
  };
  const float cond_threshold =
      key_value(radix_select<kThreads, kSlots + 1, true>(cond_key, cfg_rank, sh.bins, sh.pick));

  // The guided logit of column i after the pre-filter (what guided_out holds), from the logits.
  const auto guided_at = [&](uint32_t i) {
    const float c = to_f32(logits[i]), u = to_f32(logits[K + i]);
    const float v = u + (c - u) * cfg_scale;
    return c < cond_threshold ? __uint_as_float(0xFF800000u) : v;  // -inf
  };
  uint32_t bad = 0;
  float local_max = __uint_as_float(0xFF800000u);  // -inf: finite values below -3e38 are left as they are
  float g[kSlots + 1];
#pragma unroll
  for (int j = 0; j <= kSlots; ++j) {
    const uint32_t i = column_of(j);
    g[j] = 0.0f;
    if (i < K) {
      bad += !is_finite_f32(to_f32(logits[i])) + !is_finite_f32(to_f32(logits[K + i]));
      const float v = guided_at(i);
      if (guided_out) guided_out[i] = v;
      g[j] = nan_to_num(v);
      local_max = fmaxf(local_max, g[j]);
    }
  }
  bad = block_reduce(bad, 0u, sh.scratch_u, SumOp{});
  const float max_g = block_reduce(local_max, __uint_as_float(0xFF800000u), sh.scratch_f, MaxOp{});
  const auto guided_key = [&](int j, uint32_t& key) {
    key = order_key(g[j]);
    return column_of(j) < K;
  };
  const uint32_t threshold = radix_select<kThreads, kSlots + 1, true>(guided_key, rank, sh.bins, sh.pick);
  const auto weight_of = [&](float gv) { return kept_weight(gv, max_g, order_key(gv) >= threshold); };
  const auto weight = [&](int j) { return column_of(j) < K ? weight_of(g[j]) : 0.0f; };

  const uint32_t padded = tree_size(K);
  const uint32_t main_padded = min(padded, kTreeMain);
  float w[kSlots];
#pragma unroll
  for (int j = 0; j < kSlots; ++j) w[j] = weight(j);
  if (padded > kTreeMain) w[0] = w[0] + weight(kSlots);  // the tree's level kTreeMain: slot t + kTreeMain onto t
  const float sum = block_tree_sum<kThreads>(w, main_padded, sh.tree);

#pragma unroll
  for (int j = 0; j < kSlots; ++j) w[j] = normalized(weight(j), sum);
  if (padded > kTreeMain) w[0] = w[0] + normalized(weight(kSlots), sum);
  const float sum_p = block_tree_sum<kThreads>(w, main_padded, sh.tree);

  const auto draw = [&](uint32_t i) {
    const uint32_t id = i == 0 ? uint32_t(gen.first_id) : uint32_t(gen.next_id) + i - 1;
    return recorded ? recorded[i] : exp1_draw(gen.seed, gen.iteration, gen.step, id);
  };
  const auto prob = [&](int j) { return renormalized(normalized(weight(j), sum), sum_p); };
  // The columns of positive p first (about top_k of them: E is drawn for those alone); any other column scores +0
  // or -inf, so it can only win when no positive-p column scores above +0, and then the whole row decides.
  Candidate best{__uint_as_float(0xFF800000u), 0xFFFFFFFFu};  // -inf, beaten by any real column
#pragma unroll
  for (int j = 0; j <= kSlots; ++j) {
    const uint32_t i = column_of(j);
    if (i < K) {
      const float p = prob(j);
      if (probs_out) probs_out[i] = p;
      if (p > 0.0f) best = better(Candidate{draw_score(p, draw(i)), i}, best);
    }
  }
  best = block_argmax<kThreads>(best, sh.scratch_c);
  if (threadIdx.x == 0) sh.winner = best;
  __syncthreads();
  if (!(sh.winner.score > 0.0f)) {  // block-uniform
    best = Candidate{__uint_as_float(0xFF800000u), 0xFFFFFFFFu};
    for (uint32_t i = threadIdx.x; i < K; i += kThreads) {  // g recomputed: rare, and the registers stay free
      const float p = renormalized(normalized(weight_of(nan_to_num(guided_at(i))), sum), sum_p);
      best = better(Candidate{draw_score(p, draw(i)), i}, best);
    }
    best = block_argmax<kThreads>(best, sh.scratch_c);
  }
  if (threadIdx.x == 0) {
    column_out[0] = static_cast<int32_t>(best.index);
    *nonfinite += bad;
  }
}

}  // namespace

bool lm_sample_cuda_supports(const void* args) {
  return static_cast<const LmSampleArgs*>(args)->logits.shape[1] <= int64_t(kMaxColumns);
}

void lm_sample_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const LmSampleArgs*>(args);
  const auto K = static_cast<uint32_t>(p.logits.shape[1]);
  const GeneratedDraws gen{p.seed, p.iteration, p.draw_step, p.first_id, p.next_id};
  launch_pdl("lm_sample", lm_sample_kernel, dim3(1), dim3(kThreads), 0, stream_of(q), p.logits.as<const bf16>(), K,
             p.draws.data ? p.draws.as<const float>() : nullptr, gen,
             p.guided_out.data ? p.guided_out.as<float>() : nullptr,
             p.probs_out.data ? p.probs_out.as<float>() : nullptr, p.column_out.as<int32_t>(),
             p.nonfinite.as<uint32_t>(), p.cfg_scale, std::min(uint32_t(p.cfg_top_k), K), std::min(uint32_t(p.top_k), K));
}

}  // namespace music3::ops
