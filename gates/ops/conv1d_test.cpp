// conv1d gate: the provider under test against an f64 reference (one rounding of bias + the exact sum), for dilated
// k7 convs with padding and a k1 conv, two batches, in every weight layout (tap-major, torch's [Cout, Cin, K] and
// [Cout, K, Cin]; a layout no enabled provider of the device takes, as OutInTap in a CUDA build without cuDNN,
// is named in the output and not run); the channel counts include multiples of 8 (128 and 16 output channels:
// both SM80 CUTLASS tile shapes; 96, 192 and 128 channels-last: the three sm90 tiles on an H200) and counts off that
// alignment (the cuBLAS fallback from the same staging); each with
// channels-first and channels-last activations (a pair no enabled provider takes is named and not run; where
// cuda.conv1d.narrow_staged is enabled, its narrow channels-last cases run on it with the narrow kernel's bits);
// preferred_conv1d_layout; the residual epilogue bit for bit against conv then add; entry-point refusals named.
#include <gtest/gtest.h>

#include <cstdio>
#include <tuple>

#include "engine/core/device_array.h"
#include "engine/ops/ops.h"  // add: the residual epilogue's separate op
#include "engine/ops/registry.h"
#include "engine/ops/vocoder_ops.h"
#include "gates/ops/vocoder_op_checks.h"

