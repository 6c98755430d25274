// op_staged_col2im_cuda: the staged col2im kernel alone (engine/ops/cuda/staged_col2im_launch.h) on uploaded
// channels-last columns, against the conv_transpose1d contract's col2im, bit for bit, on col2im_cases(); the output
// poisoned first, so an output the kernel skips shows. The process runs no cuBLAS, so compute-sanitizer's racecheck
// can watch the kernel's staging barrier (op_staged_col2im_cuda_racecheck; under op_conv_transpose1d_cuda, whose
// every case runs the columns GEMM first, racecheck fails on cuBLAS's kernels).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/core/device_array.h"
#include "engine/ops/cuda/staged_col2im_launch.h"
#include "gates/ops/support/col2im_contract.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"

namespace music3::optest {
namespace {

TEST(StagedCol2imCuda, KernelGivesTheContractBits) {
  ASSERT_TRUE(provider_is_cuda()) << "built for the CUDA provider only";
  const Queue q = provider_queue(0);
  for (const Col2imCase& c : col2im_cases()) {
    const auto cols = normal_bf16(size_t(c.batch * c.len * c.cout * c.taps()), 41, 1.0);
    const auto bias = normal_bf16(size_t(c.cout), 42, 0.5);
    DeviceArray cols_d(q, DType::BF16, {c.batch * c.len, c.cout * c.taps()}), bias_d(q, DType::BF16, {c.cout});
    DeviceArray out_d(q, DType::BF16, {c.batch * c.l_out(), c.cout});
    cols_d.upload(cols);
    bias_d.upload(bias);
    out_d.poison();
    ops::staged_col2im_cuda(q, {cols_d.tensor().as<const bf16>(), bias_d.tensor().as<const bf16>(),
                                out_d.tensor().as<bf16>(), c.batch, c.len, c.l_out(), c.cout, c.stride, c.pad()});
    expect_contract_bits(c, cols, bias, out_d.download<bf16>(),
                         "cuda, cout " + std::to_string(c.cout) + " stride " + std::to_string(c.stride) + " len " +
                             std::to_string(c.len));
  }
}

}  // namespace
}  // namespace music3::optest
