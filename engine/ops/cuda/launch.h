// Small helpers every CUDA provider uses: the queue's stream, the post-launch
// check, grid sizing for grid-stride loops, the multiprocessor count, and the 16-byte alignment test of the
// vectorized paths.
// Contract: check_launch() throws std::runtime_error naming the op when the launch
// (or an earlier asynchronous error on the device) failed.
#pragma once
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "engine/core/cuda/cuda_backend.h"
#include "engine/core/queue.h"

namespace music3::ops {

inline cudaStream_t stream_of(const Queue& q) { return static_cast<cudaStream_t>(q.stream); }

inline void check_launch(const char* op) {
  check_cuda(cudaGetLastError(), (std::string(op) + " (cuda) kernel launch").c_str());
}

// Blocks for a grid-stride loop over n items: enough to fill the device, never zero.
inline unsigned grid_for(int64_t n, int threads) {
  const int64_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, 65535));
}

// The current device's multiprocessor count, asked once per process (the engine drives one device per process).
inline int multiprocessors() {
  static const int count = [] {
    int device = 0, n = 0;
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    check_cuda(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    return n;
  }();
  return count;
}

// True when p may be read or written as 16-byte vectors (uint4); a null pointer (an absent optional tensor) passes.
inline bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace music3::ops
