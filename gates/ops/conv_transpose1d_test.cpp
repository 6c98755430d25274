// conv_transpose1d gate: the provider under test against an f64 reference with the contract's rounding points
// (each GEMM column rounded once, col2im additions in ascending tap order each rounded, then the bias), for
// strides 8, 4, 3, 2 and 1 (kernel 2s, padding ceil(s/2)), channels-first and channels-last; entry-point refusals
// named. Each case prints the provider that ran it; where cuda.conv_transpose1d.staged is enabled (every run but
// op_conv_transpose1d_cuda_gather), every case it is built for (channels-last, Cout % 8 == 0; several sample
// blocks, several channel blocks, channel blocks of 8, 32 and 64) must have run on it.
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/core/device_array.h"
#include "engine/ops/registry.h"
#include "engine/ops/vocoder_ops.h"
#include "gates/ops/vocoder_op_checks.h"

namespace music3::optest {
namespace {

struct Case {
  int64_t batch, cin, cout, len;
  int stride;
};

std::vector<bf16> reference(const Case& c, const std::vector<bf16>& x, const std::vector<bf16>& w,
                            const std::vector<bf16>& bias) {
  const int64_t taps = 2 * c.stride, pad = (c.stride + 1) / 2, l_out = (c.len - 1) * c.stride - 2 * pad + taps;
  std::vector<bf16> out(static_cast<size_t>(c.batch * c.cout * l_out));
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t co = 0; co < c.cout; ++co)
      for (int64_t t = 0; t < l_out; ++t) {
        const int64_t u = t + pad;
        float acc = 0.0f;
        for (int64_t k = 0; k < taps; ++k) {
          if ((u - k) % c.stride != 0 || u < k) continue;
          const int64_t l = (u - k) / c.stride;
          if (l >= c.len) continue;
          double col = 0;
          for (int64_t ci = 0; ci < c.cin; ++ci)
            col += double(to_f32(w[(ci * c.cout + co) * taps + k])) * to_f32(x[(b * c.cin + ci) * c.len + l]);
          acc = round_bf16(acc + to_f32(bf16_from_f64(col)));
        }
        out[(b * c.cout + co) * l_out + t] = to_bf16(acc + to_f32(bias[co]));
      }
  return out;
}

constexpr const char* kStaged = "cuda.conv_transpose1d.staged";

TEST(ConvTranspose1d, MatchesF64Reference) {
  const bool staged = !provider_queue(0).is_cpu() && ops::registry().enabled(kStaged);
  for (const auto act : ops::kActLayouts) {
    for (const Case& c : {Case{2, 24, 12, 13, 8}, Case{2, 32, 16, 21, 4}, Case{1, 16, 16, 40, 1}, Case{2, 24, 96, 75, 2},
                          Case{2, 64, 24, 19, 8}, Case{2, 48, 128, 37, 8}, Case{2, 16, 40, 30, 3}}) {
      const int64_t taps = 2 * c.stride, pad = (c.stride + 1) / 2, l_out = (c.len - 1) * c.stride - 2 * pad + taps;
      const auto x = normal_bf16(size_t(c.batch * c.cin * c.len), 21, 1.0);
      const auto w = normal_bf16(size_t(c.cin * c.cout * taps), 22, 0.2);
      const auto bias = normal_bf16(size_t(c.cout), 23, 0.5);
      const Queue q = provider_queue(0);
      DeviceArray xb(q, DType::BF16, ops::act_shape(act, c.batch, c.cin, c.len)),
          wb(q, DType::BF16, {c.cin, c.cout, taps}), bb(q, DType::BF16, {c.cout}),
          cb(q, DType::BF16, ops::act_shape(act, c.batch, c.cout * taps, c.len)),
          ob(q, DType::BF16, ops::act_shape(act, c.batch, c.cout, l_out));
      xb.upload(to_act(x, act, c.batch, c.cin, c.len)), wb.upload(w), bb.upload(bias);
      cb.poison(), ob.poison();
      const ops::ConvTranspose1dArgs args{xb, wb, bb, cb, ob, c.stride, static_cast<int>(pad), act};
      const ops::Provider* runs = ops::registry().find(ops::OpId::ConvTranspose1d, q.device, &args);
      ASSERT_NE(runs, nullptr);
      const std::string what = std::string(ops::act_layout_name(act)) + " stride " + std::to_string(c.stride) +
                               " cout " + std::to_string(c.cout) + " (" + runs->name + ")";
      std::printf("conv_transpose1d: %s\n", what.c_str());
      if (staged && act == ops::ActLayout::ChannelsLast && c.cout % 8 == 0) {
        EXPECT_EQ(runs->name, kStaged) << what;
      }
      ops::conv_transpose1d(q, args);
      expect_contract(from_act(ob.download<bf16>(), act, c.batch, c.cout, l_out), reference(c, x, w, bias), what);
    }
  }
}

TEST(ConvTranspose1d, RefusesMismatchedArguments) {
  const Queue q = provider_queue(0);
  DeviceArray xb(q, DType::BF16, {2, 4, 10}), wb(q, DType::BF16, {4, 3, 8}), bb(q, DType::BF16, {3}),
      cb(q, DType::BF16, {2, 24, 10}), ob(q, DType::BF16, {2, 3, 39});
  try {
    ops::conv_transpose1d(q, {xb, wb, bb, cb, ob, 4, 2});
    ADD_FAILURE() << "an output of 39 samples (40 expected) was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("conv_transpose1d: argument 'out'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace music3::optest
