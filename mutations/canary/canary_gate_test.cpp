// battery_canary_gate: pins canary_value(), the target of the forced-fail canary.
#include <gtest/gtest.h>

#include "mutations/canary/canary_value.h"

TEST(BatteryCanary, ValueIsPinned) { EXPECT_EQ(music3::canary::canary_value(), 1729); }
