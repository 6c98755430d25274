// The CPU backend: aligned host memory and memcpy. Always present.
// Thread-safety: as Backend: thread-safe.
#pragma once
#include "engine/core/backend.h"

namespace music3 {
Backend& cpu_backend();
}
