// Safetensors scale gate: a header of 65,536 one-element tensors opens and indexes every tensor, and a
// duplicate key at its end is still refused by name. The header parser makes two linear passes (a SAX pass for
// duplicate keys, then the DOM parse without a callback): the callback form scanned the whole parent object
// after every tensor entry, 75 s for this file. The gate is functional, not timed; its ctest TIMEOUT (60 s, the
// old parser needs 75 s, the linear one well under a second) is the backstop that turns a quadratic parse red.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/io/safetensors.h"
#include "gates/io/io_test_support.h"

namespace music3::io {
namespace {

constexpr int kTensors = 65536;

std::string name_of(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "t%05d", i);
  return buf;
}

std::string write_many(const testing::ScratchDir& dir) {
  std::vector<bf16> values(kTensors);
  std::vector<SafetensorsEntry> entries;
  for (int i = 0; i < kTensors; ++i) {
    values[size_t(i)] = to_bf16(float(i % 251));
    entries.push_back({name_of(i), DType::BF16, Shape{1}, &values[size_t(i)], sizeof(bf16)});
  }
  const std::string path = dir.file("many.safetensors");
  write_safetensors(path, entries);
  return path;
}

TEST(SafetensorsScale, SixtyFiveThousandTensorsOpenAndIndex) {
  testing::ScratchDir dir;
  const std::string path = write_many(dir);
  const SafetensorsFile f(path);
  ASSERT_EQ(f.names().size(), size_t(kTensors));
  for (int i : {0, 1, 250, 251, kTensors / 2, kTensors - 1}) {
    const Tensor t = f.require(name_of(i), DType::BF16, Shape{1});
    EXPECT_EQ(to_f32(*static_cast<const bf16*>(t.data)), float(i % 251)) << name_of(i);
  }
}

TEST(SafetensorsScale, ADuplicateAtTheEndOfALargeHeaderIsRefused) {
  testing::ScratchDir dir;
  const std::string path = write_many(dir);
  std::string bytes = testing::read_bytes(path);
  const std::string last = "\"" + name_of(kTensors - 1) + "\"", previous = "\"" + name_of(kTensors - 2) + "\"";
  const size_t at = bytes.find(last);
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, last.size(), previous);
  testing::write_bytes(path, bytes);
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "duplicate key '" + name_of(kTensors - 2) + "'");
}

}  // namespace
}  // namespace music3::io
