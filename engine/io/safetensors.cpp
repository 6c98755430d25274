#include "engine/io/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include "engine/core/bf16.h"
#include "engine/io/mapping_tail_poison.h"
#include "engine/io/replace_file.h"
#include "engine/io/sha256.h"

namespace music3::io {
namespace {

using json = nlohmann::json;

constexpr uint64_t kMaxHeaderBytes = 100'000'000;
constexpr int kMaxRank = 4;

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw std::runtime_error(path + ": " + what); }

std::string missing_tensor(const std::string& name, const std::string& path) {
  return "missing tensor '" + name + "' in " + path;
}

// "an object", "a number", ... for messages about a JSON value of the wrong kind.
std::string json_kind(const json& v) {
  if (v.is_null()) return "null";
  const std::string t = v.type_name();
  return (t == "object" || t == "array" ? "an " : "a ") + t;
}

std::string range_str(uint64_t begin, uint64_t end) {
  std::string s = "[";
  s += std::to_string(begin);
  s += ',';
  s += std::to_string(end);
  s += ']';
  return s;
}

// numel(shape) * dtype_size(dtype), or nullopt when it does not fit in 64 bits.
std::optional<uint64_t> checked_bytes(const Shape& shape, DType dtype) {
  uint64_t n = dtype_size(dtype);
  for (int i = 0; i < shape.rank; ++i)
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(shape[i]), &n)) return std::nullopt;
  return n;
}

uint64_t read_u64_le(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Closes a file descriptor when it goes out of scope.
struct FdGuard {
  int fd;
  ~FdGuard() {
    if (fd >= 0) ::close(fd);
  }
};

// The first key repeated within one object, found by a SAX pass (linear: one set per open object). The DOM
// parser's callback form cannot be used for this: after every nested object it scans the whole parent object
// for a discarded element, which is quadratic in the tensor count (75 s for 65,536 tensors).
class DuplicateKeyFinder : public nlohmann::json_sax<json> {
 public:
  std::string duplicate;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    open_.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    if (!open_.back().insert(k).second && duplicate.empty()) duplicate = k;
    return true;
  }
  bool end_object() override {
    open_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  std::vector<std::set<std::string>> open_;
};

// Parses the header JSON, refusing duplicate keys in any object: a repeated tensor
// name would otherwise silently keep only the last entry. Both passes are linear.
json parse_header(const std::string& path, const char* begin, const char* end) {
  json header;
  try {
    header = json::parse(begin, end);
  } catch (const json::exception& e) {  // parse errors, and numbers out of range (406)
    fail(path, "header (file bytes 8.." + std::to_string(8 + (end - begin)) + ") is not valid JSON: " + e.what());
  }
  DuplicateKeyFinder finder;
  json::sax_parse(begin, end, &finder);
  if (!finder.duplicate.empty()) fail(path, "header has duplicate key '" + finder.duplicate + "'");
  if (!header.is_object()) fail(path, "header is " + json_kind(header) + ", expected an object");
  return header;
}

DType parse_dtype(const std::string& path, const std::string& name, const json& entry) {
  auto it = entry.find("dtype");
  if (it == entry.end()) fail(path, "tensor '" + name + "': entry has no \"dtype\"");
  if (!it->is_string()) fail(path, "tensor '" + name + "': \"dtype\" is " + json_kind(*it) + ", expected a string");
  const auto& text = it->get_ref<const std::string&>();
  auto dtype = dtype_from_name(text);
  if (!dtype)
    fail(path, "tensor '" + name + "': unknown dtype '" + text +
                   "' (supported: BF16, F16, F32, F64, I8, U8, I16, I32, I64, BOOL)");
  return *dtype;
}

Shape parse_shape(const std::string& path, const std::string& name, const json& entry) {
  auto it = entry.find("shape");
  if (it == entry.end()) fail(path, "tensor '" + name + "': entry has no \"shape\"");
  if (!it->is_array()) fail(path, "tensor '" + name + "': \"shape\" is " + json_kind(*it) + ", expected an array");
  if (it->size() > kMaxRank)
    fail(path, "tensor '" + name + "': shape " + it->dump() + " has rank " + std::to_string(it->size()) +
                   ", above the engine's limit of " + std::to_string(kMaxRank));
  Shape shape;
  for (const auto& d : *it) {
    const std::string where = "tensor '" + name + "': shape " + it->dump() + " dimension " + std::to_string(shape.rank);
    if (!d.is_number_integer()) fail(path, where + " is not an integer");
    if (!d.is_number_unsigned()) fail(path, where + " is negative");
    uint64_t v = d.get<uint64_t>();
    if (v > static_cast<uint64_t>(INT64_MAX)) fail(path, where + " is too large");
    shape.dim[static_cast<size_t>(shape.rank++)] = static_cast<int64_t>(v);
  }
  return shape;
}

// Returns [begin, end] relative to the data section, checked against its size.
std::pair<uint64_t, uint64_t> parse_offsets(const std::string& path, const std::string& name, const json& entry,
                                            uint64_t data_start, uint64_t data_size) {
  auto it = entry.find("data_offsets");
  if (it == entry.end()) fail(path, "tensor '" + name + "': entry has no \"data_offsets\"");
  if (!it->is_array() || it->size() != 2 || !(*it)[0].is_number_unsigned() || !(*it)[1].is_number_unsigned())
    fail(path, "tensor '" + name + "': \"data_offsets\" is " + it->dump() + ", expected [begin, end] of non-negative integers");
  uint64_t begin = (*it)[0].get<uint64_t>(), end = (*it)[1].get<uint64_t>();
  if (begin > end) fail(path, "tensor '" + name + "': data_offsets " + range_str(begin, end) + ": begin is after end");
  if (end > data_size)
    fail(path, "tensor '" + name + "': data_offsets " + range_str(begin, end) + " run past the data section, which holds " +
                   std::to_string(data_size) + " bytes (file bytes " + std::to_string(data_start) + ".." +
                   std::to_string(data_start + data_size) + "; is the file truncated?)");
  return {begin, end};
}

std::map<std::string, std::string> parse_metadata(const std::string& path, const json& meta) {
  if (!meta.is_object()) fail(path, "__metadata__ is " + json_kind(meta) + ", expected an object of strings");
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : meta.items()) {
    if (!value.is_string())
      fail(path, "__metadata__ key '" + key + "' holds " + json_kind(value) + ", expected a string");
    out[key] = value.get<std::string>();
  }
  return out;
}

