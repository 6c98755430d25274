#include "engine/models/music3/vocoder/vocoder_host_math.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/core/parallel.h"

namespace music3::vocoder {

namespace {
std::vector<float> widen(const Activation& x) {
  std::vector<float> f(x.data.size());
  for (size_t i = 0; i < f.size(); ++i) f[i] = to_f32(x.data[i]);
  return f;
}

void require_channels(const Activation& x, int want, const char* op) {
  if (x.channels != want || x.data.size() != static_cast<size_t>(x.channels) * static_cast<size_t>(x.time))
    throw std::invalid_argument(std::string(op) + ": input has " + std::to_string(x.channels) + " channels x " +
                                std::to_string(x.time) + " samples, the weight expects " + std::to_string(want) + " channels");
}
}  // namespace

Activation conv1d(const Activation& x, const Conv& c, int dilation, int pad, int threads) {
  require_channels(x, c.in, "conv1d");
  const int64_t t_in = x.time, t_out = t_in + 2 * pad - int64_t(dilation) * (c.kernel - 1);
  if (t_out <= 0) throw std::invalid_argument("conv1d: " + std::to_string(t_in) + " samples are too few for the kernel");
  const std::vector<float> xf = widen(x);
  Activation y{c.out, t_out, std::vector<bf16>(static_cast<size_t>(c.out) * static_cast<size_t>(t_out))};
  parallel_for(c.out, threads, [&](int64_t begin, int64_t end) {
    std::vector<float> acc(static_cast<size_t>(t_out));
    for (int64_t co = begin; co < end; ++co) {
      std::fill(acc.begin(), acc.end(), to_f32(c.bias[static_cast<size_t>(co)]));
      for (int ci = 0; ci < c.in; ++ci) {
        const float* row = xf.data() + static_cast<size_t>(ci) * static_cast<size_t>(t_in);
        for (int k = 0; k < c.kernel; ++k) {
          const float w = to_f32(c.weight[static_cast<size_t>((co * c.in + ci) * c.kernel + k)]);
          const int64_t shift = int64_t(k) * dilation - pad;  // input index = t + shift
          const int64_t lo = std::max<int64_t>(0, -shift), hi = std::min<int64_t>(t_out, t_in - shift);
          for (int64_t t = lo; t < hi; ++t) acc[static_cast<size_t>(t)] += w * row[t + shift];
        }
      }
      bf16* out = y.data.data() + static_cast<size_t>(co) * static_cast<size_t>(t_out);
      for (int64_t t = 0; t < t_out; ++t) out[t] = to_bf16(acc[static_cast<size_t>(t)]);
    }
  });
  return y;
}

Activation conv_transpose1d(const Activation& x, const Conv& c, int stride, int pad, int threads) {
  require_channels(x, c.in, "conv_transpose1d");
  const int64_t t_in = x.time, full = (t_in - 1) * stride + c.kernel, t_out = full - 2 * int64_t(pad);
  if (t_out <= 0) throw std::invalid_argument("conv_transpose1d: output would have no samples");
  const std::vector<float> xf = widen(x);
  Activation y{c.out, t_out, std::vector<bf16>(static_cast<size_t>(c.out) * static_cast<size_t>(t_out))};
  parallel_for(c.out, threads, [&](int64_t begin, int64_t end) {
    std::vector<float> col(static_cast<size_t>(t_in));
    std::vector<bf16> sum(static_cast<size_t>(full));
    for (int64_t co = begin; co < end; ++co) {
      std::fill(sum.begin(), sum.end(), bf16{0});
      for (int k = 0; k < c.kernel; ++k) {
        std::fill(col.begin(), col.end(), 0.0f);
        for (int ci = 0; ci < c.in; ++ci) {
          const float w = to_f32(c.weight[static_cast<size_t>((int64_t(ci) * c.out + co) * c.kernel + k)]);
          const float* row = xf.data() + static_cast<size_t>(ci) * static_cast<size_t>(t_in);
          for (int64_t l = 0; l < t_in; ++l) col[static_cast<size_t>(l)] += w * row[l];
        }
        for (int64_t l = 0; l < t_in; ++l) {
          bf16& s = sum[static_cast<size_t>(l * stride + k)];
          s = to_bf16(to_f32(s) + round_bf16(col[static_cast<size_t>(l)]));
        }
      }
      const float b = to_f32(c.bias[static_cast<size_t>(co)]);
      bf16* out = y.data.data() + static_cast<size_t>(co) * static_cast<size_t>(t_out);
      for (int64_t t = 0; t < t_out; ++t) out[t] = to_bf16(to_f32(sum[static_cast<size_t>(t + pad)]) + b);
    }
  });
  return y;
}

void snake_inplace(Activation& x, const std::vector<bf16>& alpha, int threads) {
  if (alpha.size() != static_cast<size_t>(x.channels))
    throw std::invalid_argument("snake: " + std::to_string(alpha.size()) + " alphas for " + std::to_string(x.channels) + " channels");
  parallel_for(x.channels, threads, [&](int64_t begin, int64_t end) {
    for (int64_t ch = begin; ch < end; ++ch) {
      const float a = to_f32(alpha[static_cast<size_t>(ch)]);
      const float inv = round_bf16(1.0f / round_bf16(a + 1e-9f));
      bf16* row = x.data.data() + static_cast<size_t>(ch) * static_cast<size_t>(x.time);
      for (int64_t t = 0; t < x.time; ++t) {
        const float v = to_f32(row[t]);
        const float s = round_bf16(std::sin(round_bf16(a * v)));
        const float sq = round_bf16(s * s);
        row[t] = to_bf16(v + round_bf16(inv * sq));
      }
    }
  });
}

void tanh_inplace(Activation& x) {
  for (auto& v : x.data) v = to_bf16(std::tanh(to_f32(v)));
}

void add_inplace(Activation& x, const Activation& y) {
  if (x.data.size() != y.data.size())
    throw std::invalid_argument("residual add: " + std::to_string(x.data.size()) + " vs " + std::to_string(y.data.size()) + " elements");
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = to_bf16(to_f32(x.data[i]) + to_f32(y.data[i]));
}

}  // namespace music3::vocoder
