// core_device_pool_test: the pool hands freed blocks out again without reaching the
// backend, its stats agree with an independent count of backend calls, and a budget
// refuses by name the acquire that would pass it.
#include <gtest/gtest.h>

#include <vector>

#include "engine/core/cpu_backend.h"
#include "engine/core/device_pool.h"

namespace {

using music3::DevicePool;

// Forwards to the CPU backend and counts what reaches it.
class CountingBackend : public music3::Backend {
 public:
  music3::DeviceType type() const override { return music3::DeviceType::CPU; }
  void* alloc(size_t bytes) override {
    ++allocs;
    return music3::cpu_backend().alloc(bytes);
  }
  void free(void* p) override {
    ++frees;
    music3::cpu_backend().free(p);
  }
  void copy(void* dst, const void* src, size_t bytes, music3::CopyKind kind, void* stream) override {
    music3::cpu_backend().copy(dst, src, bytes, kind, stream);
  }
  void synchronize(void* stream) override { music3::cpu_backend().synchronize(stream); }
  int allocs = 0, frees = 0;
};

TEST(DevicePool, ReacquiringTheSameSizeReusesTheBlock) {
  CountingBackend backend;
  DevicePool pool(backend);
  void* first = nullptr;
  {
    auto b = pool.acquire(1000);
    first = b.data();
    ASSERT_NE(first, nullptr);
    EXPECT_GE(b.bytes(), 1000u);
  }
  for (int frame = 0; frame < 5; ++frame) {
    auto b = pool.acquire(1000);
    EXPECT_EQ(b.data(), first) << "frame " << frame;
  }
  EXPECT_EQ(backend.allocs, 1);
  EXPECT_EQ(pool.stats().backend_allocs, 1u);
  EXPECT_EQ(pool.stats().acquires, 6u);
  EXPECT_EQ(backend.frees, 0);
}

TEST(DevicePool, AFrameWorkingSetCostsNoBackendCallAfterTheFirstFrame) {
  CountingBackend backend;
  DevicePool pool(backend);
  const size_t sizes[] = {4096, 4096, 100, 65536, 1};
  for (int frame = 0; frame < 4; ++frame) {
    std::vector<music3::DeviceBuffer> live;
    for (size_t s : sizes) live.push_back(pool.acquire(s));
    for (size_t i = 0; i < live.size(); ++i)
      for (size_t j = i + 1; j < live.size(); ++j) EXPECT_NE(live[i].data(), live[j].data());
  }
  EXPECT_EQ(backend.allocs, 5);
  EXPECT_EQ(pool.stats().backend_allocs, 5u);
  EXPECT_EQ(pool.stats().acquires, 20u);
}

TEST(DevicePool, ByteAccountingFollowsTheBuffers) {
  CountingBackend backend;
  DevicePool pool(backend);
  size_t handed_out = 0;
  {
    auto a = pool.acquire(300);
    auto b = pool.acquire(5000);
    handed_out = a.bytes() + b.bytes();
    EXPECT_GE(a.bytes(), 300u);
    EXPECT_GE(b.bytes(), 5000u);
    EXPECT_EQ(pool.stats().bytes_live, handed_out);
    EXPECT_EQ(pool.stats().bytes_cached, 0u);
  }
  EXPECT_EQ(pool.stats().bytes_live, 0u);
  EXPECT_EQ(pool.stats().bytes_cached, handed_out);
}

TEST(DevicePool, MovedBufferReturnsOnce) {
  CountingBackend backend;
  DevicePool pool(backend);
  {
    auto a = pool.acquire(64);
    music3::DeviceBuffer b = std::move(a);
    EXPECT_EQ(a.data(), nullptr);
    EXPECT_NE(b.data(), nullptr);
  }
  auto c = pool.acquire(64);
  auto d = pool.acquire(64);  // the one cached block went to c; d needs a new one
  EXPECT_NE(c.data(), d.data());
  EXPECT_EQ(backend.allocs, 2);
}

TEST(DevicePool, ZeroBytesStillGivesABlock) {
  CountingBackend backend;
  DevicePool pool(backend);
  auto b = pool.acquire(0);
  EXPECT_NE(b.data(), nullptr);
}

TEST(DevicePool, DestructionFreesEveryCachedBlock) {
  CountingBackend backend;
  {
    DevicePool pool(backend);
    auto a = pool.acquire(10);
    auto b = pool.acquire(10000);
    auto c = pool.acquire(10);
  }
  EXPECT_EQ(backend.allocs, 3);
  EXPECT_EQ(backend.frees, 3);
}

TEST(DevicePool, BudgetRefusesTheAcquireThatWouldPassIt) {
  CountingBackend backend;
  DevicePool pool(backend, 1024);
  auto a = pool.acquire(512);
  auto b = pool.acquire(512);
  try {
    pool.acquire(1);
    ADD_FAILURE() << "no DeviceBudgetExceeded past the budget";
  } catch (const music3::DeviceBudgetExceeded& e) {
    EXPECT_NE(std::string(e.what()).find("budget of 1024"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'cpu'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(backend.allocs, 2);
  a.reset();
  EXPECT_NO_THROW(pool.acquire(256));  // returned bytes count against the budget no more
}

}  // namespace
