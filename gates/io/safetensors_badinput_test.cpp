// Bad safetensors input: each malformed file is refused with a message that starts
// with the path and names the problem (tensor, expected vs actual, byte offsets).
// The files are made by writing a good file and then editing its bytes or header.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/io/safetensors.h"
#include "gates/io/io_test_support.h"

namespace music3::io {
namespace {

using json = nlohmann::json;
using namespace music3::io::testing;

// A good file: a F32[2,3] @ [0,24], b BF16[4] @ [24,32], c I64[2] @ [32,48].
class BadSafetensors : public ::testing::Test {
 protected:
  void SetUp() override {
    path = dir.file("model.safetensors");
    const float a[6] = {1, 2, 3, 4, 5, 6};
    const bf16 b[4] = {to_bf16(1), to_bf16(2), to_bf16(3), to_bf16(4)};
    const int64_t c[2] = {7, 8};
    write_safetensors(path, {{"a", DType::F32, {2, 3}, a, sizeof a},
                             {"b", DType::BF16, {4}, b, sizeof b},
                             {"c", DType::I64, {2}, c, sizeof c}},
                      {{"format", "pt"}});
    const std::string raw = read_bytes(path);
    header_len = 0;
    for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(raw[static_cast<size_t>(i)]);
    header = json::parse(raw.substr(8, header_len));
    data = raw.substr(8 + header_len);
    ASSERT_EQ(data.size(), 48u);
    ASSERT_NO_THROW(SafetensorsFile{path});
  }

  // Writes `header_text` (padded to 8) and `payload`, with the length field set to
  // `declared_len` when given, else the true header length.
  void write_raw(std::string header_text, const std::string& payload, std::optional<uint64_t> declared_len = {}) {
    header_text.append((8 - header_text.size() % 8) % 8, ' ');
    const uint64_t len = declared_len.value_or(header_text.size());
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>(len >> (8 * i));
    write_bytes(path, out + header_text + payload);
  }

  // Rewrites the good file with an edited header and the original data section.
  void edit_header(const std::function<void(json&)>& edit) {
    json h = header;
    edit(h);
    write_raw(h.dump(), data);
  }

  void truncate_to(size_t bytes) { std::filesystem::resize_file(path, bytes); }

  ScratchDir dir;
  std::string path;
  uint64_t header_len = 0;
  json header;
  std::string data;
};

TEST_F(BadSafetensors, FileShorterThanTheLengthField) {
  truncate_to(5);
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "5 bytes", "too short", "8-byte header length");
  truncate_to(0);
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "0 bytes", "too short");
}

TEST_F(BadSafetensors, TruncatedMidHeader) {
  truncate_to(8 + header_len / 2);
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "header length " + std::to_string(header_len),
                    "runs past the end of the file", "truncated");
}

TEST_F(BadSafetensors, TruncatedMidData) {
  truncate_to(8 + header_len + 40);
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'c'", "data_offsets [32,48]", "run past the data section",
                    "holds 40 bytes", "truncated");
}

TEST_F(BadSafetensors, HeaderLengthLargerThanTheFile) {
  write_raw(header.dump(), data, 4096);
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "header length 4096", "runs past the end of the file");
}

TEST_F(BadSafetensors, HeaderLengthAboveTheLimit) {
  write_raw(header.dump(), data, 200'000'000);
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "header length 200000000", "100,000,000-byte limit");
}

TEST_F(BadSafetensors, HeaderLengthShorterThanTheHeader) {
  write_raw(header.dump(), data, 16);
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "header (file bytes 8..24) is not valid JSON");
}

TEST_F(BadSafetensors, InvalidJson) {
  write_raw(R"({"a": {"dtype": "F32", "shape": [2,3], )", data);
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "not valid JSON", "parse error");
  write_raw("", data);
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "not valid JSON");
}

TEST_F(BadSafetensors, HeaderThatIsNotAnObject) {
  write_raw("[1,2,3]", data);
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "header is an array, expected an object");
}

TEST_F(BadSafetensors, DuplicateTensorName) {
  std::string text = header.dump();
  text.insert(1, R"("c":{"dtype":"U8","shape":[16],"data_offsets":[32,48]},)");
  write_raw(text, data);
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "duplicate key 'c'");
}

TEST_F(BadSafetensors, EntryThatIsNotAnObject) {
  edit_header([](json& h) { h["b"] = 3; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'b'", "entry is a number, expected an object");
}

TEST_F(BadSafetensors, EntryMissingAField) {
  edit_header([](json& h) { h["a"].erase("dtype"); });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'a'", "no \"dtype\"");
  edit_header([](json& h) { h["a"].erase("shape"); });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'a'", "no \"shape\"");
  edit_header([](json& h) { h["a"].erase("data_offsets"); });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'a'", "no \"data_offsets\"");
}