std::string index_str(const Shape& shape, uint64_t flat) {
  std::array<int64_t, 4> idx{};
  for (int i = shape.rank - 1; i >= 0; --i) {
    uint64_t d = static_cast<uint64_t>(shape[i]);
    idx[static_cast<size_t>(i)] = static_cast<int64_t>(flat % d);
    flat /= d;
  }
  std::string s = "[";
  for (int i = 0; i < shape.rank; ++i) {
    if (i) s += ',';
    s += std::to_string(idx[static_cast<size_t>(i)]);
  }
  return s + "]";
}

// The index of the first non-finite element and its value, or nullopt.
template <class Bits, class ToDouble>
std::optional<std::pair<uint64_t, double>> first_non_finite(const unsigned char* p, uint64_t n, ToDouble to_double) {
  for (uint64_t i = 0; i < n; ++i) {
    Bits b;
    std::memcpy(&b, p + i * sizeof(Bits), sizeof b);
    double v = to_double(b);
    if (!std::isfinite(v)) return std::make_pair(i, v);
  }
  return std::nullopt;
}

double f16_to_double(uint16_t h) {
  const bool negative = h & 0x8000u;
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  double v;
  if (exponent == 0x1F) v = mantissa ? NAN : INFINITY;
  else if (exponent == 0) v = std::ldexp(mantissa, -24);
  else v = std::ldexp(mantissa | 0x400, exponent - 25);
  return negative ? -v : v;
}

void write_all(int fd, const void* data, size_t bytes, const std::string& path, const std::string& temp) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t n = ::write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(path, "write to temporary file '" + temp + "' failed: " + std::strerror(errno));
    p += n;
    bytes -= static_cast<size_t>(n);
  }
}

}  // namespace

SafetensorsFile::SafetensorsFile(std::string path) : path_(std::move(path)) {
  FdGuard fd{::open(path_.c_str(), O_RDONLY | O_CLOEXEC)};
  if (fd.fd < 0) fail(path_, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) fail(path_, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail(path_, "not a regular file");
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ < 8) fail(path_, "file is " + std::to_string(size_) + " bytes, too short to hold the 8-byte header length");
  void* m = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd.fd, 0);
  if (m == MAP_FAILED) fail(path_, std::string("cannot mmap: ") + std::strerror(errno));
  map_ = static_cast<const unsigned char*>(m);
  poison_mapping_tail(map_, size_);
  try {
    validate_and_index();
  } catch (...) {
    release();
    throw;
  }
}

SafetensorsFile::~SafetensorsFile() { release(); }

