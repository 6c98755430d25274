// Gate acoustic.scheduler: the flow-matching schedule bit-exact against the real FlowMatchEulerDiscreteScheduler
// (num_train_timesteps 1, shift 1, invert_sigmas) for every N of the golden's list (1 ... 1000): the N + 1 sigmas
// and the bf16 timesteps; plus the documented facts of the Euler step (bf16(1/30) and the rounded dt).
#include <gtest/gtest.h>

#include "engine/models/music3/acoustic/acoustic_scheduler.h"
#include "gates/acoustic/loop_bounds.h"
#include "gates/acoustic/loop_oracle.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"

namespace music3::gates {
namespace {

TEST(AcousticScheduler, SigmasBitExactToUpstream) {
  const std::string file = loop_schedules_file();
  const auto steps = loop_schedule_steps();
  ASSERT_GE(steps.size(), 10u);
  for (int n : steps) {
    const auto expected = read_f32(file, "sigmas" + std::to_string(n));
    const auto expected_t = read_bf16(file, "timesteps" + std::to_string(n) + "_bf16");
    const auto got = acoustic::flow_sigmas(n);
    ASSERT_EQ(got.size(), expected.size()) << "N = " << n;
    int64_t differ = 0;
    for (size_t i = 0; i < got.size(); ++i) differ += f32_bits(got[i]) != f32_bits(expected[i]);
    for (int i = 0; i < n; ++i) differ += acoustic::timestep(got, i).bits != expected_t[size_t(i)].bits;
    record("acoustic.scheduler", "N" + std::to_string(n), "differing_values", double(differ),
           double(loop_bounds::kSigmaMismatches));
    EXPECT_LE(differ, loop_bounds::kSigmaMismatches) << "N = " << n;
  }
}

TEST(AcousticScheduler, EulerRoundsDtAndProduct) {
  const auto s = acoustic::flow_sigmas(30);
  EXPECT_EQ(to_f32(acoustic::timestep(s, 1)), 0.033447265625f);  // bf16(1/30)
  EXPECT_EQ(s.back(), 1.0f);
  EXPECT_EQ(s.front(), 0.0f);
  // dt = 0.0333334 rounds to 0.033447265625 before the multiply: with v = 3 the product 0.100341796875 is a bf16
  // tie that rounds to 0.1005859375 (an unrounded dt gives 0.1000002, rounded to 0.10009765625).
  bf16 x = to_bf16(0.0f);
  const bf16 v = to_bf16(3.0f);
  acoustic::euler_step(&x, &v, 1, acoustic::euler_dt(s, 0));
  EXPECT_EQ(to_f32(x), 0.1005859375f);
  // The product is rounded before the f32 add: 0.25 + 0.1005859375 = 0.3505859375 is a bf16 tie that rounds to
  // 0.3515625 (the unrounded product gives 0.350341796875, rounded to 0.349609375).
  x = to_bf16(0.25f);
  acoustic::euler_step(&x, &v, 1, acoustic::euler_dt(s, 0));
  EXPECT_EQ(to_f32(x), 0.3515625f);
  EXPECT_THROW(acoustic::flow_sigmas(0), std::invalid_argument);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
