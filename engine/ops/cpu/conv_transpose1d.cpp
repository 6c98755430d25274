// conv_transpose1d on the CPU: one output channel per parallel_for index; per tap the GEMM column is summed in
// f32 over input channels and rounded to bf16, then added into a bf16 row in ascending tap order (col2im), then
// the bias; either activation layout, the same order. The cols scratch is not needed here and is left untouched.
#include <algorithm>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {

void conv_transpose1d_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const ConvTranspose1dArgs*>(args);
  const ActAxes act = act_axes(p.act);
  const int64_t batch = p.x.shape[0], cin = p.x.shape[act.channels], len = p.x.shape[act.time];
  const int64_t cout = p.w.shape[1], taps = p.w.shape[2], l_out = p.out.shape[act.time];
  // The steps between channels and between samples in x and out: [B, C, T] or [B, T, C].
  const bool last = p.act == ActLayout::ChannelsLast;
  const int64_t x_c = last ? 1 : len, x_t = last ? cin : 1, o_c = last ? 1 : l_out, o_t = last ? cout : 1;
  const int64_t full = (len - 1) * p.stride + taps;
  const bf16* x = p.x.as<const bf16>();
  const bf16* w = p.w.as<const bf16>();
  const bf16* bias = p.bias.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  parallel_for(batch * cout, q.threads, [&](int64_t begin, int64_t end) {
    std::vector<float> col(static_cast<size_t>(len));
    std::vector<bf16> sum(static_cast<size_t>(full));
    for (int64_t bc = begin; bc < end; ++bc) {
      const int64_t b = bc / cout, co = bc % cout;
      std::fill(sum.begin(), sum.end(), bf16{0});
      for (int64_t k = 0; k < taps; ++k) {
        std::fill(col.begin(), col.end(), 0.0f);
        for (int64_t ci = 0; ci < cin; ++ci) {
          const float wv = to_f32(w[(ci * cout + co) * taps + k]);
          const bf16* xr = x + b * cin * len + ci * x_c;
          for (int64_t l = 0; l < len; ++l) col[static_cast<size_t>(l)] += wv * to_f32(xr[l * x_t]);
        }
        for (int64_t l = 0; l < len; ++l) {
          bf16& s = sum[static_cast<size_t>(l * p.stride + k)];
          s = to_bf16(to_f32(s) + round_bf16(col[static_cast<size_t>(l)]));
        }
      }
      const float bv = to_f32(bias[co]);
      bf16* o = out + b * cout * l_out + co * o_c;
      for (int64_t t = 0; t < l_out; ++t) o[t * o_t] = to_bf16(to_f32(sum[static_cast<size_t>(t + p.pad)]) + bv);
    }
  });
}

}  // namespace music3::ops