SafetensorsFile::SafetensorsFile(SafetensorsFile&& o) noexcept { *this = std::move(o); }

SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&& o) noexcept {
  if (this != &o) {
    release();
    path_ = std::move(o.path_);
    map_ = std::exchange(o.map_, nullptr);
    size_ = std::exchange(o.size_, 0);
    tensors_ = std::move(o.tensors_);
    metadata_ = std::move(o.metadata_);
  }
  return *this;
}

void SafetensorsFile::release() {
  if (!map_) return;
  unpoison_mapping_tail(map_, size_);
  ::munmap(const_cast<unsigned char*>(map_), size_);
  map_ = nullptr;
}

void SafetensorsFile::validate_and_index() {
  const uint64_t header_len = read_u64_le(map_);
  if (header_len > kMaxHeaderBytes)
    fail(path_, "header length " + std::to_string(header_len) + " exceeds the 100,000,000-byte limit");
  if (header_len > size_ - 8)
    fail(path_, "header length " + std::to_string(header_len) + " runs past the end of the file (file is " +
                    std::to_string(size_) + " bytes, so at most " + std::to_string(size_ - 8) +
                    " header bytes follow the length; is the file truncated?)");
  const auto* text = reinterpret_cast<const char*>(map_ + 8);
  const json header = parse_header(path_, text, text + header_len);

  const uint64_t data_start = 8 + header_len;
  const uint64_t data_size = size_ - data_start;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      metadata_ = parse_metadata(path_, entry);
      continue;
    }
    if (!entry.is_object()) fail(path_, "tensor '" + name + "': entry is " + json_kind(entry) + ", expected an object");
    SafetensorsInfo info;
    info.dtype = parse_dtype(path_, name, entry);
    info.shape = parse_shape(path_, name, entry);
    auto [begin, end] = parse_offsets(path_, name, entry, data_start, data_size);
    auto expected = checked_bytes(info.shape, info.dtype);
    const std::string described = std::string(dtype_name(info.dtype)) + info.shape.str();
    if (!expected) fail(path_, "tensor '" + name + "': " + described + " has more bytes than fit in 64 bits");
    if (end - begin != *expected)
      fail(path_, "tensor '" + name + "': " + described + " needs " + std::to_string(*expected) +
                      " bytes but data_offsets " + range_str(begin, end) + " hold " + std::to_string(end - begin));
    info.file_offset = data_start + begin;
    info.bytes = end - begin;
    tensors_.emplace(name, info);
  }

  // The ranges, in file order, must tile the data section exactly.
  std::vector<std::pair<const std::string*, const SafetensorsInfo*>> by_offset;
  for (const auto& [name, info] : tensors_) by_offset.emplace_back(&name, &info);
  std::sort(by_offset.begin(), by_offset.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a.second->file_offset, a.second->bytes) < std::make_pair(b.second->file_offset, b.second->bytes);
  });
  auto data_range = [&](const SafetensorsInfo& i) {
    return range_str(i.file_offset - data_start, i.file_offset - data_start + i.bytes);
  };
  uint64_t cursor = data_start;
  std::pair<const std::string*, const SafetensorsInfo*> previous{nullptr, nullptr};
  for (const auto& current : by_offset) {
    const auto& [name, info] = current;
    if (info->file_offset < cursor)
      fail(path_, "tensor '" + *name + "' data_offsets " + data_range(*info) + " overlap tensor '" + *previous.first +
                      "' data_offsets " + data_range(*previous.second));
    if (info->file_offset > cursor)
      fail(path_, "data section bytes " + range_str(cursor - data_start, info->file_offset - data_start) +
                      " before tensor '" + *name + "' belong to no tensor (a hole)");
    cursor = info->file_offset + info->bytes;
    previous = current;
  }
  if (cursor != size_)
    fail(path_, "data section bytes " + range_str(cursor - data_start, data_size) +
                    " after the last tensor belong to no tensor (trailing bytes)");
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> out;
  out.reserve(tensors_.size());
  for (const auto& kv : tensors_) out.push_back(kv.first);
  return out;
}

const SafetensorsInfo& SafetensorsFile::info(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw std::runtime_error(missing_tensor(name, path_));
  return it->second;
}

Tensor SafetensorsFile::tensor(const std::string& name) const {
  const SafetensorsInfo& i = info(name);
  Tensor t;
  t.data = const_cast<unsigned char*>(map_ + i.file_offset);
  t.dtype = i.dtype;
  t.shape = i.shape;
  t.device = DeviceType::CPU;
  return t;
}

