// op_narrow_conv_host: cuda.conv1d.narrow_staged's kernel bodies (engine/ops/cuda/narrow_conv_staged.cuh) run on the
// CPU block by block, the kernel's 128 threads taken in turn (every thread's staging before any thread's output: the
// kernel's barrier), against the narrow kernel's sum written out directly (acc = bias, then for each tap and each
// input channel in order acc = fma(w, x, acc), x zero outside [0, Tin), one rounding): bit for bit. Shapes: the
// vocoder's conv_out (96 -> 1, k 7) over a whole and a partial last block, and dilated ones with 2 and 4 outputs, in
// each weight layout; staging buffers of exactly the kernel's shared memory (ASan sees a body reaching past them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/narrow_conv_staged.cuh"
#include "gates/ops/support/numerics.h"

namespace music3::optest {
namespace {

namespace nc = ops::narrow_conv;

struct Case {
  int batch, cin, cout, taps, dilation, pad, t_in;
};

std::vector<bf16> direct(const Case& c, ops::ConvWeightLayout layout, const std::vector<bf16>& x,
                         const std::vector<bf16>& w, const std::vector<bf16>& bias, int t_out) {
  std::vector<bf16> out(size_t(c.batch) * t_out * c.cout);
  for (int b = 0; b < c.batch; ++b)
    for (int t = 0; t < t_out; ++t)
      for (int co = 0; co < c.cout; ++co) {
        float acc = to_f32(bias[size_t(co)]);
        for (int k = 0; k < c.taps; ++k) {
          const int j = t + k * c.dilation - c.pad;
          for (int ci = 0; ci < c.cin; ++ci) {
            const float xv = (j >= 0 && j < c.t_in) ? to_f32(x[(size_t(b) * c.t_in + j) * c.cin + ci]) : 0.0f;
            const float wv = to_f32(w[size_t(ops::conv_weight_offset(layout, c.taps, c.cout, c.cin, k, co, ci))]);
            acc = std::fma(wv, xv, acc);
          }
        }
        out[(size_t(b) * t_out + t) * c.cout + co] = to_bf16(acc);
      }
  return out;
}

TEST(NarrowConvStaged, KernelBodiesGiveTheNarrowKernelsBits) {
  for (const Case& c : {Case{2, 96, 1, 7, 1, 3, 300}, Case{2, 96, 1, 7, 1, 3, 128}, Case{1, 16, 4, 3, 2, 2, 200},
                        Case{2, 8, 2, 7, 3, 9, 77}}) {
    for (const auto layout : ops::kConvWeightLayouts) {
      const int t_out = c.t_in + 2 * c.pad - c.dilation * (c.taps - 1);
      const auto x = normal_bf16(size_t(c.batch) * c.t_in * c.cin, 51, 1.0);
      const auto w = normal_bf16(size_t(c.taps) * c.cout * c.cin, 52, 0.2);
      const auto bias = normal_bf16(size_t(c.cout), 53, 0.5);
      const nc::Geometry g{c.cin, c.cout, c.taps, c.dilation, c.pad, c.t_in, t_out, layout};
      ASSERT_LE(g.shared_bytes(), size_t(nc::kMaxStagedBytes));
      std::vector<float> staged_w(g.weight_bytes() / sizeof(float));
      std::vector<ops::Bf16x8> staged_rows(size_t(g.rows()) * g.row_stride() / nc::kVec);  // alignas(16), exact
      bf16* staged_x = reinterpret_cast<bf16*>(staged_rows.data());
      std::vector<bf16> out(size_t(c.batch) * t_out * c.cout, bf16{0x7fc1});
      for (int b = 0; b < c.batch; ++b)
        for (int t0 = 0; t0 < t_out; t0 += nc::kTile) {
          for (int th = 0; th < nc::kTile; ++th) {
            nc::stage_weights(g, w.data(), th, nc::kTile, staged_w.data());
            nc::stage_rows(g, x.data(), b, t0, th, nc::kTile, staged_x);
          }
          for (int th = 0; th < nc::kTile && t0 + th < t_out; ++th)
            nc::output(g, staged_w.data(), staged_x, bias.data(), out.data(), b, t0, th);
        }
      const auto want = direct(c, layout, x, w, bias, t_out);
      size_t differ = 0;
      for (size_t i = 0; i < want.size(); ++i) differ += want[i].bits != out[i].bits;
      const std::string what = "cin " + std::to_string(c.cin) + " cout " + std::to_string(c.cout) + " k " +
                               std::to_string(c.taps) + " dilation " + std::to_string(c.dilation) + " T " +
                               std::to_string(c.t_in) + " " + ops::conv_weight_layout_name(layout);
      std::printf("narrow conv staged: %s: %zu of %zu outputs differ\n", what.c_str(), differ, want.size());
      EXPECT_EQ(differ, 0u) << what;
    }
  }
}

}  // namespace
}  // namespace music3::optest
