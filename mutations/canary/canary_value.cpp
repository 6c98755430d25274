#include "mutations/canary/canary_value.h"

namespace music3::canary {

int canary_value() { return 1729; }

}  // namespace music3::canary
