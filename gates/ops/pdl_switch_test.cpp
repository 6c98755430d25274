// The PDL switch (engine/ops/pdl_switch.h), read the way a process reads it: main() sets MUSIC3_DISABLE_PDL to the
// value given after the GoogleTest flags (or unsets it) before the switch's first use; the test checks pdl_allowed():
//   op_pdl_switch                  unset  -> on
//   op_pdl_switch_zero             "0"    -> on  (only "1" turns it off)
//   op_pdl_switch_disabled         "1"    -> off
// Host-only: no GPU is needed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "engine/ops/pdl_switch.h"

namespace {

const char* g_value = nullptr;  // MUSIC3_DISABLE_PDL as this run set it, or null when unset

TEST(PdlSwitch, OnlyOneTurnsItOff) {
  const bool expected = !(g_value && std::strcmp(g_value, "1") == 0);
  EXPECT_EQ(music3::ops::pdl_allowed(), expected) << "MUSIC3_DISABLE_PDL=" << (g_value ? g_value : "(unset)");
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  g_value = argc > 1 ? argv[1] : nullptr;
  if (g_value) setenv("MUSIC3_DISABLE_PDL", g_value, 1);
  else unsetenv("MUSIC3_DISABLE_PDL");
  return RUN_ALL_TESTS();
}
