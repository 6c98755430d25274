// op_bf16_cvt_cuda: the hardware conversion's rounding (engine/ops/cuda/bf16_cvt.cuh) against the contract's,
// to_bf16 (engine/core/bf16.h), on every one of the 2^32 f32 bit patterns, on the device: the two must give the same
// bf16 for each, so a kernel that rounds with to_bf16_cvt gives to_bf16's bits. Plus known answers (ties to even,
// NaN of either sign, overflow, subnormals), so a checker that compared nothing cannot pass.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/bf16_cvt.cuh"

namespace music3::optest {
namespace {

struct Tally {
  unsigned long long checked, differ;
  unsigned int first;  // the smallest differing pattern (0xFFFFFFFF: none)
};

__global__ void compare_every_pattern(Tally* tally) {
  unsigned long long checked = 0, differ = 0;
  unsigned int first = 0xFFFFFFFFu;
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (uint64_t{1} << 32); i += stride) {
    const float f = __uint_as_float(static_cast<unsigned int>(i));
    ++checked;
    if (ops::to_bf16_cvt(f).bits != to_bf16(f).bits) {
      ++differ;
      first = min(first, static_cast<unsigned int>(i));
    }
  }
  atomicAdd(&tally->checked, checked);
  if (differ) {
    atomicAdd(&tally->differ, differ);
    atomicMin(&tally->first, first);
  }
}

__global__ void convert(const float* in, uint16_t* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ops::to_bf16_cvt(in[i]).bits;
}

void check(cudaError_t e, const char* what) { ASSERT_EQ(e, cudaSuccess) << what << ": " << cudaGetErrorString(e); }

TEST(Bf16Cvt, GivesTheContractsRoundingForEveryF32Pattern) {
  Tally* tally = nullptr;
  check(cudaMalloc(&tally, sizeof(Tally)), "cudaMalloc");
  const Tally start{0, 0, 0xFFFFFFFFu};
  check(cudaMemcpy(tally, &start, sizeof start, cudaMemcpyHostToDevice), "upload");
  compare_every_pattern<<<4096, 256>>>(tally);
  check(cudaGetLastError(), "launch");
  Tally t{};
  check(cudaMemcpy(&t, tally, sizeof t, cudaMemcpyDeviceToHost), "download");
  cudaFree(tally);
  std::printf("bf16 cvt: %llu patterns checked, %llu differ from to_bf16 (first 0x%08X)\n", t.checked, t.differ,
              t.first);
  EXPECT_EQ(t.checked, uint64_t{1} << 32);
  EXPECT_EQ(t.differ, 0u) << "first differing f32 pattern 0x" << std::hex << t.first;
}

TEST(Bf16Cvt, KnownAnswers) {
  struct Case {
    uint32_t f32;
    uint16_t bf16;
    const char* what;
  };
  const Case cases[] = {
      {0x3F808000u, 0x3F80, "1 + 2^-8, a tie: to the even neighbour below"},
      {0x3F818000u, 0x3F82, "1 + 3 x 2^-8, a tie: to the even neighbour above"},
      {0x3F808001u, 0x3F81, "just above a tie: up"},
      {0x7F7FFFFFu, 0x7F80, "the largest f32: overflows to +inf"},
      {0xFF800000u, 0xFF80, "-inf"},
      {0x7FC00001u, 0x7FC0, "a quiet NaN with a payload: 0x7FC0"},
      {0xFFFFFFFFu, 0x7FC0, "a negative NaN: 0x7FC0, the sign dropped"},
      {0x7F800001u, 0x7FC0, "a signalling NaN: 0x7FC0"},
      {0x80000000u, 0x8000, "-0 keeps its sign"},
      {0x00008000u, 0x0000, "a subnormal tie: to even (zero)"},
      {0x00018000u, 0x0002, "a subnormal tie: to even (up)"},
      {0x807FFFFFu, 0x8080, "the largest negative subnormal: rounds to the smallest normal"},
  };
  constexpr int n = sizeof(cases) / sizeof(cases[0]);
  float in[n];
  for (int i = 0; i < n; ++i) in[i] = f32_from_bits(cases[i].f32);
  float* din = nullptr;
  uint16_t* dout = nullptr;
  check(cudaMalloc(&din, sizeof in), "cudaMalloc");
  check(cudaMalloc(&dout, n * sizeof(uint16_t)), "cudaMalloc");
  check(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice), "upload");
  convert<<<1, 32>>>(din, dout, n);
  check(cudaGetLastError(), "launch");
  uint16_t out[n];
  check(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost), "download");
  cudaFree(din);
  cudaFree(dout);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(out[i], cases[i].bf16) << cases[i].what;
    EXPECT_EQ(to_bf16(in[i]).bits, cases[i].bf16) << cases[i].what << " (the contract's to_bf16)";
  }
}

}  // namespace
}  // namespace music3::optest
