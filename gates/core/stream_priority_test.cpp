// The CUDA backend's two streams (backend.h): the default stream (cuda_queue(), the AR loop) at a strictly greater
// priority than the side stream (side_queue(), the acoustic stage and vocoder beside it), and the two distinct.
// In CUDA a numerically smaller priority is the greater one. GPU only (exits 77 without a device).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "engine/core/cuda/cuda_backend.h"
#include "engine/core/queue.h"

namespace music3 {
namespace {

int priority_of(const Queue& q) {
  int p = 0;
  check_cuda(cudaStreamGetPriority(static_cast<cudaStream_t>(q.stream), &p), "cudaStreamGetPriority");
  return p;
}

TEST(StreamPriority, TheArLoopsStreamOutranksTheSideStream) {
  const Queue main = cuda_queue(0), side = side_queue(main);
  ASSERT_NE(main.stream, side.stream) << "the side queue must be a second stream";
  int least = 0, greatest = 0;
  check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  ASSERT_LT(greatest, least) << "this device has no stream priorities";
  EXPECT_EQ(priority_of(main), greatest);
  EXPECT_EQ(priority_of(side), least);
}

}  // namespace
}  // namespace music3
