// Op entry points. Model code calls these with a Queue; the registry picks the
// provider for the queue's device type. Every tensor lives on the queue's device.
// Each entry point validates dtypes and shapes and throws std::invalid_argument
// naming the op, the argument and the expected vs actual description before any
// provider runs. Thread-safety: an entry point may be called from any thread; calls on
// one queue are ordered as issued, and the caller keeps one queue to one thread.
//
// Numerics (the contracts every provider must meet):
//  rms_norm        out = bf16( bf16(x * rsqrt(mean(f32(x)^2) + eps)) * w )   [diffusers RMSNorm]
//  matmul_bt       out[M,N] = bf16( sum_k f32(a[m,k]) * f32(b[n,k]) [+ f32(bias[n])] )  f32 accumulation;
//                  the optional bias [N] joins the f32 sum before the one rounding (torch's addmm)
//  attention_decode one query row per batch over cache positions [0, length): softmax in f32
//                  of scale * q.k, P rounded to bf16 before P.V (as flash kernels do), f32
//                  accumulation, out rounded to bf16. Heads are contiguous slices of width D.
//  silu_and_mul    out[m,i] = bf16( bf16(silu(g)) * u ), g = in[m, i], u = in[m, I + i] (gate first, the
//                  default); with gate_second, g = in[m, I + i] and u = in[m, i] (the gate is the second half)
//  add             out[M,N] = bf16(a + b); each of a, b is [M,N] or a [1,N] row broadcast
//  embedding_gather out[m,:] = table[ids[m] + offset, :]   (ids i32 on the device)
//  kv_append       k_cache[b, pos, :] = qkv[b, H:2H], v_cache[b, pos, :] = qkv[b, 2H:3H],
//                  q_out[b, :] = qkv[b, 0:H]
//  cfg_topk_sample the CFG top-k sampler (sampler_algo.h, sampler_math.h): guided = u + (c - u) * cfg (f32),
//                  nan_to_num, keep >= 50th largest (ties kept), softmax, argmax(p / E)
//  exp_draws       E[i] = counter-based Exp(1) draw keyed by (seed, frame, step, i); out [V], or [S, V] with row s
//                  keyed by step + s (the depth frame's S steps in one call)
// Fused ops, each bit-identical to the unfused ops it names on the same provider:
//  add_rms_norm    add(x, r, h_out) then rms_norm(h_out, w, eps, a_out); x, r are [M,N] or a
//                  [1,N] row broadcast; h_out may be the very view of x or r
//  matmul_bt_silu  matmul_bt(a, b, gate_up) then silu_and_mul(gate_up, out) for b [2I, K] (gate rows first):
//                  out [M, I]; gate_up [M, 2I] is the caller's scratch, which a fusing provider need not write.
//                  Only a fusing provider takes it (cuda.matmul_bt_silu.gemv); where none is enabled and able (the
//                  CPU has none), the entry point issues the two ops
//  add_rms_norm_matmul_bt  add_rms_norm(x, r, w, eps, h_out, a_out) then matmul_bt(a_out, b, out), or with gate_up
//                  given, matmul_bt_silu(a_out, b, gate_up, out); h_out must not overlap x or r (a fusing provider
//                  writes it while its other blocks still read them), a_out and gate_up are the caller's scratch, which
//                  a fusing provider need not write. Only a fusing provider would take it, and none does today
//                  (the prologue GEMV, measured slower, was removed): the entry point issues the ops. A shape
//                  refusal names the matmul's operand 'a' for a_out
//  kv_append_attention  T = rows(qkv) / B tokens at positions pos .. pos+T-1 (rows t*B .. t*B+B-1
//                  of qkv and out are token t, B = batch of the caches): for t = 0 .. T-1,
//                  kv_append at pos + t, then attention_decode of token t's query over
//                  length pos + t + 1 into out (no q_out is written)
#pragma once
#include <cstdint>

#include "engine/core/queue.h"
#include "engine/core/tensor.h"

