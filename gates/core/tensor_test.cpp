// core_tensor_test: Shape and Tensor view arithmetic and descriptions.
#include <gtest/gtest.h>

#include <stdexcept>

#include "engine/core/tensor.h"

namespace {

using music3::DType;
using music3::Shape;
using music3::Tensor;

TEST(Shape, RankAndDimsFollowTheInitializer) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.rank, 3);
  EXPECT_EQ(s[0], 2);
  EXPECT_EQ(s[1], 3);
  EXPECT_EQ(s[2], 4);
}

TEST(Shape, NumelIsTheProductOfDims) {
  EXPECT_EQ((Shape{2, 3, 4}).numel(), 24);
  EXPECT_EQ((Shape{7}).numel(), 7);
  EXPECT_EQ((Shape{5, 0, 3}).numel(), 0);
  EXPECT_EQ((Shape{2, 3, 5, 7}).numel(), 210);
  EXPECT_EQ(Shape{}.numel(), 1);  // rank 0: a scalar
}

TEST(Shape, RankAboveFourIsRefused) { EXPECT_THROW((Shape{1, 2, 3, 4, 5}), std::invalid_argument); }

TEST(Shape, EqualityComparesRankAndEveryDim) {
  EXPECT_EQ((Shape{2, 3}), (Shape{2, 3}));
  EXPECT_FALSE((Shape{2, 3}) == (Shape{3, 2}));
  EXPECT_FALSE((Shape{2, 3}) == (Shape{2, 3, 1}));
  EXPECT_FALSE((Shape{2}) == Shape{});
}

TEST(Shape, StrListsTheDims) {
  EXPECT_EQ((Shape{2, 4096}).str(), "[2,4096]");
  EXPECT_EQ(Shape{}.str(), "[]");
}

TEST(Tensor, BytesAndDescription) {
  Tensor t;
  t.dtype = DType::BF16;
  t.shape = Shape{2, 4096};
  t.device = music3::DeviceType::CUDA;
  EXPECT_EQ(t.numel(), 8192);
  EXPECT_EQ(t.bytes(), 16384u);
  EXPECT_EQ(t.describe(), "BF16[2,4096]@cuda");
  t.dtype = DType::F32;
  t.device = music3::DeviceType::CPU;
  EXPECT_EQ(t.bytes(), 32768u);
  EXPECT_EQ(t.describe(), "F32[2,4096]@cpu");
}

}  // namespace
