#include "bench/vocoder/vocoder_stage_costs.h"

#include "engine/models/music3/vocoder/vocoder_stages.h"

namespace music3::bench {
namespace {

constexpr double kStreams = 2, kBf16 = 2;

// One activation pass over both streams: C x T bf16 values each.
double pass(int64_t channels, int64_t time) { return kStreams * double(channels) * double(time) * kBf16; }

// A conv reading x [C_in, T_in], its weights and bias, writing y [C_out, T_out].
double conv_bytes(int64_t cin, int64_t t_in, int64_t cout, int64_t t_out, int64_t taps) {
  return pass(cin, t_in) + (double(cout) * double(cin) * double(taps) + double(cout)) * kBf16 + pass(cout, t_out);
}

double conv_flops(int64_t cin, int64_t cout, int64_t taps, int64_t positions) {
  return 2 * kStreams * double(cin) * double(cout) * double(taps) * double(positions);
}

}  // namespace

std::vector<StageCost> stage_costs(const vocoder::VocoderConfig& cfg, int64_t latents) {
  using K = vocoder::Stage::Kind;
  const int64_t k = vocoder::VocoderConfig::kKernel;
  std::vector<StageCost> out;
  int64_t c = cfg.stream_channels(), t = latents;
  for (const vocoder::Stage& s : vocoder_stages(cfg)) {
    StageCost e{s.name(), c, c, t, 0, 0};
    switch (s.kind) {
      case K::DecInProj:
      case K::ConvIn:
      case K::ConvOut: {
        const int64_t cout = s.kind == K::DecInProj ? cfg.input_dim : s.kind == K::ConvIn ? cfg.hidden_dim : 1;
        const int64_t taps = s.kind == K::DecInProj ? 1 : k;
        e.flops = conv_flops(c, cout, taps, t);
        e.bytes = conv_bytes(c, t, cout, t, taps);
        e.channels_out = c = cout;
        break;
      }
      case K::BlockSnake:
      case K::SnakeOut:
      case K::Tanh:
        e.bytes = 2 * pass(c, t) + (s.kind == K::Tanh ? 0 : double(c) * kBf16);
        break;
      case K::BlockUp: {
        const int stride = cfg.ratios[size_t(s.block)];
        const int64_t cout = cfg.stage_width(s.block + 1), taps = 2 * stride;
        const int64_t l_out = (t - 1) * stride - 2 * int64_t(vocoder::transposed_padding(stride)) + taps;
        e.flops = conv_flops(c, cout, taps, t);
        e.bytes = conv_bytes(c, t, cout, l_out, taps) + 2 * pass(cout * taps, t);  // the columns written and read
        e.channels_out = c = cout;
        e.time_out = t = l_out;
        break;
      }
      case K::ResidualUnit:  // snake, k7 conv, snake in place, 1x1 conv, add (x and r read, x written)
        e.flops = conv_flops(c, c, k, t) + conv_flops(c, c, 1, t);
        e.bytes = 2 * pass(c, t) + conv_bytes(c, t, c, t, k) + 2 * pass(c, t) + conv_bytes(c, t, c, t, 1) +
                  3 * pass(c, t) + 2 * double(c) * kBf16;
        break;
    }
    out.push_back(e);
  }
  return out;
}

}  // namespace music3::bench