TEST_F(BadSafetensors, OffsetsOverrunTheDataSection) {
  edit_header([](json& h) { h["c"]["data_offsets"] = {40, 56}; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'c'", "data_offsets [40,56]", "run past the data section",
                    "holds 48 bytes", "file bytes " + std::to_string(8 + header_len) + "..");
}

TEST_F(BadSafetensors, OffsetsBeginAfterEnd) {
  edit_header([](json& h) { h["c"]["data_offsets"] = {48, 32}; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'c'", "data_offsets [48,32]: begin is after end");
}

TEST_F(BadSafetensors, OffsetsThatAreNotAPairOfNonNegativeIntegers) {
  edit_header([](json& h) { h["c"]["data_offsets"] = {-8, 8}; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'c'", "\"data_offsets\" is [-8,8]", "non-negative integers");
  edit_header([](json& h) { h["c"]["data_offsets"] = {32, 40, 48}; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'c'", "\"data_offsets\" is [32,40,48]");
}

TEST_F(BadSafetensors, OverlappingOffsets) {
  edit_header([](json& h) { h["b"]["data_offsets"] = {20, 28}; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'b' data_offsets [20,28]", "overlap",
                    "tensor 'a' data_offsets [0,24]");
}

TEST_F(BadSafetensors, HoleInTheDataSection) {
  edit_header([](json& h) {
    h["a"]["shape"] = {5};
    h["a"]["data_offsets"] = {0, 20};
  });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "data section bytes [20,24]", "before tensor 'b'", "hole");
}

TEST_F(BadSafetensors, TrailingBytesAfterTheLastTensor) {
  write_raw(header.dump(), data + std::string(8, '\x55'));
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "data section bytes [48,56]", "trailing bytes");
}

TEST_F(BadSafetensors, ByteRangeDisagreesWithShapeTimesDtype) {
  edit_header([](json& h) { h["a"]["shape"] = {2, 4}; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'a'", "F32[2,4] needs 32 bytes",
                    "data_offsets [0,24] hold 24");
  edit_header([](json& h) { h["b"]["dtype"] = "F32"; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'b'", "F32[4] needs 16 bytes", "data_offsets [24,32] hold 8");
}

TEST_F(BadSafetensors, UnknownDtype) {
  edit_header([](json& h) { h["b"]["dtype"] = "F8_E4M3"; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'b'", "unknown dtype 'F8_E4M3'");
  edit_header([](json& h) { h["b"]["dtype"] = 16; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'b'", "\"dtype\" is a number, expected a string");
}

TEST_F(BadSafetensors, NegativeDimension) {
  edit_header([](json& h) { h["a"]["shape"] = {-2, 3}; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'a'", "shape [-2,3] dimension 0 is negative");
}

TEST_F(BadSafetensors, HugeShape) {
  edit_header([](json& h) { h["a"]["shape"] = {1ull << 40, 1ull << 40}; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'a'", "F32[1099511627776,1099511627776]",
                    "more bytes than fit in 64 bits");
  edit_header([](json& h) { h["a"]["shape"] = {1ull << 63}; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'a'", "dimension 0 is too large");
}

TEST_F(BadSafetensors, ShapeThatIsNotIntegers) {
  edit_header([](json& h) { h["a"]["shape"] = {2.5, 3}; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'a'", "dimension 0 is not an integer");
  edit_header([](json& h) { h["a"]["shape"] = "2x3"; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'a'", "\"shape\" is a string, expected an array");
}

TEST_F(BadSafetensors, RankAboveFour) {
  edit_header([](json& h) { h["a"]["shape"] = {1, 1, 2, 1, 3}; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "tensor 'a'", "shape [1,1,2,1,3] has rank 5", "limit of 4");
}

TEST_F(BadSafetensors, MetadataThatIsNotStrings) {
  edit_header([](json& h) { h["__metadata__"]["step"] = 3; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "__metadata__ key 'step' holds a number, expected a string");
  edit_header([](json& h) { h["__metadata__"] = {1, 2}; });
  EXPECT_FILE_ERROR(path, SafetensorsFile{path}, "__metadata__ is an array");
}

TEST_F(BadSafetensors, MissingFileAndDirectory) {
  const std::string absent = dir.file("absent.safetensors");
  EXPECT_FILE_ERROR(absent, SafetensorsFile{absent}, "cannot open", "No such file");
  const std::string folder = dir.dir().string();
  EXPECT_FILE_ERROR(folder, SafetensorsFile{folder}, "not a regular file");
}

TEST_F(BadSafetensors, MissingTensor) {
  SafetensorsFile f(path);
  const std::string expected = "missing tensor 'layers.0.w' in " + path;
  EXPECT_ERROR(f.require("layers.0.w", DType::F32, {2, 3}), expected);
  EXPECT_ERROR(f.tensor("layers.0.w"), expected);
  EXPECT_ERROR(f.info("layers.0.w"), expected);
  EXPECT_ERROR(f.check_finite("layers.0.w"), expected);
}

TEST_F(BadSafetensors, RequireWithTheWrongDtype) {
  SafetensorsFile f(path);
  EXPECT_FILE_ERROR(path, f.require("a", DType::BF16, {2, 3}), "tensor 'a'", "expected BF16[2,3], found F32[2,3]",
                    "(dtype differs)");
}

TEST_F(BadSafetensors, RequireWithTheWrongShape) {
  SafetensorsFile f(path);
  EXPECT_FILE_ERROR(path, f.require("a", DType::F32, {3, 2}), "tensor 'a'", "expected F32[3,2], found F32[2,3]",
                    "(shape differs)");
  EXPECT_FILE_ERROR(path, f.require("a", DType::F32, {6}), "expected F32[6], found F32[2,3]");
  EXPECT_FILE_ERROR(path, f.require("b", DType::F32, {8}), "tensor 'b'", "expected F32[8], found BF16[4]",
                    "(dtype and shape differ)");
}

TEST_F(BadSafetensors, NonFiniteValues) {
  const bf16 b[6] = {to_bf16(1), to_bf16(2), to_bf16(3), to_bf16(4), to_bf16(5), to_bf16(NAN)};
  const float f[4] = {0, 1, -INFINITY, 2};
  const uint16_t h[3] = {0x3C00, 0x7C00, 0};  // 1, +inf
  const double d[2] = {NAN, 1};
  const int32_t i[1] = {1};
  write_safetensors(path, {{"b", DType::BF16, {2, 3}, b, sizeof b},
                           {"f", DType::F32, {2, 1, 2}, f, sizeof f},
                           {"h", DType::F16, {3}, h, sizeof h},
                           {"d", DType::F64, {2}, d, sizeof d},
                           {"i", DType::I32, {1}, i, sizeof i}});
  SafetensorsFile file(path);
  EXPECT_FILE_ERROR(path, file.check_finite("b"), "tensor 'b' (BF16[2,3])", "element 5 [1,2] is NaN");
  EXPECT_FILE_ERROR(path, file.check_finite("f"), "tensor 'f' (F32[2,1,2])", "element 2 [1,0,0] is -inf");
  EXPECT_FILE_ERROR(path, file.check_finite("h"), "tensor 'h' (F16[3])", "element 1 [1] is +inf");
  EXPECT_FILE_ERROR(path, file.check_finite("d"), "tensor 'd' (F64[2])", "element 0 [0] is NaN");
  EXPECT_FILE_ERROR(path, file.check_finite("i"), "tensor 'i'", "needs a floating dtype, found I32");
}

// Every 16-bit pattern of BF16 and F16, and for F32/F64 both infinities, every single-bit NaN payload of either
// sign (signalling and quiet) and the all-ones NaN, beside the finite extremes (largest, smallest subnormal, -0):
// check_finite refuses exactly the non-finite ones and names NaN, +inf or -inf as the bits say. Classified from the
// bit fields here, not by the reader's own conversion. Each non-finite pattern is a 1-element tensor of its own;
// the finite patterns share one tensor, which must pass whole (the reader reports only the first bad element).
template <class Bits>
void expect_exact_non_finite_verdicts(const std::string& path, DType dtype, const std::vector<Bits>& patterns,
                                      int exponent_shift, Bits exponent_mask, Bits mantissa_mask) {
  std::vector<Bits> finite, non_finite;
  for (const Bits b : patterns) (((b >> exponent_shift) & exponent_mask) == exponent_mask ? non_finite : finite).push_back(b);
  ASSERT_FALSE(finite.empty());
  ASSERT_FALSE(non_finite.empty());
  std::vector<SafetensorsEntry> entries{{"finite", dtype, {static_cast<int64_t>(finite.size())}, finite.data(),
                                         finite.size() * sizeof(Bits)}};
  for (size_t i = 0; i < non_finite.size(); ++i)
    entries.push_back({"p" + std::to_string(i), dtype, {1}, &non_finite[i], sizeof(Bits)});
  write_safetensors(path, entries);
  SafetensorsFile file(path);
  EXPECT_NO_THROW(file.check_finite("finite")) << dtype_name(dtype);
  for (size_t i = 0; i < non_finite.size(); ++i) {
    const Bits b = non_finite[i];
    const bool negative = (b >> (sizeof(Bits) * 8 - 1)) & 1;
    const std::string want = (b & mantissa_mask) ? "is NaN" : negative ? "is -inf" : "is +inf";
    try {
      file.check_finite("p" + std::to_string(i));
      ADD_FAILURE() << dtype_name(dtype) << " non-finite bits 0x" << std::hex << +b << " were accepted";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what() << " (want '" << want << "')";
    }
  }
}

TEST_F(BadSafetensors, EveryNonFiniteBitPatternIsRefusedByName) {
  std::vector<uint16_t> all16(65536);
  for (uint32_t i = 0; i < 65536; ++i) all16[i] = static_cast<uint16_t>(i);
  expect_exact_non_finite_verdicts<uint16_t>(path, DType::BF16, all16, 7, 0xFF, 0x7F);
  expect_exact_non_finite_verdicts<uint16_t>(path, DType::F16, all16, 10, 0x1F, 0x3FF);

  std::vector<uint32_t> f32{0x7F7FFFFFu, 0xFF7FFFFFu, 0x00000001u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0xFFFFFFFFu};
  for (int bit = 0; bit < 23; ++bit) {
    f32.push_back(0x7F800000u | (1u << bit));
    f32.push_back(0xFF800000u | (1u << bit));
  }
  expect_exact_non_finite_verdicts<uint32_t>(path, DType::F32, f32, 23, 0xFFu, 0x7FFFFFu);

  std::vector<uint64_t> f64{0x7FEFFFFFFFFFFFFFull, 0x0000000000000001ull, 0x8000000000000000ull,
                            0x7FF0000000000000ull, 0xFFF0000000000000ull, 0xFFFFFFFFFFFFFFFFull};
  for (int bit = 0; bit < 52; ++bit) {
    f64.push_back(0x7FF0000000000000ull | (1ull << bit));
    f64.push_back(0xFFF0000000000000ull | (1ull << bit));
  }
  expect_exact_non_finite_verdicts<uint64_t>(path, DType::F64, f64, 52, 0x7FFull, 0xFFFFFFFFFFFFFull);
}

TEST_F(BadSafetensors, WriterRefusesBadEntries) {
  const float v[2] = {1, 2};
  const std::string out = dir.file("out.safetensors");
  EXPECT_FILE_ERROR(out, write_safetensors(out, {{"w", DType::F32, {3}, v, sizeof v}}), "entry 'w'",
                    "F32[3] needs 12 bytes, given 8");
  EXPECT_FILE_ERROR(out, write_safetensors(out, {{"w", DType::F32, {2}, v, sizeof v}, {"w", DType::F32, {2}, v, sizeof v}}),
                    "entry 'w'", "duplicate name");
  EXPECT_FILE_ERROR(out, write_safetensors(out, {{"__metadata__", DType::F32, {2}, v, sizeof v}}), "reserved");
  EXPECT_FILE_ERROR(out, write_safetensors(out, {{"w", DType::F32, {-1, -2}, v, sizeof v}}), "entry 'w'",
                    "shape [-1,-2] has a negative dimension");
  EXPECT_FILE_ERROR(out, write_safetensors(out, {{"w", DType::F32, {2}, nullptr, 8}}), "entry 'w'", "data is null");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(BadSafetensors, FailedWriteLeavesThePreviousFileAndNoTemporary) {
  const std::string before = read_bytes(path);
  const float v[2] = {1, 2};
  // The target is a directory holding one file: the rename fails after the data is written.
  const std::string blocked = dir.file("blocked");
  std::filesystem::create_directory(blocked);
  write_bytes(blocked + "/keep", "x");
  EXPECT_FILE_ERROR(blocked, write_safetensors(blocked, {{"w", DType::F32, {2}, v, sizeof v}}),
                    "cannot rename temporary file");
  EXPECT_EQ(read_bytes(blocked + "/keep"), "x");
  // Nothing but the good file and the blocked directory remains.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.dir()), {}), 2);
  // A write into a missing directory fails before touching anything.
  const std::string nowhere = dir.file("no/such/dir/x.safetensors");
  EXPECT_FILE_ERROR(nowhere, write_safetensors(nowhere, {{"w", DType::F32, {2}, v, sizeof v}}),
                    "cannot create temporary file");
  EXPECT_EQ(read_bytes(path), before);
}

}  // namespace
}  // namespace music3::io
