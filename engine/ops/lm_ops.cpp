// LM op entry points: validate against lm_ops.h, then run the registry's provider.
#include "engine/ops/lm_ops.h"

#include <cmath>
#include <string>
#include <vector>

#include "engine/ops/op_checks.h"
#include "engine/ops/op_observer.h"
#include "engine/ops/registry.h"

namespace music3::ops {
namespace {

void run(OpId op, const Queue& q, const void* args) { dispatch(op, q, args); }

void check_pos(const char* op, const Tensor& pos, const Queue& q) {
  check_tensor(op, "pos", pos, DType::I32, 1, q);
  check_dim(op, "pos", pos, 0, 1, "one position");
}

// The checks of a norm over heads [first, first + count) of x with weight w, named w_name and count_name.
void check_head_norm(const char* op, const char* w_name, const char* count_name, const Tensor& x, const Tensor& w,
                     int first, int count, float eps, const Queue& q) {
  check_tensor(op, "x", x, DType::BF16, 2, q);
  check_tensor(op, w_name, w, DType::BF16, 1, q);
  check_disjoint(op, "x", x, w_name, w);
  const int64_t dim = w.shape[0], width = x.shape[1];
  if (width % dim != 0)
    fail_scalar(op, w_name, "must have a width D dividing the row width " + std::to_string(width) + ", got " +
                                w.describe());
  if (first < 0 || count < 1 || int64_t(first) + count > width / dim)
    fail_scalar(op, count_name, "heads [" + std::to_string(first) + ", " + std::to_string(first + count) +
                                    ") must lie within the " + std::to_string(width / dim) + " heads of a row");
  if (!(eps >= 0.0f) || !std::isfinite(eps)) fail_scalar(op, "eps", "must be finite and >= 0, got " + std::to_string(eps));
}

// The checks of the rotation of the rows of x (heads of width head_dim, already checked against x) by the
// tables cos/sin at the positions from pos.
void check_rope(const char* op, const Tensor& x, const Tensor& cos, const Tensor& sin, const Tensor& pos, int batch,
                int64_t head_dim, const Queue& q) {
  check_tensor(op, "cos", cos, DType::BF16, 2, q);
  check_tensor(op, "sin", sin, DType::BF16, 2, q);
  check_pos(op, pos, q);
  check_dim(op, "sin", sin, 0, cos.shape[0], "P of 'cos'");
  check_dim(op, "sin", sin, 1, cos.shape[1], "R of 'cos'");
  const int64_t rot = cos.shape[1];
  if (rot % 2 != 0) fail_scalar(op, "cos", "must have an even width R (the half split), got " + cos.describe());
  if (rot > head_dim)
    fail_scalar(op, "cos", "must be no wider than the head width " + std::to_string(head_dim) + ", got " +
                               cos.describe());
  if (batch < 1 || x.shape[0] % batch != 0)
    fail_scalar(op, "batch", "must be >= 1 and divide the rows of 'x' (" + std::to_string(x.shape[0]) + "), got " +
                                 std::to_string(batch));
  for (auto [name, t] : {std::pair{"cos", &cos}, std::pair{"sin", &sin}, std::pair{"pos", &pos}})
    check_disjoint(op, "x", x, name, *t);
}

}  // namespace

void qk_norm_rope(const Queue& q, const QkNormRopeArgs& a) {
  const char* op = "qk_norm_rope";
  check_head_norm(op, "q_norm", "heads", a.x, a.q_norm, 0, a.heads, a.eps, q);
  check_tensor(op, "k_norm", a.k_norm, DType::BF16, 1, q);
  check_dim(op, "k_norm", a.k_norm, 0, a.q_norm.shape[0], "D of 'q_norm'");
  check_head_norm(op, "k_norm", "kv_heads", a.x, a.k_norm, a.heads, a.kv_heads, a.eps, q);
  check_rope(op, a.x, a.cos, a.sin, a.pos, a.batch, a.q_norm.shape[0], q);
  run(OpId::QkNormRope, q, &a);
}

void gqa_attention(const Queue& q, const GqaAttentionArgs& a) {
  const char* op = "gqa_attention";
  check_tensor(op, "qkv", a.qkv, DType::BF16, 2, q);
  check_tensor(op, "k_cache", a.k_cache, DType::BF16, 3, q);
  check_tensor(op, "v_cache", a.v_cache, DType::BF16, 3, q);
  check_tensor(op, "out", a.out, DType::BF16, 2, q);
  check_pos(op, a.pos, q);
  if (a.heads < 1 || a.kv_heads < 1 || a.heads % a.kv_heads != 0)
    fail_scalar(op, "kv_heads", "must be >= 1 and divide heads = " + std::to_string(a.heads) + ", got " +
                                    std::to_string(a.kv_heads));
  const int64_t batch = a.k_cache.shape[0], kv_width = a.k_cache.shape[2];
  if (kv_width % a.kv_heads != 0)
    fail_scalar(op, "k_cache", "must have a width divisible by kv_heads, got " + a.k_cache.describe());
  const int64_t dim = kv_width / a.kv_heads;
  check_dim(op, "qkv", a.qkv, 1, (a.heads + 2 * int64_t(a.kv_heads)) * dim, "(heads + 2 kv_heads) * D");
  if (a.qkv.shape[0] % batch != 0)
    fail_scalar(op, "qkv", "must have a multiple of B = " + std::to_string(batch) + " rows, got " + a.qkv.describe());
  check_dim(op, "v_cache", a.v_cache, 0, batch, "B of 'k_cache'");
  check_dim(op, "v_cache", a.v_cache, 1, a.k_cache.shape[1], "Tmax of 'k_cache'");
  check_dim(op, "v_cache", a.v_cache, 2, kv_width, "width of 'k_cache'");
  check_dim(op, "out", a.out, 0, a.qkv.shape[0], "rows of 'qkv'");
  check_dim(op, "out", a.out, 1, a.heads * dim, "heads * D");
  check_tensor(op, "scratch", a.scratch, DType::F32, 3, q);
  check_dim(op, "scratch", a.scratch, 0, batch * a.heads, "B * heads");
  check_dim(op, "scratch", a.scratch, 1, gqa_chunks(a.k_cache.shape[1]), "gqa_chunks(Tmax)");
  check_dim(op, "scratch", a.scratch, 2, dim + 2, "D + 2");
  if (a.qkv.shape[0] / batch > a.k_cache.shape[1])
    fail_scalar(op, "qkv", "holds more tokens than the cache has positions: " + a.qkv.describe());
  const std::pair<const char*, const Tensor*> all[] = {
      {"qkv", &a.qkv}, {"k_cache", &a.k_cache}, {"v_cache", &a.v_cache}, {"pos", &a.pos}, {"out", &a.out},
      {"scratch", &a.scratch}};
  for (size_t i = 0; i < std::size(all); ++i)
    for (size_t j = i + 1; j < std::size(all); ++j)
      check_disjoint(op, all[j].first, *all[j].second, all[i].first, *all[i].second);
  if (!std::isfinite(a.scale)) fail_scalar(op, "scale", "must be finite, got " + std::to_string(a.scale));
  run(OpId::GqaAttention, q, &a);
}

void lm_sample(const Queue& q, const LmSampleArgs& a) {
  const char* op = "lm_sample";
  check_tensor(op, "logits", a.logits, DType::BF16, 2, q);
  check_dim(op, "logits", a.logits, 0, 2, "row 0 conditional, row 1 unconditional");
  const int64_t K = a.logits.shape[1];
  if (K < 1 || K > INT32_MAX)
    fail_scalar(op, "logits", "must have 1 .. 2^31-1 columns, got " + a.logits.describe());
  check_tensor(op, "column_out", a.column_out, DType::I32, 1, q);
  check_dim(op, "column_out", a.column_out, 0, 1, "one sampled column");
  check_tensor(op, "nonfinite", a.nonfinite, DType::I32, 1, q);
  check_dim(op, "nonfinite", a.nonfinite, 0, 1, "one counter");
  std::vector<std::pair<const char*, const Tensor*>> all = {
      {"logits", &a.logits}, {"column_out", &a.column_out}, {"nonfinite", &a.nonfinite}};
  for (auto [name, t] : {std::pair{"draws", &a.draws}, std::pair{"guided_out", &a.guided_out},
                         std::pair{"probs_out", &a.probs_out}}) {
    if (!t->data) continue;  // optional
    check_tensor(op, name, *t, DType::F32, 1, q);
    check_dim(op, name, *t, 0, K, "K of 'logits'");
    all.push_back({name, t});
  }
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = i + 1; j < all.size(); ++j)
      check_disjoint(op, all[j].first, *all[j].second, all[i].first, *all[i].second);
  if (a.cfg_top_k < 1) fail_scalar(op, "cfg_top_k", "must be >= 1, got " + std::to_string(a.cfg_top_k));
  if (a.top_k < 1) fail_scalar(op, "top_k", "must be >= 1, got " + std::to_string(a.top_k));
  if (!std::isfinite(a.cfg_scale)) fail_scalar(op, "cfg_scale", "must be finite, got " + std::to_string(a.cfg_scale));
  if (!a.draws.data && (a.first_id < 0 || a.next_id < 0 || int64_t(a.next_id) + K - 2 > INT32_MAX))
    fail_scalar(op, "next_id", "the generated draws' ids must be non-negative 32-bit ids, got first_id " +
                                   std::to_string(a.first_id) + ", next_id " + std::to_string(a.next_id));
  run(OpId::LmSample, q, &a);
}

