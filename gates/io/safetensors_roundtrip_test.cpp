// Round trip of the safetensors writer and reader: every dtype, ranks 0..4, an empty
// tensor, metadata, the exact on-disk layout, the file hash, and atomic replacement.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/io/safetensors.h"
#include "engine/io/sha256.h"
#include "gates/io/io_test_support.h"

namespace music3::io {
namespace {

using namespace music3::io::testing;

struct Sample {
  std::string name;
  DType dtype;
  Shape shape;
  std::vector<unsigned char> bytes;
};

// One tensor per dtype, in an order that is not sorted by name, with bytes that
// differ from tensor to tensor so a swapped or shifted range cannot pass.
std::vector<Sample> samples() {
  struct Spec {
    const char* name;
    DType dtype;
    Shape shape;
  };
  const std::vector<Spec> specs = {
      {"z.bf16", DType::BF16, {2, 3}},        {"a.f16", DType::F16, {5}},
      {"m.f32", DType::F32, {2, 1, 3}},       {"b.f64", DType::F64, {}},
      {"y.i8", DType::I8, {3}},               {"c.u8", DType::U8, {1, 2, 2, 2}},
      {"x.i16", DType::I16, {2, 2}},          {"d.i32", DType::I32, {3, 1}},
      {"w.i64", DType::I64, {2}},             {"e.bool", DType::Bool, {4}},
      {"empty.f32", DType::F32, {0, 3}},
  };
  std::vector<Sample> out;
  unsigned seed = 1;
  for (const auto& s : specs) {
    Sample x{s.name, s.dtype, s.shape, std::vector<unsigned char>(static_cast<size_t>(s.shape.numel()) * dtype_size(s.dtype))};
    for (auto& b : x.bytes) b = static_cast<unsigned char>((seed = seed * 1103515245u + 12345u) >> 16);
    if (s.dtype == DType::Bool)
      for (auto& b : x.bytes) b &= 1;
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<SafetensorsEntry> entries_of(const std::vector<Sample>& s) {
  std::vector<SafetensorsEntry> e;
  for (const auto& x : s) e.push_back({x.name, x.dtype, x.shape, x.bytes.data(), x.bytes.size()});
  return e;
}

uint64_t header_length(const std::string& bytes) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  return v;
}

TEST(SafetensorsRoundTrip, EveryDtypeShapeAndMetadataSurvive) {
  ScratchDir dir;
  const auto s = samples();
  const std::map<std::string, std::string> meta = {{"format", "pt"}, {"source", "gate io"}};
  const std::string path = dir.file("all.safetensors");
  write_safetensors(path, entries_of(s), meta);

  SafetensorsFile f(path);
  std::vector<std::string> expected_names;
  for (const auto& x : s) expected_names.push_back(x.name);
  std::sort(expected_names.begin(), expected_names.end());
  EXPECT_EQ(f.names(), expected_names);
  EXPECT_EQ(f.metadata(), meta);

  const std::string raw = read_bytes(path);
  EXPECT_EQ(f.file_size(), raw.size());
  uint64_t offset = 8 + header_length(raw);  // data in the order given, contiguous
  for (const auto& x : s) {
    SCOPED_TRACE(x.name);
    ASSERT_TRUE(f.has(x.name));
    const SafetensorsInfo& info = f.info(x.name);
    EXPECT_EQ(info.dtype, x.dtype);
    EXPECT_EQ(info.shape, x.shape);
    EXPECT_EQ(info.bytes, x.bytes.size());
    EXPECT_EQ(info.file_offset, offset);
    offset += x.bytes.size();

    Tensor t = f.require(x.name, x.dtype, x.shape);
    EXPECT_EQ(t.device, DeviceType::CPU);
    EXPECT_EQ(t.bytes(), x.bytes.size());
    if (!x.bytes.empty()) {
      EXPECT_EQ(std::memcmp(t.data, x.bytes.data(), x.bytes.size()), 0);
    }
    EXPECT_EQ(f.tensor(x.name).data, t.data);
  }
  EXPECT_EQ(offset, raw.size());
  EXPECT_FALSE(f.has("absent"));
}

TEST(SafetensorsRoundTrip, HeaderIsSortedPaddedAndEightAligned) {
  ScratchDir dir;
  const auto s = samples();
  const std::string path = dir.file("layout.safetensors");
  write_safetensors(path, entries_of(s), {{"format", "pt"}});
  const std::string raw = read_bytes(path);
  const uint64_t len = header_length(raw);
  EXPECT_EQ(len % 8, 0u);
  const std::string header = raw.substr(8, len);
  const size_t last = header.find_last_not_of(' ');
  ASSERT_NE(last, std::string::npos);
  EXPECT_EQ(header[last], '}');
  EXPECT_LT(len - 1 - last, 8u) << "padding is more than needed";

  // Top-level keys appear in sorted order in the text itself.
  std::vector<std::string> keys = {"__metadata__"};
  for (const auto& x : s) keys.push_back(x.name);
  std::sort(keys.begin(), keys.end());
  size_t previous = 0;
  for (const auto& k : keys) {
    const size_t at = header.find("\"" + k + "\":");
    ASSERT_NE(at, std::string::npos) << k;
    EXPECT_GT(at, previous) << k << " is out of order";
    previous = at;
  }
}

// The exact bytes of a one-tensor file, assembled here from the format's definition.
TEST(SafetensorsRoundTrip, OneTensorFileMatchesTheSpecBytes) {
  ScratchDir dir;
  const std::string path = dir.file("one.safetensors");
  const float values[2] = {1.0f, -2.5f};
  write_safetensors(path, {{"w", DType::F32, {2}, values, sizeof values}});

  std::string header = R"({"w":{"data_offsets":[0,8],"dtype":"F32","shape":[2]}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string expected(8, '\0');
  expected[0] = static_cast<char>(header.size());
  expected += header;
  expected.append(reinterpret_cast<const char*>(values), sizeof values);
  EXPECT_EQ(read_bytes(path), expected);
}

TEST(SafetensorsRoundTrip, EmptyFileHasNoTensorsAndNoMetadata) {
  ScratchDir dir;
  const std::string path = dir.file("none.safetensors");
  write_safetensors(path, {});
  SafetensorsFile f(path);
  EXPECT_TRUE(f.names().empty());
  EXPECT_TRUE(f.metadata().empty());
}

TEST(SafetensorsRoundTrip, Sha256IsTheWholeFileHash) {
  ScratchDir dir;
  const auto s = samples();
  const std::string path = dir.file("hash.safetensors");
  write_safetensors(path, entries_of(s));
  SafetensorsFile f(path);
  EXPECT_EQ(f.sha256(), sha256_file(path));
  EXPECT_EQ(f.sha256(), sha256_hex(read_bytes(path)));
}

TEST(SafetensorsRoundTrip, ViewsStayValidWhenTheFileIsMoved) {
  ScratchDir dir;
  const auto s = samples();
  const std::string path = dir.file("move.safetensors");
  write_safetensors(path, entries_of(s));
  SafetensorsFile first(path);
  Tensor before = first.tensor(s[0].name);
  SafetensorsFile second(std::move(first));
  SafetensorsFile third(path);
  third = std::move(second);
  EXPECT_EQ(third.tensor(s[0].name).data, before.data);
  EXPECT_EQ(std::memcmp(before.data, s[0].bytes.data(), s[0].bytes.size()), 0);
}

TEST(SafetensorsRoundTrip, CheckFiniteAcceptsExtremeFiniteValues) {
  ScratchDir dir;
  const std::string path = dir.file("finite.safetensors");
  const bf16 b[4] = {{0x7F7F}, {0xFF7F}, {0x0001}, {0x8000}};  // ±max, smallest denormal, -0
  const uint16_t h[3] = {0x7BFF, 0xFBFF, 0x0001};                 // f16 ±max, denormal
  const float f[3] = {3.4028235e38f, -1e-45f, 0.0f};
  const double d[2] = {1.7976931348623157e308, -4.9e-324};
  write_safetensors(path, {{"b", DType::BF16, {4}, b, sizeof b},
                           {"h", DType::F16, {3}, h, sizeof h},
                           {"f", DType::F32, {3}, f, sizeof f},
                           {"d", DType::F64, {2}, d, sizeof d}});
  SafetensorsFile file(path);
  for (const char* name : {"b", "h", "f", "d"}) EXPECT_NO_THROW(file.check_finite(name)) << name;
}

TEST(SafetensorsRoundTrip, WritingAgainReplacesTheFile) {
  ScratchDir dir;
  const std::string path = dir.file("replace.safetensors");
  const int32_t one[1] = {1};
  const int32_t two[2] = {2, 3};
  write_safetensors(path, {{"v", DType::I32, {1}, one, sizeof one}});
  write_safetensors(path, {{"v", DType::I32, {2}, two, sizeof two}});
  SafetensorsFile f(path);
  Tensor t = f.require("v", DType::I32, {2});
  EXPECT_EQ(t.as<int32_t>()[1], 3);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.dir()), {}), 1) << "a temporary file was left behind";
}

}  // namespace
}  // namespace music3::io
