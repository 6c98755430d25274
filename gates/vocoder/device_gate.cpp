// Gate vocoder.device: the device arm (op entry points) on the gate's queue (--device cpu|cuda).
//  - CPU queue: the device arm on the CPU providers is bit-identical to the host arm on every parity case.
//  - any queue: the device arm against the pinned upstream module (parity goldens; the host arm's bounds on a CPU
//    queue, the CUDA band of vocoder_bounds.h otherwise), its band against the host arm, the 3-window stitching case, its resident bytes (every weight staged once,
//    bf16), its decode counter, and reachability: the ops it declares (what selection checks) are exactly the ops
//    whose providers the table records as run; and the arm forced to each conv1d weight layout and activation layout
//    pair a provider takes (the default arm is channels-last where its conv provider takes that).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "engine/models/music3/vocoder/vocoder_device_arm.h"
#include "engine/models/music3/vocoder/vocoder_host_arm.h"
#include "engine/models/music3/vocoder/vocoder_stitch.h"
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

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