void feedback_embedding(const Queue& q, const FeedbackEmbeddingArgs& a) {
  const char* op = "feedback_embedding";
  check_tensor(op, "semantic", a.semantic, DType::BF16, 2, q);
  check_tensor(op, "column", a.column, DType::I32, 1, q);
  check_dim(op, "column", a.column, 0, 1, "one column");
  check_tensor(op, "audio", a.audio, DType::BF16, 2, q);
  check_tensor(op, "codes", a.codes, DType::I32, 1, q);
  check_tensor(op, "out", a.out, DType::BF16, 2, q);
  const int64_t H = a.semantic.shape[1], S = a.codes.shape[0];
  check_dim(op, "audio", a.audio, 1, H, "H of 'semantic'");
  check_dim(op, "out", a.out, 0, 2, "two rows (conditional, CFG)");
  check_dim(op, "out", a.out, 1, H, "H of 'semantic'");
  if (a.audio_vocab < 1 || S < 1 || a.audio.shape[0] != S * a.audio_vocab)
    fail_scalar(op, "audio_vocab", "must be >= 1 with 'audio' holding codes x audio_vocab = " + std::to_string(S) +
                                       " x " + std::to_string(a.audio_vocab) + " rows, got " + a.audio.describe());
  if (!std::isfinite(a.scale)) fail_scalar(op, "scale", "must be finite, got " + std::to_string(a.scale));
  for (auto [name, t] : {std::pair{"semantic", &a.semantic}, std::pair{"column", &a.column},
                         std::pair{"audio", &a.audio}, std::pair{"codes", &a.codes}})
    check_disjoint(op, "out", a.out, name, *t);
  run(OpId::FeedbackEmbedding, q, &a);
}

}  // namespace music3::ops