namespace music3::ops {

struct RmsNormArgs {
  Tensor x, w, out;
  float eps;
};
struct MatmulBTArgs {
  Tensor a, b, out;
  Tensor bias;  // optional [N] (data == nullptr: none)
};
struct AttentionDecodeArgs {
  Tensor q, k_cache, v_cache, out;  // q,out [B, nH*D]; caches [B, Tmax, nH*D]
  int length;                       // positions 0..length-1 are attended
  int heads;
  float scale;
};
struct SiluAndMulArgs {
  Tensor gate_up, out;
  bool gate_second = false;  // the gate is the second half of each row
};
struct AddArgs {
  Tensor a, b, out;
};
struct EmbeddingGatherArgs {
  Tensor table, ids, out;
  int64_t offset;
};
struct KvAppendArgs {
  Tensor qkv, q_out, k_cache, v_cache;
  int pos;
};
struct CfgTopkSampleArgs {
  Tensor logits;       // bf16 [2, V]: row 0 conditional, row 1 unconditional
  Tensor exp_draws;    // f32 [V]
  Tensor guided_out;   // f32 [V] (written: the guided logits before filtering)
  Tensor code_out;     // i32 [1]
  Tensor nonfinite;    // i32 [1]: incremented by the number of non-finite logits
  float cfg_scale;
  int top_k;
};
struct AddRmsNormArgs {
  Tensor x, r, w, h_out, a_out;
  float eps;
};
struct KvAppendAttentionArgs {
  Tensor qkv, k_cache, v_cache, out;  // qkv [T*B, 3*nH*D], caches [B, Tmax, nH*D], out [T*B, nH*D]
  int pos;
  int heads;
  float scale;
};
struct MatmulBtSiluArgs {
  Tensor a, b, gate_up, out;  // a [M, K], b [2I, K], gate_up [M, 2I] (scratch), out [M, I]
};
struct AddRmsNormMatmulArgs {
  Tensor x, r, w, h_out, a_out;  // add_rms_norm's: x, r [M, K] (or a [1, K] row), w [K], h_out and a_out [M, K]
  float eps;
  Tensor b, out;                 // b [N, K], out [M, N]; with gate_up: b [2I, K], out [M, I]
  Tensor gate_up = {};           // optional [M, 2I] (data == nullptr: the plain matmul_bt)
};
struct ExpDrawsArgs {
  Tensor out;  // f32 [S, V] (a [V] call: S = 1); row s keyed by step + s
  uint64_t seed, frame;
  uint32_t step;
};

void rms_norm(const Queue& q, const Tensor& x, const Tensor& w, float eps, const Tensor& out);
void matmul_bt(const Queue& q, const Tensor& a, const Tensor& b, const Tensor& out, const Tensor& bias = {});
void attention_decode(const Queue& q, const Tensor& query, const Tensor& k_cache, const Tensor& v_cache,
                      int length, int heads, float scale, const Tensor& out);
void silu_and_mul(const Queue& q, const Tensor& gate_up, const Tensor& out, bool gate_second = false);
void add(const Queue& q, const Tensor& a, const Tensor& b, const Tensor& out);
void embedding_gather(const Queue& q, const Tensor& table, const Tensor& ids, int64_t offset, const Tensor& out);
void kv_append(const Queue& q, const Tensor& qkv, const Tensor& q_out, const Tensor& k_cache, const Tensor& v_cache,
               int pos);
void cfg_topk_sample(const Queue& q, const CfgTopkSampleArgs& args);
void exp_draws(const Queue& q, uint64_t seed, uint64_t frame, uint32_t step, const Tensor& out);
void matmul_bt_silu(const Queue& q, const Tensor& a, const Tensor& b, const Tensor& gate_up, const Tensor& out);
void add_rms_norm(const Queue& q, const Tensor& x, const Tensor& r, const Tensor& w, float eps, const Tensor& h_out,
                  const Tensor& a_out);
void add_rms_norm_matmul_bt(const Queue& q, const AddRmsNormMatmulArgs& args);
void kv_append_attention(const Queue& q, const Tensor& qkv, const Tensor& k_cache, const Tensor& v_cache, int pos,
                         int heads, float scale, const Tensor& out);

}  // namespace music3::ops
