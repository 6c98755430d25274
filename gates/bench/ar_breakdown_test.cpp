// ar-frame-breakdown's accounting (bench/ar/ar_frame_measure.h) on the AR stage's device arms over the CPU providers,
// small geometry: the loop took its device-resident frame; every observed frame is a whole iteration (one LM sample,
// one feedback embedding, one final norm, the depth stage's seven draws, per frame); on the CPU nothing is captured,
// so the replays are 0 and every op is a row; the figures are positive and add up (rest = production - work).
#include <gtest/gtest.h>

#include <map>

#include "bench/ar/ar_frame_measure.h"
#include "engine/core/queue.h"

namespace music3::bench {
namespace {

TEST(ArFrameBreakdown, EveryObservedFrameIsOneWholeIteration) {
  constexpr int kFrames = 7;
  const FrameBreakdown b = measure_ar_frame(queue_by_name("cpu"), "small", kFrames);
  EXPECT_TRUE(b.device_frame);
  EXPECT_EQ(b.frames, kFrames - kArFrameWarmup - 1);  // less the warm-up iterations and the last one
  std::map<std::string, double> calls;
  for (const auto& r : b.ops) calls[r.label] = double(r.calls) / b.frames;
  EXPECT_EQ(calls["lm_sample"], 1.0);
  EXPECT_EQ(calls["feedback_embedding"], 1.0);
  EXPECT_EQ(calls["rms_norm"], 1.0);  // the LM's final norm, once per decode
  EXPECT_EQ(calls["exp_draws"], 1.0);  // the depth frame's 7 steps in one [7, V] call
  EXPECT_EQ(b.graphs_ms, 0.0);
  EXPECT_GT(b.production_ms, 0.0);
  EXPECT_GT(b.observed_ms, 0.0);
  EXPECT_GT(b.ops_ms(), 0.0);
  EXPECT_DOUBLE_EQ(b.rest_ms(), b.production_ms - b.ops_ms());
}

}  // namespace
}  // namespace music3::bench
