// Host staging and the asynchronous device-to-host copy (backend.h): a copy queued before later device work, read
// after the host waits for a mark placed between them, holds the bytes as they were when the stream reached the copy,
// whatever the later work writes; HostStaging holds writable memory of its size. Built twice: core_host_staging (the
// CPU backend, whose copies are done when the call returns) and core_host_staging_cuda (MUSIC3_STAGING_ON_CUDA: the
// CUDA backend's page-locked memory and stream order; exits 77 without a device).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "engine/core/backend.h"
#include "engine/core/device_array.h"
#include "engine/core/queue.h"

namespace music3 {
namespace {

Queue queue_under_test() {
#ifdef MUSIC3_STAGING_ON_CUDA
  return cuda_queue(0);
#else
  return cpu_queue(1);
#endif
}

TEST(HostStaging, HoldsWritableMemoryOfItsSize) {
  const Queue q = queue_under_test();
  for (const size_t bytes : {size_t{0}, size_t{1}, size_t{8}, size_t{1} << 20}) {
    HostStaging h(*q.backend, bytes);
    ASSERT_NE(h.data(), nullptr) << bytes;
    EXPECT_EQ(h.bytes(), bytes);
    std::memset(h.data(), 0x5A, bytes);
    for (size_t i = 0; i < bytes; i += 4093) EXPECT_EQ(static_cast<unsigned char*>(h.data())[i], 0x5A);
  }
}

// Eight rounds on one buffer: each uploads a pattern, queues the read-back, places the mark, then queues an upload
// of other bytes over the buffer before waiting; the staging must hold the pattern, never the later bytes.
TEST(HostStaging, AsyncReadBackHoldsTheBytesTheStreamReachedBeforeTheMark) {
  const Queue q = queue_under_test();
  Backend& be = *q.backend;
  constexpr size_t kWords = size_t{1} << 18;  // 1 MiB
  DeviceArray device(q, DType::I32, {int64_t(kWords)});
  HostStaging staging(be, kWords * sizeof(int32_t));
  StreamMark read(be);
  std::vector<int32_t> pattern(kWords), later(kWords);
  for (int round = 0; round < 8; ++round) {
    std::iota(pattern.begin(), pattern.end(), round * 1000);
    std::iota(later.begin(), later.end(), -round * 1000 - 7);
    device.upload(pattern);
    be.copy_to_host_async(staging.data(), device.data(), kWords * sizeof(int32_t), q.stream);
    read.place(q.stream);
    be.copy(device.data(), later.data(), kWords * sizeof(int32_t), CopyKind::HostToDevice, q.stream);
    read.wait();
    EXPECT_EQ(std::memcmp(staging.data(), pattern.data(), kWords * sizeof(int32_t)), 0) << "round " << round;
    q.synchronize();  // `later` is read by the queued upload until here
  }
  EXPECT_EQ(device.download<int32_t>(), later);
}

}  // namespace
}  // namespace music3
