// Transformer op entry points: validate against transformer_ops.h, then run the registry's provider.
#include "engine/ops/transformer_ops.h"

#include <cmath>
#include <string>

#include "engine/ops/op_checks.h"
#include "engine/ops/op_observer.h"
#include "engine/ops/registry.h"

namespace music3::ops {
namespace {

void run(OpId op, const Queue& q, const void* args) { dispatch(op, q, args); }

void check_norm(const char* op, const Tensor& x, const Tensor& w, const Tensor& b, float eps, const Tensor& out,
                const Queue& q) {
  check_tensor(op, "x", x, DType::BF16, 2, q);
  check_tensor(op, "w", w, DType::BF16, 1, q);
  check_tensor(op, "b", b, DType::BF16, 1, q);
  check_tensor(op, "a_out", out, DType::BF16, 2, q);
  check_dim(op, "w", w, 0, x.shape[1], "N of 'x'");
  check_dim(op, "b", b, 0, x.shape[1], "N of 'x'");
  check_dim(op, "a_out", out, 0, x.shape[0], "M of 'x'");
  check_dim(op, "a_out", out, 1, x.shape[1], "N of 'x'");
  check_disjoint(op, "a_out", out, "x", x);
  check_disjoint(op, "a_out", out, "w", w);
  check_disjoint(op, "a_out", out, "b", b);
  if (!(eps >= 0.0f) || !std::isfinite(eps)) fail_scalar(op, "eps", "must be finite and >= 0, got " + std::to_string(eps));
}

// The rotary tables of self_attention: bf16 [P, R], R even and <= D, P >= the tokens S.
void check_rotary(const char* op, const Tensor& qkv, int heads, int batch, const Tensor& cos, const Tensor& sin,
                  const Queue& q) {
  check_tensor(op, "cos", cos, DType::BF16, 2, q);
  check_tensor(op, "sin", sin, DType::BF16, 2, q);
  check_dim(op, "sin", sin, 0, cos.shape[0], "P of 'cos'");
  check_dim(op, "sin", sin, 1, cos.shape[1], "R of 'cos'");
  const int64_t dim = qkv.shape[1] / 3 / heads, tokens = qkv.shape[0] / batch;
  if (cos.shape[1] % 2 != 0 || cos.shape[1] > dim)
    fail_scalar(op, "cos", "must have an even rotary width R <= the head width " + std::to_string(dim) + ", got " +
                               cos.describe());
  if (cos.shape[0] < tokens)
    fail_scalar(op, "cos", "must hold a row for each of the " + std::to_string(tokens) + " token positions, got " +
                               cos.describe());
}

}  // namespace

void layer_norm(const Queue& q, const Tensor& x, const Tensor& w, const Tensor& b, float eps, const Tensor& out) {
  check_norm("layer_norm", x, w, b, eps, out, q);
  LayerNormArgs a{x, Tensor{}, w, b, Tensor{}, out, eps};
  run(OpId::LayerNorm, q, &a);
}

void add_layer_norm(const Queue& q, const Tensor& x, const Tensor& r, const Tensor& w, const Tensor& b, float eps,
                    const Tensor& h_out, const Tensor& a_out) {
  const char* op = "add_layer_norm";
  check_norm(op, x, w, b, eps, a_out, q);
  check_tensor(op, "r", r, DType::BF16, 2, q);
  check_tensor(op, "h_out", h_out, DType::BF16, 2, q);
  for (int d = 0; d < 2; ++d) {
    check_dim(op, "r", r, d, x.shape[d], "the shape of 'x'");
    check_dim(op, "h_out", h_out, d, x.shape[d], "the shape of 'x'");
  }
  check_disjoint(op, "h_out", h_out, "x", x, /*exact_alias_ok=*/true);
  check_disjoint(op, "h_out", h_out, "r", r);
  check_disjoint(op, "a_out", a_out, "r", r);
  check_disjoint(op, "a_out", a_out, "h_out", h_out);
  LayerNormArgs a{x, r, w, b, h_out, a_out, eps};
  run(OpId::LayerNorm, q, &a);
}

void self_attention(const Queue& q, const Tensor& qkv, int heads, int batch, float scale, const Tensor& out,
                    const Tensor& cos, const Tensor& sin, QkvAfter qkv_after) {
  const char* op = "self_attention";
  check_tensor(op, "qkv", qkv, DType::BF16, 2, q);
  check_tensor(op, "out", out, DType::BF16, 2, q);
  if (heads < 1 || qkv.shape[1] % (3 * int64_t(heads)) != 0)
    fail_scalar(op, "heads", "must be >= 1 with 3 * heads dividing the width of 'qkv' " + qkv.describe() + ", got " +
                                 std::to_string(heads));
  if (batch < 1 || qkv.shape[0] % batch != 0)
    fail_scalar(op, "batch", "must be >= 1 and divide the rows of 'qkv' " + qkv.describe() + ", got " +
                                 std::to_string(batch));
  check_dim(op, "out", out, 0, qkv.shape[0], "rows of 'qkv'");
  check_dim(op, "out", out, 1, qkv.shape[1] / 3, "heads * D");
  check_disjoint(op, "out", out, "qkv", qkv);
  if (!std::isfinite(scale)) fail_scalar(op, "scale", "must be finite, got " + std::to_string(scale));
  if (cos.data || sin.data) {
    check_rotary(op, qkv, heads, batch, cos, sin, q);
    check_disjoint(op, "out", out, "cos", cos);
    check_disjoint(op, "out", out, "sin", sin);
  }
  SelfAttentionArgs a{qkv, out, heads, batch, scale, cos, sin, qkv_after};
  run(OpId::SelfAttention, q, &a);
}

void place_rows(const Queue& q, const Tensor& src, const Tensor& out, int64_t row0, int64_t row_step, int64_t col0) {
  const char* op = "place_rows";
  check_tensor(op, "src", src, DType::BF16, 2, q);
  check_tensor(op, "out", out, DType::BF16, 2, q);
  check_disjoint(op, "out", out, "src", src);
  if (row0 < 0 || row_step < 1 || row0 + (src.shape[0] - 1) * row_step >= out.shape[0])
    fail_scalar(op, "row0", "rows " + std::to_string(row0) + " + i * " + std::to_string(row_step) + " of 'src' " +
                                src.describe() + " must lie within 'out' " + out.describe());
  if (col0 < 0 || col0 + src.shape[1] > out.shape[1])
    fail_scalar(op, "col0", "columns " + std::to_string(col0) + " .. + " + std::to_string(src.shape[1]) +
                                " must lie within 'out' " + out.describe());
  PlaceRowsArgs a{src, out, row0, row_step, col0};
  run(OpId::PlaceRows, q, &a);
}

}  // namespace music3::ops
