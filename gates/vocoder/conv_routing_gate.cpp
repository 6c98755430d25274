// Gate vocoder.conv_routing (CUDA builds with the CUTLASS headers; runs on the CPU, no GPU needed): which CUDA
// conv1d provider the registry picks for every conv of the full geometry's window (689 latents, both streams), as
// the device arm issues them with the preferred weight layout, with channels-first and with channels-last activations
// (the arm's default there). supports() is host code (CUTLASS's can_implement() included), so the routing is checked
// here without a device: every conv with channel counts that are multiples of 8 goes to cuda.conv1d.cutlass (a
// can_implement() refusal would silently leave the window on cuBLAS), but for the channels-first 1x1 convs, which
// with the channels-first conv_out (Cout 1) go to cuda.conv1d from the same staging, and the channels-last conv_out,
// which goes to cuda.conv1d.narrow_staged (a refusal would silently leave it on the slower narrow kernel); on an
// H200 the channels-last ones go to cuda.conv1d.cutlass_sm90 instead, and every one of those fits its tiles
// (checked on any machine, so a refusal cannot silently leave the window on the SM80 kernels). The device arm issues each residual unit's 1x1 conv with the
// unit's identity as conv1d's residual epilogue: those calls, on an H200, go to cuda.conv1d.cutlass_sm90.fused
// (elsewhere no provider takes them and the entry runs the plain routing above, then the separate add), and every
// one of them fits its tile with that epilogue. The tensors are views of a never-read address.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/models/music3/vocoder/vocoder_config.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/registry.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::gates {
namespace {

struct ConvCall {
  std::string name;
  int64_t cin, cout, time, taps;
  int dilation, pad;
  bool residual = false;  // issued with the residual epilogue
};

std::vector<ConvCall> full_window_convs() {
  const auto cfg = vocoder::VocoderConfig::full();
  const int k = vocoder::VocoderConfig::kKernel;
  int64_t t = 689;
  std::vector<ConvCall> out = {{"dec_in_proj", cfg.stream_channels(), cfg.input_dim, t, 1, 1, 0},
                               {"conv_in", cfg.input_dim, cfg.hidden_dim, t, k, 1, k / 2}};
  for (int b = 0; b < cfg.blocks(); ++b) {
    t *= cfg.ratios[size_t(b)];
    const int64_t c = cfg.stage_width(b + 1);
    for (int u = 0; u < 3; ++u) {
      const int d = vocoder::VocoderConfig::kDilations[u];
      const std::string unit = "blocks." + std::to_string(b) + ".res_unit" + std::to_string(u + 1);
      out.push_back({unit + ".conv1", c, c, t, k, d, d * (k - 1) / 2});
      out.push_back({unit + ".conv2", c, c, t, 1, 1, 0, true});
    }
  }
  out.push_back({"conv_out", cfg.stage_width(cfg.blocks()), 1, t, k, 1, k / 2});
  return out;
}

// How many of the full window's convs the registry sends to CUTLASS (either kernel family) with activations in
// `act` (each conv without its epilogue: where no provider fuses it, the entry runs that call); sm90_takes counts
// those the sm90 tiles take, fused_takes those issued with the residual that the sm90 tiles take with it (host code:
// the same answer on any machine).
int cutlass_convs(ops::ActLayout act, int& sm90_takes, int& fused_takes) {
  const auto layout = ops::ConvWeightLayout::OutTapIn;
  alignas(256) static char never_read[256];
  int cutlass = 0;
  sm90_takes = fused_takes = 0;
  for (const auto& c : full_window_convs()) {
    const int64_t t_out = c.time + 2 * c.pad - int64_t(c.dilation) * (c.taps - 1);
    const auto view = [](DType dt, Shape s) { return Tensor{never_read, dt, s, DeviceType::CUDA}; };
    const ops::Conv1dArgs args{view(DType::BF16, ops::act_shape(act, 2, c.cin, c.time)),
                               view(DType::BF16, ops::conv_weight_shape(layout, c.taps, c.cout, c.cin)),
                               view(DType::BF16, {c.cout}),
                               view(DType::BF16, ops::act_shape(act, 2, c.cin, c.time + 2 * c.pad)),
                               view(DType::F32, ops::act_shape(act, 2, c.cout, t_out)),
                               view(DType::BF16, ops::act_shape(act, 2, c.cout, t_out)),
                               c.dilation,
                               c.pad,
                               layout,
                               act};
    const ops::Provider* p = ops::registry().find(ops::OpId::Conv1d, DeviceType::CUDA, &args);
    EXPECT_NE(p, nullptr) << c.name;
    if (!p) continue;
    const bool aligned = c.cin % 8 == 0 && c.cout % 8 == 0, one_tap_first = c.taps == 1 && act == ops::ActLayout::ChannelsFirst;
    const bool narrow_staged = c.cout <= 4 && c.cin % 8 == 0 && act == ops::ActLayout::ChannelsLast;
    // On an H200 the sm90 kernels take what their tiles take (counted by sm90_convs below); elsewhere the SM80 ones.
    const bool sm90 = p->name == "cuda.conv1d.cutlass_sm90";
    const char* want = narrow_staged ? "cuda.conv1d.narrow_staged"
                       : aligned && !one_tap_first ? "cuda.conv1d.cutlass"
                                                   : "cuda.conv1d";
    EXPECT_EQ(sm90 ? "cuda.conv1d.cutlass" : p->name, want) << c.name << " " << ops::act_layout_name(act);
    EXPECT_TRUE(!sm90 || ops::conv1d_cutlass_sm90_takes(args)) << c.name;
    cutlass += p->name == "cuda.conv1d.cutlass" || sm90;
    sm90_takes += ops::conv1d_cutlass_sm90_takes(args);
    if (!c.residual) continue;
    ops::Conv1dArgs fused = args;
    fused.residual = fused.out;
    fused_takes += ops::conv1d_cutlass_sm90_takes(fused);
    // With the residual the call goes to the fused sm90 kernels (an H200) or to no provider (the entry's path).
    const ops::Provider* f = ops::registry().find(ops::OpId::Conv1d, DeviceType::CUDA, &fused);
    EXPECT_EQ(f ? f->name : "", sm90 ? "cuda.conv1d.cutlass_sm90.fused" : "") << c.name;
  }
  return cutlass;
}

TEST(VocoderConvRouting, FullWindowConvsGoToCutlassWhereAligned) {
  Queue probe_q;
  probe_q.device = DeviceType::CUDA;
  EXPECT_EQ(ops::preferred_conv1d_layout(probe_q), ops::ConvWeightLayout::OutTapIn)
      << "the CUTLASS provider's layout is the preferred one";
  int sm90 = 0, fused = 0;
  EXPECT_EQ(cutlass_convs(ops::ActLayout::ChannelsFirst, sm90, fused), 13) << "conv_in and the 12 dilated residual convs";
  EXPECT_EQ(sm90, 0) << "the sm90 kernels take channels-last activations only";
  EXPECT_EQ(fused, 0);
  EXPECT_EQ(cutlass_convs(ops::ActLayout::ChannelsLast, sm90, fused), 26)
      << "dec_in_proj, conv_in and the 24 residual convs: all but conv_out (Cout 1)";
  EXPECT_EQ(sm90, 26) << "every one of them fits an sm90 tile and CUTLASS's can_implement() (on an H200 they run there)";
  EXPECT_EQ(fused, 12) << "the 12 1x1 residual convs fit their tiles with the residual epilogue too";
}

}  // namespace
}  // namespace music3::gates
