// Shard sets: a checkpoint split over shards with a *.safetensors.index.json reads
// exactly as the single file does, every shard is refused on the single-file rules,
// and a lying or broken index is refused naming the index and the tensor or shard.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "engine/io/safetensors_set.h"
#include "gates/io/io_test_support.h"

namespace music3::io {
namespace {
using testing::ScratchDir;
using testing::write_bytes;

const std::vector<float> kA = {1, 2, 3, 4}, kB = {5, 6}, kC = {7};

void write_shards(const ScratchDir& d) {
  write_safetensors(d.file("m-00001-of-00002.safetensors"),
                    {{"a", DType::F32, {2, 2}, kA.data(), 16}, {"b", DType::F32, {2}, kB.data(), 8}});
  write_safetensors(d.file("m-00002-of-00002.safetensors"), {{"c", DType::F32, {1}, kC.data(), 4}});
}

void write_index(const ScratchDir& d, const std::string& weight_map) {
  write_bytes(d.file("m.safetensors.index.json"), R"({"metadata": {"total_size": 28}, "weight_map": )" + weight_map + "}");
}

const char* kGoodMap = R"({"a": "m-00001-of-00002.safetensors", "b": "m-00001-of-00002.safetensors",
                            "c": "m-00002-of-00002.safetensors"})";

TEST(SafetensorsSet, SingleFileWithoutIndex) {
  ScratchDir d;
  write_safetensors(d.file("m.safetensors"), {{"a", DType::F32, {2, 2}, kA.data(), 16}});
  const auto s = SafetensorsSet::open(d.dir().string(), "m");
  EXPECT_FALSE(s.sharded());
  EXPECT_EQ(s.names(), std::vector<std::string>{"a"});
  EXPECT_EQ(s.sha256(), SafetensorsFile(d.file("m.safetensors")).sha256());
}

TEST(SafetensorsSet, ShardsReadAsOneSetAndOutliveTheSetObject) {
  ScratchDir d;
  write_shards(d);
  write_index(d, kGoodMap);
  std::shared_ptr<const void> keeper;
  Tensor c;
  {
    const auto s = SafetensorsSet::open(d.dir().string(), "m");
    EXPECT_TRUE(s.sharded());
    EXPECT_EQ(s.files().size(), 2u);
    EXPECT_EQ(s.names(), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(s.require("a", DType::F32, {2, 2}).as<const float>()[3], 4.0f);
    c = s.tensor("c");
    keeper = s.keeper();
    EXPECT_ERROR(s.tensor("zz"), "missing tensor 'zz' in " + d.file("m.safetensors.index.json"));
  }
  EXPECT_EQ(c.as<const float>()[0], 7.0f);  // the mapping lives while the keeper does
}

TEST(SafetensorsSet, IndexNamingAMissingShardIsRefused) {
  ScratchDir d;
  write_shards(d);
  write_index(d, R"({"a": "m-00001-of-00002.safetensors", "b": "m-00001-of-00002.safetensors", "c": "gone.safetensors"})");
  EXPECT_FILE_ERROR(d.file("m.safetensors.index.json"), SafetensorsSet::open(d.dir().string(), "m"), "tensor 'c'",
                    "shard 'gone.safetensors' does not exist");
}

TEST(SafetensorsSet, IndexMappingATensorToTheWrongShardIsRefused) {
  ScratchDir d;
  write_shards(d);
  write_index(d, R"({"a": "m-00001-of-00002.safetensors", "b": "m-00002-of-00002.safetensors", "c": "m-00002-of-00002.safetensors"})");
  EXPECT_FILE_ERROR(d.file("m.safetensors.index.json"), SafetensorsSet::open(d.dir().string(), "m"), "tensor 'b'",
                    "does not hold it");
}

TEST(SafetensorsSet, ShardTensorTheIndexDoesNotListIsRefused) {
  ScratchDir d;
  write_shards(d);
  write_index(d, R"({"a": "m-00001-of-00002.safetensors", "c": "m-00002-of-00002.safetensors"})");
  EXPECT_FILE_ERROR(d.file("m.safetensors.index.json"), SafetensorsSet::open(d.dir().string(), "m"), "tensor 'b'",
                    "does not map to it");
}

TEST(SafetensorsSet, BrokenIndexIsRefusedByName) {
  ScratchDir d;
  write_shards(d);
  write_bytes(d.file("m.safetensors.index.json"), "{\"weight_map\": [");
  EXPECT_FILE_ERROR(d.file("m.safetensors.index.json"), SafetensorsSet::open(d.dir().string(), "m"), "not valid JSON");
  write_bytes(d.file("m.safetensors.index.json"), "{\"metadata\": {}}");
  EXPECT_FILE_ERROR(d.file("m.safetensors.index.json"), SafetensorsSet::open(d.dir().string(), "m"), "weight_map");
  write_index(d, R"({"a": "../m-00001-of-00002.safetensors"})");
  EXPECT_FILE_ERROR(d.file("m.safetensors.index.json"), SafetensorsSet::open(d.dir().string(), "m"),
                    "not a file name in the index's folder");
  write_index(d, R"({"a": 3})");
  EXPECT_FILE_ERROR(d.file("m.safetensors.index.json"), SafetensorsSet::open(d.dir().string(), "m"), "tensor 'a'");
}

TEST(SafetensorsSet, TruncatedShardIsRefusedOnTheSingleFileRules) {
  ScratchDir d;
  write_shards(d);
  write_index(d, kGoodMap);
  const std::string shard = d.file("m-00002-of-00002.safetensors");
  const std::string bytes = testing::read_bytes(shard);
  write_bytes(shard, bytes.substr(0, bytes.size() - 2));
  EXPECT_FILE_ERROR(shard, SafetensorsSet::open(d.dir().string(), "m"), "truncated");
}

}  // namespace
}  // namespace music3::io
