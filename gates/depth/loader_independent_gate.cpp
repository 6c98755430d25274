// Gate depth.loader_independent: what depth::load_depth_checkpoint makes resident equals, bit for bit, torch's
// reading of the same checkpoint (oracle_bridge/loader_check/independent_reader.py), for every tensor named() lists,
// on the BF16 path (the oracle's default/seed0 and odd/seed0 checkpoints) and on the F32 path (F32 copies whose
// values need rounding), so a layout defect shared by both paths cannot cancel.
// Measured: 0 mismatched elements on every case and path (the bound is 0: exact).
#include <gtest/gtest.h>

#include "engine/models/music3/depth/depth_loader.h"
#include "gates/lib/independent_reader.h"
#include "gates/lib/oracle_paths.h"

namespace music3::gates {
namespace {

std::vector<ResidentTensor> resident(depth::DepthWeights& w) {
  std::vector<ResidentTensor> out;
  for (const auto& [spec, t] : w.named()) out.push_back({spec.name, t->shape, t->ptr()});
  return out;
}

std::string checkpoint(const std::string& geometry) {
  return oracle_dir() + "/checkpoints/" + geometry + "/seed0/rvq_depth_decoder";
}

class DepthLoaderIndependent : public ::testing::TestWithParam<std::string> {};

TEST_P(DepthLoaderIndependent, Bf16CheckpointMatchesTorch) {
  const ScratchDir s("depth_loader_independent");
  depth::LoadReport report;
  depth::DepthWeights w = depth::load_depth_checkpoint(checkpoint(GetParam()), &report);
  ASSERT_TRUE(report.converted.empty()) << "the oracle checkpoint is BF16: nothing should be converted";
  EXPECT_EQ(compare_resident(checkpoint(GetParam()), resident(w), s.path()), "");
}

TEST_P(DepthLoaderIndependent, F32CheckpointMatchesTorchRounding) {
  const ScratchDir s("depth_loader_independent");
  const std::string copy = s.path("f32");
  f32_copy(checkpoint(GetParam()), copy, 16);
  depth::LoadReport report;
  depth::DepthWeights w = depth::load_depth_checkpoint(copy, &report);
  ASSERT_FALSE(report.converted.empty()) << "the F32 copy must take the loader's F32 path";
  EXPECT_EQ(compare_resident(copy, resident(w), s.path()), "");
}

INSTANTIATE_TEST_SUITE_P(Geometries, DepthLoaderIndependent, ::testing::Values("default", "odd"));

}  // namespace
}  // namespace music3::gates
