#include "gates/ops/support/col2im_contract.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace music3::optest {

std::vector<Col2imCase> col2im_cases() {
  return {{2, 768, 9, 8},  {2, 384, 40, 8}, {2, 192, 70, 4}, {2, 96, 200, 2}, {2, 24, 19, 8},
          {1, 16, 40, 1},  {2, 40, 30, 3},  {2, 128, 37, 8}, {2, 192, 62, 4}};
}

std::vector<bf16> contract_col2im(const Col2imCase& c, const std::vector<bf16>& cols, const std::vector<bf16>& bias) {
  const int64_t taps = c.taps(), pad = c.pad(), l_out = c.l_out();
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

void expect_contract_bits(const Col2imCase& c, const std::vector<bf16>& cols, const std::vector<bf16>& bias,
                          const std::vector<bf16>& out, const std::string& what) {
  const auto want = contract_col2im(c, cols, bias);
  ASSERT_EQ(out.size(), want.size()) << what;
  size_t differ = 0;
  for (size_t i = 0; i < want.size(); ++i) differ += want[i].bits != out[i].bits;
  std::printf("staged col2im: %s: %zu of %zu outputs differ from the contract\n", what.c_str(), differ, want.size());
  EXPECT_EQ(differ, 0u) << what;
}

}  // namespace music3::optest
