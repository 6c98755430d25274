// Gate vocoder.stitch: per-window host decode, crops, concatenation and clamp against upstream's
// MiniMaxMusic3VocoderDecodeStep for 1, 2 and 3 windows (6 seeds), exact sample counts, the clamp on
// out-of-range samples, and the refusal of a window shorter than its crops.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/models/music3/vocoder/vocoder_stitch.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/vocoder/vocoder_bounds.h"
#include "gates/vocoder/vocoder_oracle.h"

namespace music3::gates {
namespace {

TEST(VocoderStitch, MatchesUpstreamDecodeBlock) {
  const auto seeds = vocoder_stitch_seeds();
  ASSERT_EQ(seeds.size(), 6u);
  int windows_seen[4] = {0, 0, 0, 0};
  for (int seed : seeds) {
    const VocoderCase c{vocoder_stitch_geometry(), seed};
    const auto weights = load_vocoder_case(c);
    const std::string golden = vocoder_stitch_golden(seed);
    vocoder::VocoderHostArm arm(weights, 0);
    std::vector<vocoder::Waveform> windows;
    for (int i = 0;; ++i) {
      const std::string name = "window" + std::to_string(i);
      Bf16Tensor lat;
      try {
        lat = read_bf16(golden, name);
      } catch (const std::runtime_error&) {
        break;
      }
      windows.push_back(arm.decode(lat.data.data(), lat.shape[2]));
    }
    ASSERT_GE(windows.size(), 1u);
    ASSERT_LE(windows.size(), 3u);
    ++windows_seen[windows.size()];
    EXPECT_EQ(arm.forwards(), int64_t(windows.size())) << c.name();
    std::vector<int64_t> shape;
    const std::vector<float> expected = read_f32(golden, "audio", &shape);
    const auto got = vocoder::stitch(windows);
    const std::string name = c.name() + "/windows" + std::to_string(windows.size());
    ASSERT_EQ(shape, (std::vector<int64_t>{1, 2, got.samples})) << name << ": sample count";
    const UlpStats s = ulp_stats(got.data.data(), expected.data(), expected.size(), UlpScale::F32);
    EXPECT_EQ(s.nonfinite, 0u) << name;
    check_ulp("vocoder.stitch", name, "audio", s, vocoder_bounds::kAudioExact);
    const double exact = double(s.exact) / double(s.compared);
    record("vocoder.stitch", name, "exact_fraction", exact, vocoder_bounds::kMinExactFraction, BoundKind::Lower);
    EXPECT_GE(exact, vocoder_bounds::kMinExactFraction) << name;
  }
  EXPECT_EQ(windows_seen[1], 2);
  EXPECT_EQ(windows_seen[2], 2);
  EXPECT_EQ(windows_seen[3], 2);
}

vocoder::Waveform ramp(int64_t latents, float scale) {
  vocoder::Waveform w;
  w.samples = latents * vocoder::kStitchHop;
  for (int s = 0; s < 2; ++s)
    for (int64_t t = 0; t < w.samples; ++t) w.data.push_back(to_bf16(scale * float(s ? -1 : 1) * float(t % 7 - 3) / 2.0f));
  return w;
}

TEST(VocoderStitch, ClampsAndCropsByTheConditionEncoderHop) {
  // Samples up to +-1.5 (a vocoder ends in tanh, so only the clamp keeps a defect's out-of-range values in).
  const std::vector<vocoder::Waveform> windows = {ramp(300, 1.0f), ramp(400, 1.0f), ramp(100, 1.0f)};
  const auto a = vocoder::stitch(windows);
  EXPECT_EQ(a.samples, (300 - 258 + 400 - 344 + 100 - 86) * 512);
  size_t outside = 0, clamped = 0;
  for (float v : a.data) {
    outside += std::fabs(v) > 1.0f;
    clamped += std::fabs(v) == 1.0f;
  }
  record("vocoder.stitch", "ramp", "samples_outside_unit", double(outside), 0);
  EXPECT_EQ(outside, 0u);
  EXPECT_GT(clamped, 0u);
  // The middle window's first kept sample is its sample 86*512 (ramp value (86*512 % 7 - 3) / 2).
  const int64_t first_mid = 42 * 512;
  EXPECT_EQ(a.data[static_cast<size_t>(first_mid)], std::clamp(float((86 * 512) % 7 - 3) / 2.0f, -1.0f, 1.0f));
  // Right stream is stored after the left one and is the negated ramp.
  EXPECT_EQ(a.data[static_cast<size_t>(a.samples + 5)], -a.data[5]);
}

TEST(VocoderStitch, SampleCountsAndRefusals) {
  EXPECT_EQ(vocoder::single_window_samples(250), 512 * 861);  // 10 s at 25 Hz -> int(861.33) latents
  EXPECT_EQ(vocoder::single_window_samples(125), 512 * 430);
  EXPECT_EQ(vocoder::single_window_samples(5), 512 * 17);
  EXPECT_THROW(vocoder::stitch({}), std::invalid_argument);
  try {
    vocoder::stitch({ramp(300, 1.0f), ramp(300, 1.0f), ramp(100, 1.0f)});
    ADD_FAILURE() << "a 300-latent middle window (crops 86 + 258) was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("window 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