namespace music3::optest {
namespace {

struct Case {
  int64_t batch, cin, cout, time, taps;
  int dilation, pad;
};

std::vector<bf16> reference(const Case& c, const std::vector<bf16>& x, const std::vector<bf16>& w,
                            const std::vector<bf16>& bias) {
  const int64_t t_out = c.time + 2 * c.pad - c.dilation * (c.taps - 1);
  std::vector<bf16> out(static_cast<size_t>(c.batch * c.cout * t_out));
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t co = 0; co < c.cout; ++co)
      for (int64_t t = 0; t < t_out; ++t) {
        double acc = to_f32(bias[co]);
        for (int64_t k = 0; k < c.taps; ++k) {
          const int64_t src = t + k * c.dilation - c.pad;
          if (src < 0 || src >= c.time) continue;
          for (int64_t ci = 0; ci < c.cin; ++ci)
            acc += double(to_f32(w[(k * c.cout + co) * c.cin + ci])) * to_f32(x[(b * c.cin + ci) * c.time + src]);
        }
        out[(b * c.cout + co) * t_out + t] = bf16_from_f64(acc);
      }
  return out;
}

// Tap-major [K][Cout][Cin] weights rearranged into `layout`, each layout spelled out here (not through
// ops::conv_weight_offset, which the providers read the weights with: a wrong offset there fails this gate).
std::vector<bf16> in_layout(const Case& c, const std::vector<bf16>& tap_major, ops::ConvWeightLayout layout) {
  std::vector<bf16> w(tap_major.size());
  for (int64_t k = 0; k < c.taps; ++k)
    for (int64_t co = 0; co < c.cout; ++co)
      for (int64_t ci = 0; ci < c.cin; ++ci) {
        const int64_t at = layout == ops::ConvWeightLayout::OutInTap   ? (co * c.cin + ci) * c.taps + k
                           : layout == ops::ConvWeightLayout::OutTapIn ? (co * c.taps + k) * c.cin + ci
                                                                       : (k * c.cout + co) * c.cin + ci;
        w[at] = tap_major[(k * c.cout + co) * c.cin + ci];
      }
  return w;
}

bool layout_has_provider(const Queue& q, ops::ConvWeightLayout layout, ops::ActLayout act) {
  ops::Conv1dArgs probe{};
  probe.layout = layout, probe.act = act;
  const bool has = ops::registry().find(ops::OpId::Conv1d, q.device, &probe) != nullptr;
  if (!has)
    std::printf("conv1d: no enabled %s provider takes layout %s with %s activations: not run\n",
                provider_name().c_str(), ops::conv_weight_layout_name(layout), ops::act_layout_name(act));
  return has;
}

constexpr const char* kNarrowStaged = "cuda.conv1d.narrow_staged";

// Where cuda.conv1d.narrow_staged is enabled (every run but op_conv1d_cuda_narrow_plain): it ran the narrow call
// `args`, whose output was `got`, with the bits of cuda.conv1d's narrow kernel (the same call with it out of
// selection).
void expect_narrow_kernels_bits(const Queue& q, const ops::Conv1dArgs& args, const ops::Provider* runs,
                                const std::vector<bf16>& got) {
  EXPECT_EQ(runs ? runs->name : "", kNarrowStaged);
  DeviceArray plain(q, DType::BF16, args.out.shape);
  plain.poison();
  ops::Conv1dArgs again = args;
  again.out = plain;
  ops::registry().set_enabled(kNarrowStaged, false);
  ops::conv1d(q, again);
  ops::registry().set_enabled(kNarrowStaged, true);
  EXPECT_EQ(bits(got), bits(plain.download<bf16>())) << "narrow conv: the staged kernel against the narrow kernel";
}

void check_layout(ops::ConvWeightLayout layout, ops::ActLayout act) {
  for (const Case& c : {Case{2, 24, 20, 50, 7, 3, 9}, Case{2, 40, 33, 37, 1, 1, 0}, Case{1, 8, 1, 300, 7, 1, 3},
                        Case{2, 64, 128, 301, 7, 9, 27}, Case{2, 24, 16, 517, 7, 3, 9}, Case{2, 16, 24, 70, 7, 1, 3},
                        Case{2, 96, 1, 300, 7, 3, 9}, Case{2, 40, 3, 129, 7, 1, 3}, Case{2, 96, 96, 333, 7, 3, 9},
                        Case{2, 96, 96, 200, 1, 1, 0}, Case{2, 192, 192, 150, 7, 9, 27}, Case{1, 192, 96, 257, 7, 1, 3}}) {
    const int64_t t_out = c.time + 2 * c.pad - c.dilation * (c.taps - 1);
    const auto x = normal_bf16(size_t(c.batch * c.cin * c.time), 11, 1.0);
    const auto w = normal_bf16(size_t(c.taps * c.cout * c.cin), 12, 0.2);
    const auto bias = normal_bf16(size_t(c.cout), 13, 0.5);
    const Queue q = provider_queue(0);
    DeviceArray xb(q, DType::BF16, ops::act_shape(act, c.batch, c.cin, c.time)),
        wb(q, DType::BF16, ops::conv_weight_shape(layout, c.taps, c.cout, c.cin)),
        bb(q, DType::BF16, {c.cout}), pb(q, DType::BF16, ops::act_shape(act, c.batch, c.cin, c.time + 2 * c.pad)),
        ab(q, DType::F32, ops::act_shape(act, c.batch, c.cout, t_out)),
        ob(q, DType::BF16, ops::act_shape(act, c.batch, c.cout, t_out));
    xb.upload(to_act(x, act, c.batch, c.cin, c.time)), wb.upload(in_layout(c, w, layout)), bb.upload(bias);
    pb.poison(), ab.poison(), ob.poison();
    const ops::Conv1dArgs args{xb, wb, bb, pb, ab, ob, c.dilation, c.pad, layout, act};
    const ops::Provider* runs = ops::registry().find(ops::OpId::Conv1d, q.device, &args);
    ops::conv1d(q, args);
    if (!q.is_cpu() && ops::registry().enabled(kNarrowStaged) && act == ops::ActLayout::ChannelsLast && c.cout <= 4 &&
        c.cin % 8 == 0)
      expect_narrow_kernels_bits(q, args, runs, ob.download<bf16>());
    expect_contract(from_act(ob.download<bf16>(), act, c.batch, c.cout, t_out), reference(c, x, w, bias),
                    std::string("layout ") + ops::conv_weight_layout_name(layout) + " " + ops::act_layout_name(act) +
                        " (" + (runs ? runs->name : "?") + ") cin " + std::to_string(c.cin) + " cout " +
                        std::to_string(c.cout) + " k " + std::to_string(c.taps) + " d " + std::to_string(c.dilation));
  }
}

TEST(Conv1d, MatchesF64Reference) {
  for (const auto layout : ops::kConvWeightLayouts)
    for (const auto act : ops::kActLayouts)
      if (layout_has_provider(provider_queue(0), layout, act)) check_layout(layout, act);
}

// The residual epilogue against the plain conv followed by the separate add, bit for bit: the fused kernels
// (cuda.conv1d.cutlass_sm90.fused on an H200) add the residual to the rounded conv and round once, as the add does;
// elsewhere the entry itself runs the add after the conv. Cases on every sm90 tile (96, 192, 128 and 256 output
// channels; k7 dilated and 1x1) and one off its alignment.
void check_residual(ops::ConvWeightLayout layout, ops::ActLayout act) {
  for (const Case& c : {Case{2, 96, 96, 333, 7, 3, 9}, Case{2, 96, 96, 200, 1, 1, 0}, Case{2, 192, 192, 150, 7, 9, 27},
                        Case{2, 192, 192, 130, 1, 1, 0}, Case{2, 128, 128, 301, 7, 5, 15},
                        Case{2, 128, 256, 120, 1, 1, 0}, Case{2, 24, 20, 50, 7, 3, 9}}) {
    const int64_t t_out = c.time + 2 * c.pad - c.dilation * (c.taps - 1);
    const Shape out_shape = ops::act_shape(act, c.batch, c.cout, t_out);
    const Queue q = provider_queue(0);
    DeviceArray xb(q, DType::BF16, ops::act_shape(act, c.batch, c.cin, c.time)),
        wb(q, DType::BF16, ops::conv_weight_shape(layout, c.taps, c.cout, c.cin)), bb(q, DType::BF16, {c.cout}),
        pb(q, DType::BF16, ops::act_shape(act, c.batch, c.cin, c.time + 2 * c.pad)), ab(q, DType::F32, out_shape),
        res(q, DType::BF16, out_shape), separate(q, DType::BF16, out_shape),
        fused(q, DType::BF16, out_shape);
    xb.upload(normal_bf16(size_t(c.batch * c.cin * c.time), 21, 1.0));
    wb.upload(normal_bf16(size_t(c.taps * c.cout * c.cin), 22, 0.2)), bb.upload(normal_bf16(size_t(c.cout), 23, 0.5));
    res.upload(normal_bf16(size_t(out_shape.numel()), 25, 1.0));
    const Tensor flat_sep{separate.data(), DType::BF16, Shape{c.batch * out_shape[1], out_shape[2]}, q.device},
        flat_res{res.data(), DType::BF16, flat_sep.shape, q.device};
    pb.poison(), ab.poison(), separate.poison(), fused.poison();
    ops::Conv1dArgs args{xb, wb, bb, pb, ab, separate, c.dilation, c.pad, layout, act};
    const ops::Provider* plain = ops::registry().find(ops::OpId::Conv1d, q.device, &args);
    ops::conv1d(q, args);
    ops::add(q, flat_sep, flat_res, flat_sep);
    args.out = fused, args.residual = res;
    const ops::Provider* runs = ops::registry().find(ops::OpId::Conv1d, q.device, &args);
    ops::conv1d(q, args);
    const auto want = separate.download<bf16>(), got = fused.download<bf16>();
    size_t differ = 0;
    for (size_t i = 0; i < want.size(); ++i) differ += want[i].bits != got[i].bits;
    const std::string what = std::string("residual epilogue (") + (runs ? runs->name : "the entry's conv, then add") +
                             ") " + ops::act_layout_name(act) + " cin " + std::to_string(c.cin) + " cout " +
                             std::to_string(c.cout) + " k " + std::to_string(c.taps);
    std::printf("conv1d: %s: %zu of %zu elements differ from conv then add\n", what.c_str(), differ, want.size());
    EXPECT_EQ(differ, 0u) << what;
    // What the plain sm90 kernels take, the fused ones take with the residual (else it silently runs apart).
    if (plain && plain->name == "cuda.conv1d.cutlass_sm90") {
      EXPECT_EQ(runs ? runs->name : "", "cuda.conv1d.cutlass_sm90.fused") << what;
    }
  }
}

TEST(Conv1d, ResidualEpilogueGivesConvThenAddBits) {
  const auto layout = ops::ConvWeightLayout::OutTapIn;  // every provider family but cuDNN reads it
  for (const auto act : ops::kActLayouts)
    if (layout_has_provider(provider_queue(0), layout, act)) check_residual(layout, act);
}

TEST(Conv1d, RefusesBadResiduals) {
  const Queue q = provider_queue(0);
  DeviceArray xb(q, DType::BF16, {2, 4, 10}), wb(q, DType::BF16, {7, 3, 4}), bb(q, DType::BF16, {3}),
      pb(q, DType::BF16, {2, 4, 16}), ab(q, DType::F32, {2, 3, 10}), ob(q, DType::BF16, {2, 3, 10}),
      res_f32(q, DType::F32, {2, 3, 10}), res_short(q, DType::BF16, {2, 3, 9});
  const auto refused = [&](ops::Conv1dArgs a, const char* arg, const char* why) {
    try {
      ops::conv1d(q, a);
      ADD_FAILURE() << why << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("conv1d: argument '") + arg + "'"), std::string::npos)
          << e.what();
    }
  };
  ops::Conv1dArgs a{xb, wb, bb, pb, ab, ob, 1, 3};
  a.residual = res_f32;
  refused(a, "residual", "an f32 residual");
  a.residual = res_short;
  refused(a, "residual", "a residual one position short");
  a.residual = ob;
  refused(a, "residual", "a residual that is the output itself");
}

