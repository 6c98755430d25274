// The process-wide PDL switch (cuda/pdl.cuh): pdl_allowed() is false when the environment sets
// MUSIC3_DISABLE_PDL=1, read once per process; launch_pdl() then launches in plain stream order. Host-only (every
// build has it), so host code and tests can ask.
// Thread-safety: thread-safe (a function-local static).
#pragma once

namespace music3::ops {

bool pdl_allowed();

}  // namespace music3::ops