Tensor SafetensorsFile::require(const std::string& name, DType dtype, const Shape& shape) const {
  Tensor t = tensor(name);
  if (t.dtype != dtype || !(t.shape == shape)) {
    std::string differs = t.dtype != dtype ? (t.shape == shape ? "dtype differs" : "dtype and shape differ") : "shape differs";
    fail(path_, "tensor '" + name + "': expected " + std::string(dtype_name(dtype)) + shape.str() + ", found " +
                    std::string(dtype_name(t.dtype)) + t.shape.str() + " (" + differs + ")");
  }
  return t;
}

void SafetensorsFile::check_finite(const std::string& name) const {
  const SafetensorsInfo& i = info(name);
  const unsigned char* p = map_ + i.file_offset;
  const uint64_t n = static_cast<uint64_t>(i.shape.numel());
  std::optional<std::pair<uint64_t, double>> bad;
  switch (i.dtype) {
    case DType::BF16:
      bad = first_non_finite<uint16_t>(p, n, [](uint16_t b) { return double(to_f32(bf16{b})); });
      break;
    case DType::F16:
      bad = first_non_finite<uint16_t>(p, n, f16_to_double);
      break;
    case DType::F32:
      bad = first_non_finite<float>(p, n, [](float f) { return double(f); });
      break;
    case DType::F64:
      bad = first_non_finite<double>(p, n, [](double d) { return d; });
      break;
    default:
      fail(path_, "tensor '" + name + "': check_finite needs a floating dtype, found " + std::string(dtype_name(i.dtype)));
  }
  if (bad)
    fail(path_, "tensor '" + name + "' (" + std::string(dtype_name(i.dtype)) + i.shape.str() + "): element " +
                    std::to_string(bad->first) + " " + index_str(i.shape, bad->first) + " is " +
                    (std::isnan(bad->second) ? "NaN" : bad->second > 0 ? "+inf" : "-inf"));
}

std::string SafetensorsFile::sha256() const { return sha256_hex(map_, size_); }

void write_safetensors(const std::string& path, const std::vector<SafetensorsEntry>& entries,
                       const std::map<std::string, std::string>& metadata) {
  json header = json::object();
  uint64_t offset = 0;
  for (const auto& e : entries) {
    auto bad = [&](const std::string& what) { throw std::invalid_argument(path + ": entry '" + e.name + "': " + what); };
    if (e.name == "__metadata__") bad("the name __metadata__ is reserved");
    if (header.contains(e.name)) bad("duplicate name");
    if (e.shape.rank < 0 || e.shape.rank > kMaxRank) bad("rank " + std::to_string(e.shape.rank) + " is outside 0..4");
    for (int d = 0; d < e.shape.rank; ++d)
      if (e.shape[d] < 0) bad("shape " + e.shape.str() + " has a negative dimension");
    auto expected = checked_bytes(e.shape, e.dtype);
    const std::string described = std::string(dtype_name(e.dtype)) + e.shape.str();
    if (!expected) bad(described + " has more bytes than fit in 64 bits");
    if (*expected != e.bytes)
      bad(described + " needs " + std::to_string(*expected) + " bytes, given " + std::to_string(e.bytes));
    if (e.bytes && !e.data) bad("data is null");
    std::vector<int64_t> dims(e.shape.dim.begin(), e.shape.dim.begin() + e.shape.rank);
    header[e.name] = {{"dtype", std::string(dtype_name(e.dtype))}, {"shape", dims}, {"data_offsets", {offset, offset + e.bytes}}};
    offset += e.bytes;
  }
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string text = header.dump();  // nlohmann objects keep keys sorted
  text.append((8 - text.size() % 8) % 8, ' ');

  replace_file(path, [&](const std::string& temp) {
    FdGuard fd{::open(temp.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC)};
    if (fd.fd < 0) fail(path, "cannot open temporary file '" + temp + "': " + std::strerror(errno));
    unsigned char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(static_cast<uint64_t>(text.size()) >> (8 * i));
    write_all(fd.fd, len, sizeof len, path, temp);
    write_all(fd.fd, text.data(), text.size(), path, temp);
    for (const auto& e : entries) write_all(fd.fd, e.data, e.bytes, path, temp);
    if (::fsync(fd.fd) != 0) fail(path, "fsync of temporary file '" + temp + "' failed: " + std::strerror(errno));
    const int closing = std::exchange(fd.fd, -1);
    if (::close(closing) != 0) fail(path, "close of temporary file '" + temp + "' failed: " + std::strerror(errno));
  });
}

}  // namespace music3::io
