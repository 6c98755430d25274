// Gate vocoder.device: the device arm (op entry points) on the gate's queue (--device cpu|cuda).
//  - CPU queue: the device arm on the CPU providers is bit-identical to the host arm on every parity case.
//  - any queue: the device arm against the pinned upstream module (parity goldens; the host arm's bounds on a CPU
//    queue, the CUDA band of vocoder_bounds.h otherwise), its band against the host arm, the 3-window stitching case, its resident bytes (every weight staged once,
//    bf16), its decode counter, and reachability: the ops it declares (what selection checks) are exactly the ops
//    whose providers the table records as run; and the arm forced to each conv1d weight layout and activation layout
//    pair a provider takes (the default arm is channels-last where its conv provider takes that).
//  - where cuda.conv1d.cutlass_sm90.fused is enabled: the window at the full geometry (synthetic weights; the oracle
//    geometries are at most 64 channels wide, below every sm90 tile) with the residuals added in the sm90 kernels'
//    epilogue and with them added by the separate add after the conv: the same bits, and on a device where the sm90
//    kernels run, the fused provider took every residual unit's 1x1 conv.
//  - where cuda.conv_transpose1d.staged is enabled (every CUDA run but `_unstaged`): the same window with and without
//    it, the same bits, and it took every up-block's transposed conv; likewise cuda.conv1d.narrow_staged, which must
//    take conv_out.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "engine/models/music3/vocoder/vocoder_device_arm.h"
#include "engine/models/music3/vocoder/vocoder_host_arm.h"
#include "engine/models/music3/vocoder/vocoder_stitch.h"
#include "engine/models/music3/vocoder/vocoder_synthetic.h"
#include "engine/ops/registry.h"
#include "engine/ops/vocoder_ops.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/vocoder/vocoder_bounds.h"
#include "gates/vocoder/vocoder_oracle.h"

