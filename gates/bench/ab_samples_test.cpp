// ab-bench streams its samples: a header line, then one line per arm and repetition
// carrying exactly the samples the analysis uses, written as each is measured.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

#include "bench/ab/ab_run.h"

namespace music3::bench {
namespace {

// A fake arm whose repetitions return fixed frame times and which stops after `limit`.
class FixedArm : public Arm {
 public:
  FixedArm(double ms, int limit) : ms_(ms), limit_(limit) {}
  std::vector<double> run_repetition(int, int frames) override {
    if (calls_++ == limit_) throw std::runtime_error("cut");
    return std::vector<double>(static_cast<size_t>(frames), ms_ + calls_ * 1e-3);
  }
  nlohmann::json describe() const override { return {{"fake", ms_}}; }
  std::string gated_binary() const override { return ""; }

 private:
  double ms_;
  int limit_, calls_ = 0;
};

std::vector<nlohmann::json> lines_of(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(nlohmann::json::parse(l));
  return out;
}

TEST(AbSamples, EveryRepetitionIsStreamedAsMeasured) {
  FixedArm a(1.0, 100), b(2.0, 100);
  AbOptions o;
  o.reps = 9;
  o.frames = 3;
  std::ostringstream progress, samples;
  const AbResult r = run_ab(a, "fake:a", b, "fake:b", o, {}, progress, &samples);
  const auto lines = lines_of(samples.str());
  ASSERT_EQ(lines.size(), 1u + 2u * 9u);
  EXPECT_EQ(lines[0]["schema"], "music3-ab-samples/1");
  for (int rep = 0; rep < 9; ++rep) {
    const auto& la = lines[1 + 2 * rep];
    const auto& lb = lines[2 + 2 * rep];
    EXPECT_EQ(la["arm"], "A");
    EXPECT_EQ(lb["arm"], "B");
    EXPECT_EQ(la["frame_ms"].get<std::vector<double>>(), r.a.frame_ms[size_t(rep)]);
    EXPECT_EQ(lb["median_ms"].get<double>(), r.b.rep_ms[size_t(rep)]);
  }
}

TEST(AbSamples, ACutRunKeepsWhatItMeasured) {
  FixedArm a(1.0, 4), b(2.0, 100);  // A fails on its 5th call: the discarded one, then 3 timed
  AbOptions o;
  o.reps = 9;
  o.frames = 2;
  std::ostringstream progress, samples;
  EXPECT_THROW(run_ab(a, "fake:a", b, "fake:b", o, {}, progress, &samples), std::runtime_error);
  EXPECT_EQ(lines_of(samples.str()).size(), 1u + 2u * 3u);
}

}  // namespace
}  // namespace music3::bench
