// The conv_transpose1d contract's col2im over channels-last columns, for the staged col2im's gates (host bodies and
// the CUDA kernel alone).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::optest {

// A staged col2im shape: K = 2 stride taps, the vocoder up-blocks' pad (stride + 1) / 2.
struct Col2imCase {
  int64_t batch, cout, len;
  int stride;
  int64_t taps() const { return 2 * int64_t(stride); }
  int pad() const { return (stride + 1) / 2; }
  int64_t l_out() const { return (len - 1) * stride - 2 * int64_t(pad()) + taps(); }
};

// The gates' shapes: the full vocoder's four up-blocks (768, 384, 192, 96 output channels at strides 8, 8, 4, 2) at
// short lengths, channel blocks of 8, 16, 32 and 64, odd strides, one and several sample blocks; {2, 192, 62, 4}:
// L = 2 Q, so input sample L (whose tap s + r feeds the last outputs) opens a block of its own.
std::vector<Col2imCase> col2im_cases();

// cols [B, L, Cout K] ([co][k]) to out [B, Lout, Cout]: taps k = u mod s, u mod s + s, ... in ascending order
// (l = (u - k) / s < L), each addition rounded to bf16, then the bias with one more rounding.
std::vector<bf16> contract_col2im(const Col2imCase& c, const std::vector<bf16>& cols, const std::vector<bf16>& bias);

// A gate's check: `out` of `cols` and `bias` equals the contract bit for bit; prints how many outputs differ and
// fails the current test (EXPECT) naming `what` otherwise.
void expect_contract_bits(const Col2imCase& c, const std::vector<bf16>& cols, const std::vector<bf16>& bias,
                          const std::vector<bf16>& out, const std::string& what);

}  // namespace music3::optest
