// The CUDA backend (present only in builds with MUSIC3_WITH_CUDA).
// Contract: cuda_runtime_device_count() never throws and never latches a sticky
// error: it is 0 when there is no driver or no device. check_cuda() turns a CUDA
// status into an exception naming the call site.
// Thread-safety: as Backend: thread-safe.
#pragma once
#include <cuda_runtime_api.h>

#include "engine/core/backend.h"

namespace music3 {
int cuda_runtime_device_count();
Backend& cuda_backend();
void check_cuda(cudaError_t status, const char* what);
}  // namespace music3
