// core_device_type_test: device type names and lookup by name.
#include <gtest/gtest.h>

#include <set>

#include "engine/core/device_type.h"

namespace {

using music3::DeviceType;

TEST(DeviceType, EveryTypeIsListedOnceWithADistinctName) {
  auto all = music3::all_device_types();
  EXPECT_EQ(all.size(), 7u);
  std::set<DeviceType> types(all.begin(), all.end());
  std::set<std::string> names;
  for (DeviceType t : all) names.insert(music3::device_type_name(t));
  EXPECT_EQ(types.size(), all.size());
  EXPECT_EQ(names.size(), all.size());
}

TEST(DeviceType, NamesAreTheDocumentedSpellings) {
  EXPECT_EQ(music3::device_type_name(DeviceType::CPU), "cpu");
  EXPECT_EQ(music3::device_type_name(DeviceType::CUDA), "cuda");
  EXPECT_EQ(music3::device_type_name(DeviceType::ROCm), "rocm");
  EXPECT_EQ(music3::device_type_name(DeviceType::Metal), "metal");
  EXPECT_EQ(music3::device_type_name(DeviceType::Vulkan), "vulkan");
  EXPECT_EQ(music3::device_type_name(DeviceType::XPU), "xpu");
  EXPECT_EQ(music3::device_type_name(DeviceType::Tenstorrent), "tenstorrent");
}

TEST(DeviceType, LookupIsTheInverseOfNaming) {
  for (DeviceType t : music3::all_device_types()) {
    auto back = music3::device_type_from_name(music3::device_type_name(t));
    ASSERT_TRUE(back.has_value()) << music3::device_type_name(t);
    EXPECT_EQ(*back, t);
  }
}

TEST(DeviceType, LookupIgnoresCase) {
  EXPECT_EQ(music3::device_type_from_name("CUDA"), DeviceType::CUDA);
  EXPECT_EQ(music3::device_type_from_name("Cpu"), DeviceType::CPU);
  EXPECT_EQ(music3::device_type_from_name("ROCm"), DeviceType::ROCm);
  EXPECT_EQ(music3::device_type_from_name("vUlKaN"), DeviceType::Vulkan);
  EXPECT_EQ(music3::device_type_from_name("Tenstorrent"), DeviceType::Tenstorrent);
}

TEST(DeviceType, UnknownNamesAreRefused) {
  EXPECT_FALSE(music3::device_type_from_name("").has_value());
  EXPECT_FALSE(music3::device_type_from_name("gpu").has_value());
  EXPECT_FALSE(music3::device_type_from_name("cud").has_value());
  EXPECT_FALSE(music3::device_type_from_name("cudaa").has_value());
  EXPECT_FALSE(music3::device_type_from_name(" cpu").has_value());
}

TEST(DeviceType, ValuesOutsideTheListNameThemselves) {
  EXPECT_EQ(music3::device_type_name(static_cast<DeviceType>(9)), "device#9");
  EXPECT_FALSE(music3::device_type_from_name("device#9").has_value());
}

}  // namespace
