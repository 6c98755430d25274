// conv1d on the CPU: one output channel per parallel_for index; per channel an f32 row starts at the bias and
// accumulates input channel by input channel, tap by tap (the host arm's order), then rounds once to bf16. Every
// weight layout and either activation layout, the same order: the result does not depend on the layouts.
// The scratch tensors are not needed here and are left untouched.
#include <algorithm>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {

bool conv1d_cpu_supports(const void* args) { return conv1d_is_plain(*static_cast<const Conv1dArgs*>(args)); }

void conv1d_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  const ActAxes act = act_axes(p.act);
  const int64_t batch = p.x.shape[0], cin = p.x.shape[act.channels], t_in = p.x.shape[act.time];
  const ConvWeightAxes axes = conv_weight_axes(p.layout);
  const int64_t taps = p.w.shape[axes.taps], cout = p.w.shape[axes.out], t_out = p.out.shape[act.time];
  // The steps between channels and between samples in x and out: [B, C, T] or [B, T, C].
  const bool last = p.act == ActLayout::ChannelsLast;
  const int64_t x_c = last ? 1 : t_in, x_t = last ? cin : 1, o_c = last ? 1 : t_out, o_t = last ? cout : 1;
  const bf16* x = p.x.as<const bf16>();
  const bf16* w = p.w.as<const bf16>();
  const bf16* bias = p.bias.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  parallel_for(batch * cout, q.threads, [&](int64_t begin, int64_t end) {
    std::vector<float> acc(static_cast<size_t>(t_out)), row(static_cast<size_t>(t_in));
    for (int64_t bc = begin; bc < end; ++bc) {
      const int64_t b = bc / cout, co = bc % cout;
      std::fill(acc.begin(), acc.end(), to_f32(bias[co]));
      for (int64_t ci = 0; ci < cin; ++ci) {
        const bf16* xr = x + b * cin * t_in + ci * x_c;
        for (int64_t t = 0; t < t_in; ++t) row[static_cast<size_t>(t)] = to_f32(xr[t * x_t]);
        for (int64_t k = 0; k < taps; ++k) {
          const float wv = to_f32(w[conv_weight_offset(p.layout, taps, cout, cin, k, co, ci)]);
          const int64_t shift = k * p.dilation - p.pad;
          const int64_t lo = std::max<int64_t>(0, -shift), hi = std::min<int64_t>(t_out, t_in - shift);
          for (int64_t t = lo; t < hi; ++t) acc[static_cast<size_t>(t)] += wv * row[static_cast<size_t>(t + shift)];
        }
      }
      bf16* o = out + b * cout * t_out + co * o_c;
      for (int64_t t = 0; t < t_out; ++t) o[t * o_t] = to_bf16(acc[static_cast<size_t>(t)]);
    }
  });
}

}  // namespace music3::ops