TEST(Conv1d, PreferredLayoutIsTheTopProvidersLayout) {
  const Queue q = provider_queue(0);
  const auto preferred = ops::preferred_conv1d_layout(q);
  ops::Conv1dArgs probe{};
  probe.layout = preferred;
  const ops::Provider* chosen = ops::registry().find(ops::OpId::Conv1d, q.device, &probe);
  ASSERT_NE(chosen, nullptr);
  std::printf("conv1d: preferred layout %s, provider %s\n", ops::conv_weight_layout_name(preferred),
              chosen->name.c_str());
  for (const auto layout : ops::kConvWeightLayouts) {
    probe.layout = layout;
    if (const ops::Provider* other = ops::registry().find(ops::OpId::Conv1d, q.device, &probe)) {
      EXPECT_GE(chosen->priority, other->priority) << other->name;
    }
  }
}

TEST(Conv1d, RefusesMismatchedArguments) {
  const Queue q = provider_queue(0);
  DeviceArray xb(q, DType::BF16, {2, 4, 10}), wb(q, DType::BF16, {7, 3, 5}), bb(q, DType::BF16, {3}),
      pb(q, DType::BF16, {2, 4, 16}), ab(q, DType::F32, {2, 3, 10}), ob(q, DType::BF16, {2, 3, 10});
  try {
    ops::conv1d(q, {xb, wb, bb, pb, ab, ob, 1, 3});
    ADD_FAILURE() << "a weight with Cin 5 for a 4-channel input was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("conv1d: argument 'w'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace music3::optest
