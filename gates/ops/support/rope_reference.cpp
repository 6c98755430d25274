#include "gates/ops/support/rope_reference.h"

namespace music3::optest {

std::vector<bf16> rope_reference(std::vector<bf16> x, const RopeLayout& l, const std::vector<bf16>& cos,
                                 const std::vector<bf16>& sin) {
  const int64_t rows = int64_t(x.size()) / l.width, positions = int64_t(cos.size()) / l.rot, half = l.rot / 2;
  std::vector<float> in(size_t(l.rot));
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t p = l.pos0 + r / l.batch;
    if (p < 0 || p >= positions) continue;
    for (int h = 0; h < l.count; ++h) {
      bf16* head = x.data() + r * l.width + h * l.head_dim;
      for (int64_t i = 0; i < l.rot; ++i) in[size_t(i)] = to_f32(head[i]);
      for (int64_t i = 0; i < l.rot; ++i) {
        const float partner = i < half ? -in[size_t(i + half)] : in[size_t(i - half)];
        const float a = round_bf16(in[size_t(i)] * to_f32(cos[size_t(p * l.rot + i)]));
        const float b = round_bf16(partner * to_f32(sin[size_t(p * l.rot + i)]));
        head[i] = to_bf16(a + b);
      }
    }
  }
  return x;
}

}  // namespace music3::optest
