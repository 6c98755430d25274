#include <cstdlib>
#include <cstring>

#include "engine/ops/pdl_switch.h"

namespace music3::ops {

bool pdl_allowed() {
  static const bool allowed = [] {
    const char* v = std::getenv("MUSIC3_DISABLE_PDL");
    return !(v && std::strcmp(v, "1") == 0);
  }();
  return allowed;
}

}  // namespace music3::ops
