// Gate acoustic.windows: upstream's window arithmetic on the values the oracle cannot all reach (window starts at
// the 200-frame boundary, latent lengths 17/172/344/516/689, the carry span for short windows), the guidance
// constant and order, and the loop's named refusals: arms that disagree on channels, an arm that returns the wrong
// size, no frames, no steps.
#include <gtest/gtest.h>

#include "engine/models/music3/acoustic/acoustic_guidance.h"
#include "engine/models/music3/acoustic/acoustic_stage.h"
#include "engine/models/music3/acoustic/acoustic_windows.h"
#include "gates/lib/gate_env.h"

namespace music3::gates {
namespace {

using acoustic::AcousticError;

TEST(AcousticWindows, StartsLengthsAndCarry) {
  EXPECT_EQ(acoustic::window_starts(1), (std::vector<int64_t>{0}));
  EXPECT_EQ(acoustic::window_starts(200), (std::vector<int64_t>{0}));
  EXPECT_EQ(acoustic::window_starts(201), (std::vector<int64_t>{0, 100}));
  EXPECT_EQ(acoustic::window_starts(300), (std::vector<int64_t>{0, 100}));
  EXPECT_EQ(acoustic::window_starts(301), (std::vector<int64_t>{0, 100, 200}));
  EXPECT_THROW(acoustic::window_starts(0), std::invalid_argument);
  EXPECT_EQ(acoustic::window_frames(100, 250), 150);
  EXPECT_EQ(acoustic::window_frames(0, 250), 200);
  for (auto [n, l] : std::vector<std::pair<int64_t, int64_t>>{{200, 689}, {150, 516}, {100, 344}, {50, 172},
                                                              {5, 17}, {1, 3}, {37, 127}, {101, 347}})
    EXPECT_EQ(acoustic::latent_length(n), l) << "n = " << n;
  const auto c689 = acoustic::carry_span(689), c300 = acoustic::carry_span(300), c100 = acoustic::carry_span(100);
  EXPECT_EQ(c689.begin, 345);
  EXPECT_EQ(c689.end, 517);
  EXPECT_EQ(c300.begin, 0);
  EXPECT_EQ(c300.end, 128);
  EXPECT_EQ(c100.begin, 0);
  EXPECT_EQ(c100.end, 0);
  EXPECT_EQ(acoustic::overlap_length(172, 516), 172);
  EXPECT_EQ(acoustic::overlap_length(128, 100), 100);
}

TEST(AcousticWindows, GuidanceScaleAndOrder) {
  EXPECT_EQ(acoustic::kGuidanceScale, 1.7f);
  const bf16 c = to_bf16(1.0f), u = to_bf16(0.25f);
  bf16 v;
  acoustic::guide(&c, &u, &v, 1);
  EXPECT_EQ(to_f32(v), round_bf16(0.25f + round_bf16(1.7f * 0.75f)));  // u + 1.7 (c - u)
}

// An arm pair whose sizes can be made wrong.
struct FakeEncoder : acoustic::ConditionEncoderArm {
  int64_t channels = 4, extra = 0;
  std::vector<bf16> encode(const bf16*, int64_t, int64_t length) override {
    return std::vector<bf16>(size_t(length * channels + extra));
  }
  int64_t cond_channels() const override { return channels; }
  int64_t forwards() const override { return 0; }
  acoustic::ArmKind kind() const override { return acoustic::ArmKind::Host; }
};
struct FakeDit : acoustic::DitArm {
  int64_t channels = 2, cond = 4, extra = 0;
  acoustic::VelocityPair velocities(const bf16*, int64_t length, bf16, const bf16*) override {
    return {std::vector<bf16>(size_t(length * channels + extra)), std::vector<bf16>(size_t(length * channels))};
  }
  int64_t latent_channels() const override { return channels; }
  int64_t cond_channels() const override { return cond; }
  int64_t forwards() const override { return 0; }
  acoustic::ArmKind kind() const override { return acoustic::ArmKind::Host; }
};

std::string refusal(FakeEncoder& e, FakeDit& d, int64_t frames, int steps) {
  std::vector<bf16> hiddens(size_t(std::max<int64_t>(frames, 1) * 8));
  acoustic::AcousticOptions o;
  o.steps = steps;
  try {
    acoustic::run_acoustic(e, d, hiddens.data(), frames, 8, acoustic::NoiseSource::drawn(0), o);
  } catch (const AcousticError& err) {
    return err.kind();
  } catch (const std::invalid_argument&) {
    return "invalid_argument";
  }
  return "accepted";
}

TEST(AcousticWindows, NamedRefusals) {
  FakeEncoder e;
  FakeDit d;
  EXPECT_EQ(refusal(e, d, 10, 2), "accepted");
  d.cond = 5;
  EXPECT_EQ(refusal(e, d, 10, 2), "geometry");
  d.cond = 4;
  e.extra = 1;
  EXPECT_EQ(refusal(e, d, 10, 2), "arm_output");
  e.extra = 0;
  d.extra = -1;
  EXPECT_EQ(refusal(e, d, 10, 2), "arm_output");
  d.extra = 0;
  EXPECT_EQ(refusal(e, d, 0, 2), "invalid_argument");
  EXPECT_EQ(refusal(e, d, 10, 0), "invalid_argument");
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
