// Gate vocoder.parity: the host arm against the pinned diffusers MiniMaxMusic3Vocoder, every geometry x seed of
// the manifest (4 geometries x 6 seeds), judged by bf16 ULP statistics on the whole stereo waveform, plus exact
// output length and thread-count independence.
#include <gtest/gtest.h>

#include "engine/models/music3/vocoder/vocoder_host_arm.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/vocoder/vocoder_bounds.h"
#include "gates/vocoder/vocoder_oracle.h"

namespace music3::gates {
namespace {

TEST(VocoderParity, HostArmMatchesOracle) {
  const auto cases = vocoder_cases();
  ASSERT_EQ(cases.size(), 24u) << "4 geometries x 6 seeds, or the manifest changed under the gate";
  for (const auto& c : cases) {
    const auto weights = load_vocoder_case(c);
    const std::string golden = vocoder_parity_golden(c);
    const Bf16Tensor latents = read_bf16(golden, "latents"), expected = read_bf16(golden, "waveform");
    ASSERT_EQ(latents.shape.size(), 3u);
    vocoder::VocoderHostArm arm(weights, 1);
    const auto got = arm.decode(latents.data.data(), latents.shape[2]);
    ASSERT_EQ(expected.shape, (std::vector<int64_t>{1, 2, got.samples})) << c.name() << ": sample count";
    ASSERT_EQ(got.data.size(), expected.data.size()) << c.name();
    const UlpStats s = ulp_stats(got.data, expected.data);
    EXPECT_EQ(s.nonzero_refs + s.zero_refs, s.compared) << c.name();
    EXPECT_EQ(s.nonfinite, 0u) << c.name();
    check_ulp("vocoder.parity", c.name(), "waveform", s, vocoder_bounds::kVsOracle);
    const double exact = double(s.exact) / double(s.compared);
    record("vocoder.parity", c.name(), "exact_fraction", exact, vocoder_bounds::kMinExactFraction, BoundKind::Lower);
    EXPECT_GE(exact, vocoder_bounds::kMinExactFraction) << c.name();
  }
}

TEST(VocoderParity, ThreadCountDoesNotChangeBits) {
  const auto c = vocoder_cases().back();
  const auto weights = load_vocoder_case(c);
  const Bf16Tensor latents = read_bf16(vocoder_parity_golden(c), "latents");
  vocoder::VocoderHostArm one(weights, 1), many(weights, 4);
  const auto a = one.decode(latents.data.data(), latents.shape[2]);
  const auto b = many.decode(latents.data.data(), latents.shape[2]);
  ASSERT_EQ(a.data.size(), b.data.size());
  size_t differing = 0;
  for (size_t i = 0; i < a.data.size(); ++i) differing += a.data[i].bits != b.data[i].bits;
  record("vocoder.parity", c.name(), "threads_1_vs_4_differing", double(differing), 0);
  EXPECT_EQ(differing, 0u);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
