// Vocoder op entry points: validate against vocoder_ops.h, then run the registry's provider.
#include "engine/ops/vocoder_ops.h"

#include <string>

#include "engine/ops/op_checks.h"
#include "engine/ops/ops.h"  // add: the residual epilogue when no provider fuses it
#include "engine/ops/op_observer.h"
#include "engine/ops/registry.h"

namespace music3::ops {
namespace {
void run(OpId op, const Queue& q, const void* args) { dispatch(op, q, args); }
}  // namespace

void conv1d(const Queue& q, const Conv1dArgs& a) {
  const char* op = "conv1d";
  check_tensor(op, "x", a.x, DType::BF16, 3, q);
  check_tensor(op, "w", a.w, DType::BF16, 3, q);
  check_tensor(op, "bias", a.bias, DType::BF16, 1, q);
  check_tensor(op, "xpad", a.xpad, DType::BF16, 3, q);
  check_tensor(op, "acc", a.acc, DType::F32, 3, q);
  check_tensor(op, "out", a.out, DType::BF16, 3, q);
  if (a.dilation < 1) fail_scalar(op, "dilation", "must be >= 1, got " + std::to_string(a.dilation));
  if (a.pad < 0) fail_scalar(op, "pad", "must be >= 0, got " + std::to_string(a.pad));
  const ConvWeightAxes axes = conv_weight_axes(a.layout);
  const ActAxes act = act_axes(a.act);
  const int64_t b = a.x.shape[0], cin = a.x.shape[act.channels], t = a.x.shape[act.time];
  const int64_t k = a.w.shape[axes.taps], cout = a.w.shape[axes.out];
  const int64_t t_out = t + 2 * a.pad - int64_t(a.dilation) * (k - 1);
  if (t_out < 1) fail_scalar(op, "pad", "leaves no output samples for " + std::to_string(t) + " input samples");
  check_dim(op, "w", a.w, axes.in, cin, "Cin of 'x'");
  check_dim(op, "bias", a.bias, 0, cout, "Cout of 'w'");
  check_dim(op, "xpad", a.xpad, 0, b, "B of 'x'");
  check_dim(op, "xpad", a.xpad, act.channels, cin, "Cin of 'x'");
  check_dim(op, "xpad", a.xpad, act.time, t + 2 * a.pad, "T + 2 pad");
  for (const auto* arg : {&a.acc, &a.out}) {
    const char* name = arg == &a.acc ? "acc" : "out";
    check_dim(op, name, *arg, 0, b, "B of 'x'");
    check_dim(op, name, *arg, act.channels, cout, "Cout of 'w'");
    check_dim(op, name, *arg, act.time, t_out, "T + 2 pad - dilation (K - 1)");
  }
  check_disjoint(op, "out", a.out, "x", a.x);
  check_disjoint(op, "out", a.out, "xpad", a.xpad);
  check_disjoint(op, "xpad", a.xpad, "x", a.x);
  check_disjoint(op, "acc", a.acc, "x", a.x);
  if (conv1d_is_plain(a)) return run(OpId::Conv1d, q, &a);
  check_tensor(op, "residual", a.residual, DType::BF16, 3, q);
  for (int d = 0; d < 3; ++d) check_dim(op, "residual", a.residual, d, a.out.shape[d], "the shape of 'out'");
  check_disjoint(op, "residual", a.residual, "out", a.out);
  if (registry().find(OpId::Conv1d, q.device, &a)) return run(OpId::Conv1d, q, &a);  // a provider fuses it
  Conv1dArgs plain = a;
  plain.residual = Tensor{};
  run(OpId::Conv1d, q, &plain);
  const auto flat = [](const Tensor& t) {  // [B * dim1, dim2]: either layout, the same elements
    return Tensor{t.data, t.dtype, Shape{t.shape[0] * t.shape[1], t.shape[2]}, t.device};
  };
  add(q, flat(a.out), flat(a.residual), flat(a.out));
}

const char* conv_weight_layout_name(ConvWeightLayout layout) {
  switch (layout) {
    case ConvWeightLayout::OutInTap: return "out_in_tap";
    case ConvWeightLayout::OutTapIn: return "out_tap_in";
    case ConvWeightLayout::TapMajor: break;
  }
  return "tap_major";
}

const char* act_layout_name(ActLayout act) {
  return act == ActLayout::ChannelsLast ? "channels_last" : "channels_first";
}

ConvWeightAxes conv_weight_axes(ConvWeightLayout layout) {
  switch (layout) {
    case ConvWeightLayout::OutInTap: return {2, 0, 1};
    case ConvWeightLayout::OutTapIn: return {1, 0, 2};
    case ConvWeightLayout::TapMajor: break;
  }
  return {0, 1, 2};
}

Shape conv_weight_shape(ConvWeightLayout layout, int64_t taps, int64_t cout, int64_t cin) {
  const ConvWeightAxes axes = conv_weight_axes(layout);
  int64_t dims[3] = {};
  dims[axes.taps] = taps, dims[axes.out] = cout, dims[axes.in] = cin;
  return Shape{dims[0], dims[1], dims[2]};
}

ConvWeightLayout preferred_conv1d_layout(const Queue& q) {
  const Provider* best = nullptr;
  ConvWeightLayout chosen = ConvWeightLayout::TapMajor;
  for (const ConvWeightLayout layout : kConvWeightLayouts) {
    Conv1dArgs probe{};
    probe.layout = layout;
    const Provider* p = registry().find(OpId::Conv1d, q.device, &probe);
    if (p && (!best || p->priority > best->priority)) best = p, chosen = layout;
  }
  if (!best) throw MissingProvider(OpId::Conv1d, q.device);
  return chosen;
}

void conv_transpose1d(const Queue& q, const ConvTranspose1dArgs& a) {
  const char* op = "conv_transpose1d";
  check_tensor(op, "x", a.x, DType::BF16, 3, q);
  check_tensor(op, "w", a.w, DType::BF16, 3, q);
  check_tensor(op, "bias", a.bias, DType::BF16, 1, q);
  check_tensor(op, "cols", a.cols, DType::BF16, 3, q);
  check_tensor(op, "out", a.out, DType::BF16, 3, q);
  if (a.stride < 1) fail_scalar(op, "stride", "must be >= 1, got " + std::to_string(a.stride));
  if (a.pad < 0) fail_scalar(op, "pad", "must be >= 0, got " + std::to_string(a.pad));
  const ActAxes act = act_axes(a.act);
  const int64_t b = a.x.shape[0], cin = a.x.shape[act.channels], l = a.x.shape[act.time];
  const int64_t cout = a.w.shape[1], k = a.w.shape[2];
  const int64_t l_out = (l - 1) * a.stride - 2 * int64_t(a.pad) + k;
  if (l_out < 1) fail_scalar(op, "pad", "leaves no output samples");
  check_dim(op, "w", a.w, 0, cin, "Cin of 'x'");
  check_dim(op, "bias", a.bias, 0, cout, "Cout of 'w'");
  check_dim(op, "cols", a.cols, 0, b, "B of 'x'");
  check_dim(op, "cols", a.cols, act.channels, cout * k, "Cout x K of 'w'");
  check_dim(op, "cols", a.cols, act.time, l, "L of 'x'");
  check_dim(op, "out", a.out, 0, b, "B of 'x'");
  check_dim(op, "out", a.out, act.channels, cout, "Cout of 'w'");
  check_dim(op, "out", a.out, act.time, l_out, "(L - 1) stride - 2 pad + K");
  check_disjoint(op, "out", a.out, "x", a.x);
  check_disjoint(op, "out", a.out, "cols", a.cols);
  check_disjoint(op, "cols", a.cols, "x", a.x);
  run(OpId::ConvTranspose1d, q, &a);
}

void snake(const Queue& q, const Tensor& x, const Tensor& alpha, const Tensor& out, ActLayout act) {
  const char* op = "snake";
  check_tensor(op, "x", x, DType::BF16, 3, q);
  check_tensor(op, "alpha", alpha, DType::BF16, 1, q);
  check_tensor(op, "out", out, DType::BF16, 3, q);
  check_dim(op, "alpha", alpha, 0, x.shape[act_axes(act).channels], "C of 'x'");
  for (int d = 0; d < 3; ++d) check_dim(op, "out", out, d, x.shape[d], "the shape of 'x'");
  check_disjoint(op, "out", out, "x", x, /*exact_alias_ok=*/true);
  SnakeArgs a{x, alpha, out, act};
  run(OpId::Snake, q, &a);
}

void tanh(const Queue& q, const Tensor& x, const Tensor& out) {
  const char* op = "tanh";
  check_tensor(op, "x", x, DType::BF16, 3, q);
  check_tensor(op, "out", out, DType::BF16, 3, q);
  for (int d = 0; d < 3; ++d) check_dim(op, "out", out, d, x.shape[d], "the shape of 'x'");
  check_disjoint(op, "out", out, "x", x, /*exact_alias_ok=*/true);
  TanhArgs a{x, out};
  run(OpId::Tanh, q, &a);
}

}  // namespace music3::ops
