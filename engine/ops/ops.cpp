// Op entry points: validate every argument against ops.h, then run the provider
// the provider table selects for the queue's device type and the call. Validation
// comes first, so a malformed call is refused by name on any device, and selection
// throws MissingProvider for a device with no provider.
#include "engine/ops/ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>

#include "engine/ops/op_checks.h"
#include "engine/ops/op_observer.h"
#include "engine/ops/registry.h"

namespace music3::ops {
namespace {

void run(OpId op, const Queue& q, const void* args) { dispatch(op, q, args); }

// `t` is [rows, cols] or a [1, cols] row broadcast over the rows; `of` names the tensor rows and cols come from.
void check_rows_or_broadcast(const char* op, const char* arg, const Tensor& t, int64_t rows, int64_t cols,
                             const std::string& of) {
  check_dim(op, arg, t, 1, cols, "N of " + of);
  if (t.shape[0] != rows && t.shape[0] != 1)
    fail_scalar(op, arg, "must have " + std::to_string(rows) + " rows or 1 (row broadcast), got " + t.describe());
}

// matmul_bt's arguments (ops.h), named as `op`'s.
void check_matmul_bt(const char* op, const Queue& q, const Tensor& a, const Tensor& b, const Tensor& out,
                     const Tensor& bias) {
  check_tensor(op, "a", a, DType::BF16, 2, q);
  check_tensor(op, "b", b, DType::BF16, 2, q);
  check_tensor(op, "out", out, DType::BF16, 2, q);
  check_dim(op, "b", b, 1, a.shape[1], "K of 'a'");
  check_dim(op, "out", out, 0, a.shape[0], "M of 'a'");
  check_dim(op, "out", out, 1, b.shape[0], "N of 'b'");
  check_disjoint(op, "out", out, "a", a);
  check_disjoint(op, "out", out, "b", b);
  if (bias.data) {
    check_tensor(op, "bias", bias, DType::BF16, 1, q);
    check_dim(op, "bias", bias, 0, b.shape[0], "N of 'b'");
    check_disjoint(op, "out", out, "bias", bias);
  }
}

// matmul_bt_silu's arguments (ops.h), named as `op`'s.
void check_matmul_bt_silu(const char* op, const Queue& q, const Tensor& a, const Tensor& b, const Tensor& gate_up,
                          const Tensor& out) {
  check_tensor(op, "a", a, DType::BF16, 2, q);
  check_tensor(op, "b", b, DType::BF16, 2, q);
  check_tensor(op, "gate_up", gate_up, DType::BF16, 2, q);
  check_tensor(op, "out", out, DType::BF16, 2, q);
  check_dim(op, "b", b, 1, a.shape[1], "K of 'a'");
  if (b.shape[0] % 2 != 0) fail_scalar(op, "b", "must have an even row count (gate rows | up rows), got " + b.describe());
  check_dim(op, "gate_up", gate_up, 0, a.shape[0], "M of 'a'");
  check_dim(op, "gate_up", gate_up, 1, b.shape[0], "N of 'b'");
  check_dim(op, "out", out, 0, a.shape[0], "M of 'a'");
  check_dim(op, "out", out, 1, b.shape[0] / 2, "half the rows of 'b'");
  for (const auto& [name, t] : {std::pair{"a", &a}, std::pair{"b", &b}}) {
    check_disjoint(op, "gate_up", gate_up, name, *t);
    check_disjoint(op, "out", out, name, *t);
  }
  check_disjoint(op, "out", out, "gate_up", gate_up);
}

// add_rms_norm's arguments (ops.h), named as `op`'s; h_out may be the very view of x or r only when
// `h_out_may_alias`.
void check_add_rms_norm(const char* op, const Queue& q, const Tensor& x, const Tensor& r, const Tensor& w, float eps,
                        const Tensor& h_out, const Tensor& a_out, bool h_out_may_alias) {
  check_tensor(op, "x", x, DType::BF16, 2, q);
  check_tensor(op, "r", r, DType::BF16, 2, q);
  check_tensor(op, "w", w, DType::BF16, 1, q);
  check_tensor(op, "h_out", h_out, DType::BF16, 2, q);
  check_tensor(op, "a_out", a_out, DType::BF16, 2, q);
  // h_out is [M,N]; each of x and r is [M,N] or a [1,N] row broadcast over the M rows.
  const int64_t rows = h_out.shape[0], cols = h_out.shape[1];
  check_rows_or_broadcast(op, "x", x, rows, cols, "'h_out'");
  check_rows_or_broadcast(op, "r", r, rows, cols, "'h_out'");
  check_dim(op, "w", w, 0, cols, "N of 'h_out'");
  check_dim(op, "a_out", a_out, 0, rows, "M of 'h_out'");
  check_dim(op, "a_out", a_out, 1, cols, "N of 'h_out'");
  check_disjoint(op, "h_out", h_out, "x", x, h_out_may_alias);
  check_disjoint(op, "h_out", h_out, "r", r, h_out_may_alias);
  check_disjoint(op, "h_out", h_out, "w", w);
  check_disjoint(op, "a_out", a_out, "x", x);
  check_disjoint(op, "a_out", a_out, "r", r);
  check_disjoint(op, "a_out", a_out, "w", w);
  check_disjoint(op, "a_out", a_out, "h_out", h_out);
  if (!(eps >= 0.0f) || !std::isfinite(eps)) fail_scalar(op, "eps", "must be finite and >= 0, got " + std::to_string(eps));
}

}  // namespace

void rms_norm(const Queue& q, const Tensor& x, const Tensor& w, float eps, const Tensor& out) {
  const char* op = "rms_norm";
  check_tensor(op, "x", x, DType::BF16, 2, q);
  check_tensor(op, "w", w, DType::BF16, 1, q);
  check_tensor(op, "out", out, DType::BF16, 2, q);
  check_dim(op, "w", w, 0, x.shape[1], "N of 'x'");
  check_dim(op, "out", out, 0, x.shape[0], "M of 'x'");
  check_dim(op, "out", out, 1, x.shape[1], "N of 'x'");
  check_disjoint(op, "out", out, "x", x, /*exact_alias_ok=*/true);
  check_disjoint(op, "out", out, "w", w);
  if (!(eps >= 0.0f) || !std::isfinite(eps)) fail_scalar(op, "eps", "must be finite and >= 0, got " + std::to_string(eps));
  RmsNormArgs a{x, w, out, eps};
  run(OpId::RmsNorm, q, &a);
}

void matmul_bt(const Queue& q, const Tensor& a, const Tensor& b, const Tensor& out, const Tensor& bias) {
  check_matmul_bt("matmul_bt", q, a, b, out, bias);
  MatmulBTArgs args{a, b, out, bias};
  run(OpId::MatmulBT, q, &args);
}

void attention_decode(const Queue& q, const Tensor& query, const Tensor& k_cache, const Tensor& v_cache, int length,
                      int heads, float scale, const Tensor& out) {
  const char* op = "attention_decode";
  check_tensor(op, "query", query, DType::BF16, 2, q);
  check_tensor(op, "k_cache", k_cache, DType::BF16, 3, q);
  check_tensor(op, "v_cache", v_cache, DType::BF16, 3, q);
  check_tensor(op, "out", out, DType::BF16, 2, q);
  const int64_t batch = query.shape[0], width = query.shape[1];
  check_dim(op, "k_cache", k_cache, 0, batch, "B of 'query'");
  check_dim(op, "k_cache", k_cache, 2, width, "nH*D of 'query'");
  check_dim(op, "v_cache", v_cache, 0, batch, "B of 'query'");
  check_dim(op, "v_cache", v_cache, 1, k_cache.shape[1], "Tmax of 'k_cache'");
  check_dim(op, "v_cache", v_cache, 2, width, "nH*D of 'query'");
  check_dim(op, "out", out, 0, batch, "B of 'query'");
  check_dim(op, "out", out, 1, width, "nH*D of 'query'");
  check_disjoint(op, "out", out, "query", query);
  check_disjoint(op, "out", out, "k_cache", k_cache);
  check_disjoint(op, "out", out, "v_cache", v_cache);
  if (heads < 1 || width % heads != 0)
    fail_scalar(op, "heads", "must be >= 1 and divide nH*D = " + std::to_string(width) + ", got " +
                                 std::to_string(heads));
  if (length < 1 || length > k_cache.shape[1])
    fail_scalar(op, "length", "must be in [1, Tmax = " + std::to_string(k_cache.shape[1]) + "], got " +
                                  std::to_string(length));
  if (!std::isfinite(scale)) fail_scalar(op, "scale", "must be finite, got " + std::to_string(scale));
  AttentionDecodeArgs a{query, k_cache, v_cache, out, length, heads, scale};
  run(OpId::AttentionDecode, q, &a);
}

void silu_and_mul(const Queue& q, const Tensor& gate_up, const Tensor& out, bool gate_second) {
  const char* op = "silu_and_mul";
  check_tensor(op, "gate_up", gate_up, DType::BF16, 2, q);
  check_tensor(op, "out", out, DType::BF16, 2, q);
  if (gate_up.shape[1] % 2 != 0)
    fail_scalar(op, "gate_up", "must have an even last dimension (gate | up), got " + gate_up.describe());
  check_dim(op, "out", out, 0, gate_up.shape[0], "M of 'gate_up'");
  check_dim(op, "out", out, 1, gate_up.shape[1] / 2, "half the width of 'gate_up'");
  check_disjoint(op, "out", out, "gate_up", gate_up);
  SiluAndMulArgs a{gate_up, out, gate_second};
  run(OpId::SiluAndMul, q, &a);
}

void matmul_bt_silu(const Queue& q, const Tensor& a, const Tensor& b, const Tensor& gate_up, const Tensor& out) {
  check_matmul_bt_silu("matmul_bt_silu", q, a, b, gate_up, out);
  const MatmulBtSiluArgs args{a, b, gate_up, out};
  if (registry().find(OpId::MatmulBtSilu, q.device, &args)) {
    run(OpId::MatmulBtSilu, q, &args);
    return;
  }
  matmul_bt(q, a, b, gate_up);  // no fusing provider enabled and able: the two ops, as they are issued alone
  silu_and_mul(q, gate_up, out);
}

void add(const Queue& q, const Tensor& a, const Tensor& b, const Tensor& out) {
  const char* op = "add";
  check_tensor(op, "a", a, DType::BF16, 2, q);
  check_tensor(op, "b", b, DType::BF16, 2, q);
  check_tensor(op, "out", out, DType::BF16, 2, q);
  // out is [M,N]; each of a and b is [M,N] or a [1,N] row broadcast over the M rows.
  const int64_t rows = out.shape[0], cols = out.shape[1];
  check_rows_or_broadcast(op, "a", a, rows, cols, "'out'");
  check_rows_or_broadcast(op, "b", b, rows, cols, "'out'");
  check_disjoint(op, "out", out, "a", a, /*exact_alias_ok=*/true);
  check_disjoint(op, "out", out, "b", b, /*exact_alias_ok=*/true);
  AddArgs args{a, b, out};
  run(OpId::Add, q, &args);
}

void embedding_gather(const Queue& q, const Tensor& table, const Tensor& ids, int64_t offset, const Tensor& out) {
  const char* op = "embedding_gather";
  check_tensor(op, "table", table, DType::BF16, 2, q);
  check_tensor(op, "ids", ids, DType::I32, 1, q);
  check_tensor(op, "out", out, DType::BF16, 2, q);
  check_dim(op, "out", out, 0, ids.shape[0], "M of 'ids'");
  check_dim(op, "out", out, 1, table.shape[1], "C of 'table'");
  check_disjoint(op, "out", out, "table", table);
  check_disjoint(op, "out", out, "ids", ids);
  if (offset < 0 || offset >= table.shape[0])
    fail_scalar(op, "offset", "must be in [0, rows of 'table' = " + std::to_string(table.shape[0]) + "), got " +
                                  std::to_string(offset));
  EmbeddingGatherArgs a{table, ids, out, offset};
  run(OpId::EmbeddingGather, q, &a);
}

void kv_append(const Queue& q, const Tensor& qkv, const Tensor& q_out, const Tensor& k_cache, const Tensor& v_cache,
               int pos) {
  const char* op = "kv_append";
  check_tensor(op, "qkv", qkv, DType::BF16, 2, q);
  check_tensor(op, "q_out", q_out, DType::BF16, 2, q);
  check_tensor(op, "k_cache", k_cache, DType::BF16, 3, q);
  check_tensor(op, "v_cache", v_cache, DType::BF16, 3, q);
  if (qkv.shape[1] % 3 != 0)
    fail_scalar(op, "qkv", "must have a last dimension divisible by 3 (q | k | v), got " + qkv.describe());
  const int64_t batch = qkv.shape[0], width = qkv.shape[1] / 3;
  check_dim(op, "q_out", q_out, 0, batch, "B of 'qkv'");
  check_dim(op, "q_out", q_out, 1, width, "a third of the width of 'qkv'");
  check_dim(op, "k_cache", k_cache, 0, batch, "B of 'qkv'");
  check_dim(op, "k_cache", k_cache, 2, width, "a third of the width of 'qkv'");
  check_dim(op, "v_cache", v_cache, 0, batch, "B of 'qkv'");
  check_dim(op, "v_cache", v_cache, 1, k_cache.shape[1], "Tmax of 'k_cache'");
  check_dim(op, "v_cache", v_cache, 2, width, "a third of the width of 'qkv'");
  check_disjoint(op, "q_out", q_out, "qkv", qkv);
  check_disjoint(op, "k_cache", k_cache, "qkv", qkv);
  check_disjoint(op, "v_cache", v_cache, "qkv", qkv);
  check_disjoint(op, "k_cache", k_cache, "v_cache", v_cache);
  check_disjoint(op, "q_out", q_out, "k_cache", k_cache);
  check_disjoint(op, "q_out", q_out, "v_cache", v_cache);
  if (pos < 0 || pos >= k_cache.shape[1])
    fail_scalar(op, "pos", "must be in [0, Tmax = " + std::to_string(k_cache.shape[1]) + "), got " +
                               std::to_string(pos));
  KvAppendArgs a{qkv, q_out, k_cache, v_cache, pos};
  run(OpId::KvAppend, q, &a);
}

void cfg_topk_sample(const Queue& q, const CfgTopkSampleArgs& args) {
  const char* op = "cfg_topk_sample";
  check_tensor(op, "logits", args.logits, DType::BF16, 2, q);
  check_tensor(op, "exp_draws", args.exp_draws, DType::F32, 1, q);
  check_tensor(op, "guided_out", args.guided_out, DType::F32, 1, q);
  check_tensor(op, "code_out", args.code_out, DType::I32, 1, q);
  check_tensor(op, "nonfinite", args.nonfinite, DType::I32, 1, q);
  const int64_t vocab = args.logits.shape[1];
  check_dim(op, "logits", args.logits, 0, 2, "row 0 conditional, row 1 unconditional");
  check_dim(op, "exp_draws", args.exp_draws, 0, vocab, "V of 'logits'");
  check_dim(op, "guided_out", args.guided_out, 0, vocab, "V of 'logits'");
  check_dim(op, "code_out", args.code_out, 0, 1, "one sampled code");
  check_dim(op, "nonfinite", args.nonfinite, 0, 1, "one counter");
  const std::pair<const char*, const Tensor*> all[] = {{"logits", &args.logits},         {"exp_draws", &args.exp_draws},
                                                       {"guided_out", &args.guided_out}, {"code_out", &args.code_out},
                                                       {"nonfinite", &args.nonfinite}};
  for (size_t i = 0; i < std::size(all); ++i)
    for (size_t j = i + 1; j < std::size(all); ++j)
      check_disjoint(op, all[j].first, *all[j].second, all[i].first, *all[i].second);
  if (vocab > INT32_MAX) fail_scalar(op, "logits", "has more than 2^31-1 columns: " + args.logits.describe());
  if (args.top_k < 1) fail_scalar(op, "top_k", "must be >= 1, got " + std::to_string(args.top_k));
  if (!std::isfinite(args.cfg_scale))
    fail_scalar(op, "cfg_scale", "must be finite, got " + std::to_string(args.cfg_scale));
  run(OpId::CfgTopkSample, q, &args);
}

void exp_draws(const Queue& q, uint64_t seed, uint64_t frame, uint32_t step, const Tensor& out) {
  const char* op = "exp_draws";
  check_tensor(op, "out", out, DType::F32, out.shape.rank == 2 ? 2 : 1, q);
  const int64_t rows = out.shape.rank == 2 ? out.shape[0] : 1, width = out.shape[out.shape.rank - 1];
  if (width > int64_t{UINT32_MAX} + 1)
    fail_scalar(op, "out", "has rows of more than 2^32 draws (the draw index is 32-bit): " + out.describe());
  if (uint64_t{step} + uint64_t(rows - 1) > UINT32_MAX)
    fail_scalar(op, "step", "+ the rows of 'out' passes 2^32 - 1 (the step is 32-bit): step " + std::to_string(step) +
                                ", out " + out.describe());
  ExpDrawsArgs a{out, seed, frame, step};
  run(OpId::ExpDraws, q, &a);
}

void add_rms_norm(const Queue& q, const Tensor& x, const Tensor& r, const Tensor& w, float eps, const Tensor& h_out,
                  const Tensor& a_out) {
  check_add_rms_norm("add_rms_norm", q, x, r, w, eps, h_out, a_out, /*h_out_may_alias=*/true);
  AddRmsNormArgs a{x, r, w, h_out, a_out, eps};
  run(OpId::AddRmsNorm, q, &a);
}

void add_rms_norm_matmul_bt(const Queue& q, const AddRmsNormMatmulArgs& p) {
  const char* op = "add_rms_norm_matmul_bt";
  // Out of place: a fusing provider writes h_out while other blocks still read x and r.
  check_add_rms_norm(op, q, p.x, p.r, p.w, p.eps, p.h_out, p.a_out, /*h_out_may_alias=*/false);
  if (p.gate_up.data)
    check_matmul_bt_silu(op, q, p.a_out, p.b, p.gate_up, p.out);
  else
    check_matmul_bt(op, q, p.a_out, p.b, p.out, {});
  for (const auto& [name, t] : {std::pair{"x", &p.x}, std::pair{"r", &p.r}, std::pair{"w", &p.w},
                                std::pair{"h_out", &p.h_out}}) {
    check_disjoint(op, "out", p.out, name, *t);
    if (p.gate_up.data) check_disjoint(op, "gate_up", p.gate_up, name, *t);
  }
  check_disjoint(op, "h_out", p.h_out, "b", p.b);
  if (registry().find(OpId::AddRmsNormMatmulBt, q.device, &p)) {
    run(OpId::AddRmsNormMatmulBt, q, &p);
    return;
  }
  add_rms_norm(q, p.x, p.r, p.w, p.eps, p.h_out, p.a_out);  // no fusing provider enabled and able: the two ops
  if (p.gate_up.data)
    matmul_bt_silu(q, p.a_out, p.b, p.gate_up, p.out);
  else
    matmul_bt(q, p.a_out, p.b, p.out);
}

void kv_append_attention(const Queue& q, const Tensor& qkv, const Tensor& k_cache, const Tensor& v_cache, int pos,
                         int heads, float scale, const Tensor& out) {
  const char* op = "kv_append_attention";
  check_tensor(op, "qkv", qkv, DType::BF16, 2, q);
  check_tensor(op, "k_cache", k_cache, DType::BF16, 3, q);
  check_tensor(op, "v_cache", v_cache, DType::BF16, 3, q);
  check_tensor(op, "out", out, DType::BF16, 2, q);
  if (qkv.shape[1] % 3 != 0)
    fail_scalar(op, "qkv", "must have a last dimension divisible by 3 (q | k | v), got " + qkv.describe());
  const int64_t batch = k_cache.shape[0], width = qkv.shape[1] / 3, tmax = k_cache.shape[1];
  if (qkv.shape[0] % batch != 0)
    fail_scalar(op, "qkv", "must have a multiple of B = " + std::to_string(batch) + " rows (B of 'k_cache'), got " +
                               qkv.describe());
  const int64_t tokens = qkv.shape[0] / batch;
  check_dim(op, "k_cache", k_cache, 2, width, "a third of the width of 'qkv'");
  check_dim(op, "v_cache", v_cache, 0, batch, "B of 'k_cache'");
  check_dim(op, "v_cache", v_cache, 1, tmax, "Tmax of 'k_cache'");
  check_dim(op, "v_cache", v_cache, 2, width, "a third of the width of 'qkv'");
  check_dim(op, "out", out, 0, qkv.shape[0], "rows of 'qkv'");
  check_dim(op, "out", out, 1, width, "a third of the width of 'qkv'");
  check_disjoint(op, "k_cache", k_cache, "qkv", qkv);
  check_disjoint(op, "v_cache", v_cache, "qkv", qkv);
  check_disjoint(op, "k_cache", k_cache, "v_cache", v_cache);
  check_disjoint(op, "out", out, "qkv", qkv);
  check_disjoint(op, "out", out, "k_cache", k_cache);
  check_disjoint(op, "out", out, "v_cache", v_cache);
  if (heads < 1 || width % heads != 0)
    fail_scalar(op, "heads", "must be >= 1 and divide nH*D = " + std::to_string(width) + ", got " +
                                 std::to_string(heads));
  if (pos < 0 || pos + tokens > tmax)
    fail_scalar(op, "pos", "must be in [0, Tmax - T] = [0, " + std::to_string(tmax - tokens) + "] for T = " +
                               std::to_string(tokens) + " tokens, got " + std::to_string(pos));
  if (!std::isfinite(scale)) fail_scalar(op, "scale", "must be finite, got " + std::to_string(scale));
  KvAppendAttentionArgs a{qkv, k_cache, v_cache, out, pos, heads, scale};
  run(OpId::KvAppendAttention, q, &a);
}

}  // namespace music3::ops
