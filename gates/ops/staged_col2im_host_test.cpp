// op_staged_col2im_host: the staged col2im's kernel bodies (engine/ops/cuda/staged_col2im.cuh), run on the CPU block
// by block with the kernel's 256 threads taken in turn (every thread's staging before any thread's gather: the
// kernel's barrier), against the channels-last col2im of the conv_transpose1d contract, bit for bit. Shapes: the full
// vocoder's four up-blocks (768, 384, 192, 96 output channels at strides 8, 8, 4, 2) at short lengths, channel blocks
// of 8, 16, 32 and 64, odd strides, one and several sample blocks, a length that is a whole number of sample blocks; the staging buffer poisoned per block, so a read of
// a row the staging skipped shows. Also: every plan of those shapes fits the kernel's static shared memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/staged_col2im.cuh"
#include "gates/ops/support/col2im_contract.h"
#include "gates/ops/support/numerics.h"

namespace music3::optest {
namespace {

namespace sc = ops::staged_col2im;
constexpr int kKernelThreads = 256;  // conv_transpose1d_staged.cu's block
constexpr uint16_t kPoison = 0x7fc1;  // a NaN no rounding produces (to_bf16 gives 0x7fc0)

TEST(StagedCol2im, KernelBodiesGiveTheContractBits) {
  for (const Col2imCase& c : col2im_cases()) {
    const int64_t taps = c.taps(), pad = c.pad(), l_out = c.l_out();
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
    expect_contract_bits(c, cols, bias, out,
                         "host bodies, cout " + std::to_string(c.cout) + " stride " + std::to_string(c.stride) +
                             " len " + std::to_string(c.len) + " (CB " + std::to_string(plan.channel_block) + ", Q " +
                             std::to_string(plan.samples) + ", " + std::to_string(plan.shared_bytes) + " B)");
  }
}

}  // namespace
}  // namespace music3::optest
