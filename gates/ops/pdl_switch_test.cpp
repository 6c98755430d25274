// The PDL switch (engine/ops/pdl_switch.h), read the way a process reads it: this program sets
// MUSIC3_DISABLE_PDL to the value given (or unsets it) before the switch's first use, then checks pdl_allowed():
//   op_pdl_switch                  unset  -> on
//   op_pdl_switch_zero             "0"    -> on  (only "1" turns it off)
//   op_pdl_switch_disabled         "1"    -> off
// Host-only: no GPU is needed. Exit 0 when the switch says what the value means, 1 otherwise.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/ops/pdl_switch.h"

int main(int argc, char** argv) {
  const char* value = argc > 1 ? argv[1] : nullptr;
  if (value) setenv("MUSIC3_DISABLE_PDL", value, 1);
  else unsetenv("MUSIC3_DISABLE_PDL");
  const bool expected = !(value && std::strcmp(value, "1") == 0);
  const bool allowed = music3::ops::pdl_allowed();
  std::printf("MUSIC3_DISABLE_PDL=%s: pdl_allowed() %d, expected %d\n", value ? value : "(unset)", allowed, expected);
  return allowed == expected ? 0 : 1;
}
