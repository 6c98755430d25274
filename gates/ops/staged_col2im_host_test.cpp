// op_staged_col2im_host: the staged col2im's kernel bodies (engine/ops/cuda/staged_col2im.cuh), run on the CPU block
// by block with the kernel's 256 threads taken in turn (every thread's staging before any thread's gather: the
// kernel's barrier), against the channels-last col2im of the conv_transpose1d contract, bit for bit. Shapes: the full
// vocoder's four up-blocks (768, 384, 192, 96 output channels at strides 8, 8, 4, 2) at short lengths, channel blocks
// of 8, 16, 32 and 64, odd strides, one and several sample blocks, a length that is a whole number of sample blocks; the staging buffer poisoned per block, so a read of
// a row the staging skipped shows. Also: every plan of those shapes fits the kernel's static shared memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/staged_col2im.cuh"
#include "gates/ops/support/numerics.h"

namespace music3::optest {
namespace {

namespace sc = ops::staged_col2im;
constexpr int kKernelThreads = 256;  // conv_transpose1d_staged.cu's block
constexpr uint16_t kPoison = 0x7fc1;  // a NaN no rounding produces (to_bf16 gives 0x7fc0)

struct Case {
  int64_t batch, cout, len;
  int stride;
};

// The contract's col2im over channels-last columns [B, L, Cout K] ([co][k]): taps k = u mod s, u mod s + s, ... in
// ascending order (l = (u - k) / s < L), each addition rounded, then the bias.
std::vector<bf16> contract_col2im(const Case& c, const std::vector<bf16>& cols, const std::vector<bf16>& bias,
                                  int64_t pad, int64_t l_out) {
  const int64_t taps = 2 * c.stride;
  std::vector<bf16> out(size_t(c.batch * l_out * c.cout));
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t t = 0; t < l_out; ++t)
      for (int64_t co = 0; co < c.cout; ++co) {
        const int64_t u = t + pad;
        float acc = 0.0f;
        for (int64_t k = u % c.stride; k < taps && k <= u; k += c.stride) {
          const int64_t l = (u - k) / c.stride;
          if (l < c.len) acc = round_bf16(acc + to_f32(cols[size_t(((b * c.len + l) * c.cout + co) * taps + k)]));
        }
        out[size_t((b * l_out + t) * c.cout + co)] = to_bf16(acc + to_f32(bias[size_t(co)]));
      }
  return out;
}

TEST(StagedCol2im, KernelBodiesGiveTheContractBits) {
  // Case{2, 192, 62, 4}: L = 2 Q, so input sample L (whose tap s + r feeds the last outputs) opens a block of its own.
  for (const Case& c : {Case{2, 768, 9, 8}, Case{2, 384, 40, 8}, Case{2, 192, 70, 4}, Case{2, 96, 200, 2},
                        Case{2, 24, 19, 8}, Case{1, 16, 40, 1}, Case{2, 40, 30, 3}, Case{2, 128, 37, 8},
                        Case{2, 192, 62, 4}}) {
    const int64_t taps = 2 * c.stride, pad = (c.stride + 1) / 2, l_out = (c.len - 1) * c.stride - 2 * pad + taps;
    const auto cols = normal_bf16(size_t(c.batch * c.len * c.cout * taps), 31, 1.0);
    const auto bias = normal_bf16(size_t(c.cout), 32, 0.5);
    std::vector<bf16> out(size_t(c.batch * l_out * c.cout), bf16{kPoison});
    const sc::Plan plan = sc::plan_for(c.cout, taps);
    ASSERT_LE(plan.shared_bytes, size_t(sc::kMaxStagedBytes));
    ASSERT_EQ(c.cout % plan.channel_block, 0);
    const sc::Args a{cols.data(), bias.data(), out.data(), c.len, l_out, static_cast<int>(c.cout), c.stride,
                     static_cast<int>(pad), plan.channel_block, plan.samples};
    // Exactly the kernel's shared memory, 16-byte aligned as it is (the bodies read it 16 bytes at a time); exact,
    // so that under AddressSanitizer (scripts/sanitize-gates) a body reaching past it is reported.
    const size_t staged_count = plan.shared_bytes / sizeof(bf16);  // a multiple of 8: CB is
    std::vector<ops::Bf16x8> staged(staged_count / sc::kVec);  // alignas(16)
    bf16* aligned = reinterpret_cast<bf16*>(staged.data());
    for (int64_t z = 0; z < c.batch; ++z)
      for (int y = 0; y < c.cout / plan.channel_block; ++y)
        for (int64_t x = 0; x < sc::sample_blocks(c.len, plan); ++x) {
          std::fill(aligned, aligned + staged_count, bf16{kPoison});
          const sc::Block blk{x, y, z};
          for (int th = 0; th < kKernelThreads; ++th) sc::stage_columns(a, blk, th, kKernelThreads, aligned);
          for (int th = 0; th < kKernelThreads; ++th) sc::gather_outputs(a, blk, th, kKernelThreads, aligned);
        }
    const auto want = contract_col2im(c, cols, bias, pad, l_out);
    size_t differ = 0;
    for (size_t i = 0; i < want.size(); ++i) differ += want[i].bits != out[i].bits;
    const std::string what = "cout " + std::to_string(c.cout) + " stride " + std::to_string(c.stride) + " len " +
                             std::to_string(c.len) + " (CB " + std::to_string(plan.channel_block) + ", Q " +
                             std::to_string(plan.samples) + ", " + std::to_string(plan.shared_bytes) + " B)";
    std::printf("staged col2im: %s: %zu of %zu outputs differ from the contract\n", what.c_str(), differ, want.size());
    EXPECT_EQ(differ, 0u) << what;
  }
}

}  // namespace
}  // namespace music3::optest
