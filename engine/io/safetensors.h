// Safetensors files: a validated read-only mmap reader and an atomic writer.
//
// Reader contract: the constructor maps the whole file (PROT_READ, MAP_PRIVATE) and
// validates it before anything can be read, throwing std::runtime_error whose message
// starts with the file path and names the problem (the tensor, expected vs actual,
// byte offsets). A file that opens is spec-conformant: 8-byte little-endian header
// length L with L <= file size - 8 and L <= 100,000,000; a JSON object header with no
// duplicate keys; every entry has a known dtype, a shape of rank <= 4 with
// non-negative dims, and data_offsets [begin, end] inside the data section with
// end - begin == numel * dtype size; the ranges neither overlap nor leave holes and
// cover the data section exactly; __metadata__, when present, maps strings to strings.
// Views returned by tensor()/require() point into the mapping: they are read-only
// (writing through them faults), live as long as the SafetensorsFile (moving the
// file keeps them valid), and are aligned only as well as the file lays them out
// (the data section starts 8-aligned when L is a multiple of 8, as writers pad it).
//
// Writer contract: write_safetensors() writes the entries' bytes contiguously in the
// order given, with a header whose keys are sorted and which is padded with spaces
// to a multiple of 8 bytes; it writes a temporary sibling and renames it over the
// path, so a failed write leaves any previous file untouched. Bad entries (duplicate
// or reserved names, byte counts that disagree with shape x dtype) throw
// std::invalid_argument naming the entry.
// Thread-safety: const use of a SafetensorsFile is thread-safe; write_safetensors() is thread-safe for distinct paths.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/tensor.h"

namespace music3::io {

struct SafetensorsInfo {
  DType dtype = DType::BF16;
  Shape shape;
  uint64_t file_offset = 0;  // absolute byte offset of the first element in the file
  uint64_t bytes = 0;
};

class SafetensorsFile {
 public:
  explicit SafetensorsFile(std::string path);
  ~SafetensorsFile();
  SafetensorsFile(SafetensorsFile&& o) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&& o) noexcept;
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::string& path() const { return path_; }
  std::vector<std::string> names() const;  // sorted
  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  // The four lookups below throw "missing tensor 'NAME' in PATH" for absent names.
  const SafetensorsInfo& info(const std::string& name) const;
  Tensor tensor(const std::string& name) const;
  // The view, after checking dtype and shape; throws naming the tensor and the
  // expected and actual dtype and shape.
  Tensor require(const std::string& name, DType dtype, const Shape& shape) const;
  // Throws naming the tensor, the first non-finite element (flat and per-dim index)
  // and its value; floating dtypes only (BF16, F16, F32, F64).
  void check_finite(const std::string& name) const;

  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  uint64_t file_size() const { return size_; }
  std::string sha256() const;  // of the whole file, lowercase hex

 private:
  void validate_and_index();
  void release();

  std::string path_;
  const unsigned char* map_ = nullptr;
  uint64_t size_ = 0;
  std::map<std::string, SafetensorsInfo> tensors_;
  std::map<std::string, std::string> metadata_;
};

struct SafetensorsEntry {
  std::string name;
  DType dtype = DType::BF16;
  Shape shape;
  const void* data = nullptr;
  size_t bytes = 0;
};

void write_safetensors(const std::string& path, const std::vector<SafetensorsEntry>& entries,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace music3::io