namespace music3::gates {
namespace {

std::string gate_id() { return "vocoder.device_" + gate_device_name() + gate_variant(); }

TEST(VocoderDevice, ParityBandResidencyAndReachability) {
  const Queue q = gate_queue(1);
  const auto cases = vocoder_cases();
  ASSERT_EQ(cases.size(), 24u);
  const UlpBounds& bounds = q.is_cpu() ? vocoder_bounds::kVsOracle : vocoder_bounds::kCudaVsOracle;
  const double min_exact = q.is_cpu() ? vocoder_bounds::kMinExactFraction : vocoder_bounds::kCudaMinExactFraction;
  for (const auto& c : cases) {
    const auto weights = load_vocoder_case(c);
    const std::string golden = vocoder_parity_golden(c);
    const Bf16Tensor latents = read_bf16(golden, "latents"), expected = read_bf16(golden, "waveform");
    vocoder::VocoderHostArm host(weights, 1);
    vocoder::VocoderDeviceArm device(weights, q);
    EXPECT_EQ(device.staged_bytes(), weights.bytes()) << c.name() << ": resident bf16 weights";
    if (q.is_cpu()) {
      EXPECT_EQ(device.act_layout(), ops::ActLayout::ChannelsLast) << "the CPU conv1d provider takes channels-last";
    }
    const auto h = host.decode(latents.data.data(), latents.shape[2]);
    const auto d = device.decode(latents.data.data(), latents.shape[2]);
    EXPECT_EQ(device.forwards(), 1) << c.name();
    ASSERT_EQ(d.samples, h.samples) << c.name();
    ASSERT_EQ(d.data.size(), expected.data.size()) << c.name();
    const UlpStats vs_oracle = ulp_stats(d.data, expected.data);
    EXPECT_EQ(vs_oracle.nonfinite, 0u) << c.name();
    check_ulp(gate_id(), c.name(), "waveform_vs_oracle", vs_oracle, bounds);
    const double exact = double(vs_oracle.exact) / double(vs_oracle.compared);
    record(gate_id(), c.name(), "exact_fraction", exact, min_exact, BoundKind::Lower);
    EXPECT_GE(exact, min_exact) << c.name();
    const UlpStats band = ulp_stats(d.data, h.data);
    if (q.is_cpu()) {
      record(gate_id(), c.name(), "cpu_providers_differing_from_host", double(band.compared - band.exact), 0);
      EXPECT_EQ(band.exact, band.compared) << c.name() << ": the CPU providers must reproduce the host arm bit for bit";
    } else {
      check_ulp(gate_id(), c.name(), "waveform_vs_host", band, bounds);
    }
  }
}

// Each conv1d weight layout with each activation layout an enabled provider of the queue's device takes (the arm
// stages the preferred pair; the benches force each): on the CPU providers every one reproduces the host arm bit for
// bit (so the stagings the cuDNN and the CUTLASS providers read, and the channels-last activations, are checked here
// too); on CUDA each stays in the band against the host arm.
TEST(VocoderDevice, EveryConvWeightLayoutWithAProvider) {
  const Queue q = gate_queue(1);
  int layouts = 0;
  for (const auto layout : ops::kConvWeightLayouts) {
    for (const auto act : ops::kActLayouts) {
      ops::Conv1dArgs probe{};
      probe.layout = layout, probe.act = act;
      if (!ops::registry().find(ops::OpId::Conv1d, q.device, &probe)) continue;
      ++layouts;
      const std::string tag = std::string(ops::conv_weight_layout_name(layout)) +
                              (act == ops::ActLayout::ChannelsLast ? "/channels_last" : "");
      for (const auto& c : vocoder_cases()) {
        if (c.seed != 0) continue;  // one case per geometry
        const auto weights = load_vocoder_case(c);
        const Bf16Tensor latents = read_bf16(vocoder_parity_golden(c), "latents");
        vocoder::VocoderHostArm host(weights, 1);
        vocoder::VocoderDeviceArm device(weights, q, layout, act);
        EXPECT_EQ(device.conv_layout(), layout);
        EXPECT_EQ(device.act_layout(), act);
        EXPECT_EQ(device.staged_bytes(), weights.bytes()) << c.name();
        const auto h = host.decode(latents.data.data(), latents.shape[2]);
        const auto d = device.decode(latents.data.data(), latents.shape[2]);
        ASSERT_EQ(d.data.size(), h.data.size()) << c.name();
        const UlpStats band = ulp_stats(d.data, h.data);
        if (q.is_cpu()) {
          record(gate_id(), c.name() + "/" + tag, "cpu_providers_differing_from_host", double(band.compared - band.exact), 0);
          EXPECT_EQ(band.exact, band.compared) << c.name() << " " << tag;
        } else {
          check_ulp(gate_id(), c.name() + "/" + tag, "waveform_vs_host", band, vocoder_bounds::kCudaVsOracle);
        }
      }
    }
  }
  EXPECT_GE(layouts, 1);
  if (q.is_cpu()) {
    EXPECT_EQ(layouts, 6) << "the CPU conv1d provider takes every weight layout with either activation layout";
  }
}

TEST(VocoderDevice, DeclaredOpsAreExactlyTheOpsThatRan) {
  const Queue q = gate_queue(1);
  const auto weights = load_vocoder_case({"narrow", 1});
  const Bf16Tensor latents = read_bf16(vocoder_parity_golden({"narrow", 1}), "latents");
  vocoder::VocoderDeviceArm device(weights, q);
  ops::registry().reset_usage();
  device.decode(latents.data.data(), latents.shape[2]);
  std::set<ops::OpId> ran, declared(vocoder::VocoderDeviceArm::ops().begin(), vocoder::VocoderDeviceArm::ops().end());
  for (const auto& use : ops::registry().usage())
    if (use.device == q.device && use.calls > 0) ran.insert(use.op);
  record(gate_id(), "narrow/seed1", "ops_ran_not_declared", double(std::count_if(ran.begin(), ran.end(), [&](auto op) {
           return !declared.count(op);
         })), 0);
  EXPECT_EQ(ran, declared);
}

TEST(VocoderDevice, StitchesThreeWindows) {
  const Queue q = gate_queue(1);
  const int seed = 2;  // the 3-window case
  const auto weights = load_vocoder_case({vocoder_stitch_geometry(), seed});
  vocoder::VocoderDeviceArm device(weights, q);
  std::vector<vocoder::Waveform> windows;
  for (int i = 0; i < 3; ++i) {
    const Bf16Tensor lat = read_bf16(vocoder_stitch_golden(seed), "window" + std::to_string(i));
    windows.push_back(device.decode(lat.data.data(), lat.shape[2]));
  }
  EXPECT_EQ(device.forwards(), 3);
  const auto got = vocoder::stitch(windows);
  std::vector<int64_t> shape;
  const auto expected = read_f32(vocoder_stitch_golden(seed), "audio", &shape);
  ASSERT_EQ(shape, (std::vector<int64_t>{1, 2, got.samples}));
  const UlpStats s = ulp_stats(got.data.data(), expected.data(), expected.size(), UlpScale::F32);
  check_ulp(gate_id(), "narrow/seed2/windows3", "audio", s,
            q.is_cpu() ? vocoder_bounds::kAudioExact : vocoder_bounds::kCudaAudioVsOracle);
}

uint64_t provider_calls(const std::string& name) {
  for (const auto& use : ops::registry().usage())
    if (use.name == name) return use.calls;
  return 0;
}

// The window at the full geometry (synthetic weights seed 3, 21 latents: 168 positions in the first block, one full
// 128-row tile and a partial one), decoded with `provider` in selection and again with it taken out: the samples that
// differ, and the calls each named provider took in the first decode.
struct WithAndWithout {
  size_t differ = 0, samples = 0;
  std::vector<uint64_t> calls;  // per name in `counted`, with `provider` in selection
  ops::ActLayout act = ops::ActLayout::ChannelsLast;  // the arm's activations, as selection chose them
};
WithAndWithout full_window_with_and_without(const Queue& q, const std::string& provider,
                                            const std::vector<std::string>& counted) {
  const auto cfg = vocoder::vocoder_geometry("full");
  const auto weights = vocoder::synthetic_vocoder_weights(cfg, 3);
  const int64_t latents = 21;
  const auto lat = vocoder::synthetic_latents(cfg, latents, 4);
  vocoder::VocoderDeviceArm device(weights, q);
  ops::registry().reset_usage();
  const vocoder::Waveform with = device.decode(lat.data(), latents);
  WithAndWithout r;
  r.act = device.act_layout();
  for (const auto& name : counted) r.calls.push_back(provider_calls(name));
  ops::registry().set_enabled(provider, false);
  const vocoder::Waveform without = device.decode(lat.data(), latents);
  ops::registry().set_enabled(provider, true);
  EXPECT_EQ(with.data.size(), without.data.size());
  r.samples = std::min(with.data.size(), without.data.size());
  for (size_t i = 0; i < r.samples; ++i) r.differ += with.data[i].bits != without.data[i].bits;
  std::printf("vocoder.device: full geometry, %lld latents: with %s, %zu of %zu samples differ from without it;",
              static_cast<long long>(latents), provider.c_str(), r.differ, r.samples);
  for (size_t i = 0; i < counted.size(); ++i)
    std::printf(" %s took %llu calls;", counted[i].c_str(), static_cast<unsigned long long>(r.calls[i]));
  std::printf("\n");
  return r;
}

TEST(VocoderDevice, FusedResidualGivesTheUnfusedBits) {
  const std::string fused = "cuda.conv1d.cutlass_sm90.fused";
  const Queue q = gate_queue(1);
  if (q.is_cpu()) GTEST_SKIP() << fused << " is a CUDA provider; this run's queue is the CPU";
  if (!ops::registry().enabled(fused)) GTEST_SKIP() << fused << " is not built or is disabled in this run";
  const auto r = full_window_with_and_without(q, fused, {fused, "cuda.conv1d.cutlass_sm90"});
  record(gate_id(), "full/synthetic3", "fused_residual_samples_differ", double(r.differ), 0);
  EXPECT_EQ(r.differ, 0u);
  if (r.calls[1] > 0) {  // the plain sm90 kernels ran: the fused ones must have taken every residual unit's 1x1 conv
    EXPECT_EQ(r.calls[0], uint64_t(3 * vocoder::vocoder_geometry("full").blocks()));
  }
}

// A channels-last provider against the older path it replaced (the window with it out of selection), at the full
// geometry: the same bits, and it took `calls` of the window's ops on a channels-last arm, none on a channels-first one
// (the `_cudnn` run, whose cuDNN convs take channels-first activations: the staged kernels must decline every call
// there). Its metric `<metric>_samples_differ`. Skipped on a CPU queue and where the provider is disabled (the
// `_unstaged` runs).
void expect_replacement_gives_the_same_bits(const std::string& provider, const std::string& metric, uint64_t calls) {
  const Queue q = gate_queue(1);
  if (q.is_cpu()) GTEST_SKIP() << provider << " is a CUDA provider; this run's queue is the CPU";
  if (!ops::registry().enabled(provider)) GTEST_SKIP() << provider << " is disabled in this run";
  const auto r = full_window_with_and_without(q, provider, {provider});
  record(gate_id(), "full/synthetic3", metric + "_samples_differ", double(r.differ), 0);
  EXPECT_EQ(r.differ, 0u);
  const uint64_t expected = r.act == ops::ActLayout::ChannelsLast ? calls : 0;
  EXPECT_EQ(r.calls[0], expected) << provider << " on " << ops::act_layout_name(r.act) << " activations";
}

// The staged col2im against cuda.conv_transpose1d at the full geometry's up-blocks (768, 384, 192 and 96 output
// channels, strides 8, 8, 4, 2): it must take all four.
TEST(VocoderDevice, StagedTransposedConvGivesTheGatherBits) {
  expect_replacement_gives_the_same_bits("cuda.conv_transpose1d.staged", "staged_col2im",
                                         uint64_t(vocoder::vocoder_geometry("full").blocks()));
}

// The narrow conv with 16-byte staging against cuda.conv1d's narrow kernel at conv_out (96 -> 1, k 7), the window's
// one narrow conv.
TEST(VocoderDevice, NarrowStagedConvGivesTheNarrowKernelsBits) {
  expect_replacement_gives_the_same_bits("cuda.conv1d.narrow_staged", "narrow_staged", 1);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
