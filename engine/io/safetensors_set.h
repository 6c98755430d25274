// One checkpoint's tensors, whether they sit in one safetensors file or in shards
// listed by a `<stem>.safetensors.index.json` (the Hugging Face layout:
// {"metadata": {...}, "weight_map": {"tensor name": "shard file name", ...}}).
// Contract: open(dir, stem) reads `<dir>/<stem>.safetensors.index.json` when it
// exists, otherwise the single file `<dir>/<stem>.safetensors`. Every shard is opened
// by SafetensorsFile and so refused on the same rules (truncated, lying header, ...);
// the index is refused, naming the index file and the tensor or shard, when it is not
// a JSON object with a weight_map of strings, names a shard outside `dir` or one that
// does not exist, maps a tensor to a shard that lacks it, or when a shard holds a tensor
// the index does not map to it. Views point into the mappings, which stay valid while
// any copy of the set (or a keeper() pointer) lives; lookups throw "missing tensor
// 'NAME' in PATH" naming the index or the file. Thread-safety: const use is thread-safe.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/io/safetensors.h"

namespace music3::io {

class SafetensorsSet {
 public:
  static SafetensorsSet open(const std::string& dir, const std::string& stem);

  const std::string& path() const { return path_; }  // the index, or the single file
  bool sharded() const { return files_->size() > 1 || path_.ends_with(".index.json"); }
  std::vector<std::string> names() const;  // sorted
  bool has(const std::string& name) const { return where_.count(name) != 0; }
  const SafetensorsFile& file_of(const std::string& name) const;
  Tensor tensor(const std::string& name) const { return file_of(name).tensor(name); }
  Tensor require(const std::string& name, DType dtype, const Shape& shape) const {
    return file_of(name).require(name, dtype, shape);
  }
  void check_finite(const std::string& name) const { file_of(name).check_finite(name); }
  const std::vector<SafetensorsFile>& files() const { return *files_; }
  // sha256 of the single file, or of the index file for a sharded set.
  std::string sha256() const;
  // Keeps every mapping alive for as long as the returned pointer lives.
  std::shared_ptr<const void> keeper() const { return files_; }

 private:
  std::string path_;
  std::shared_ptr<std::vector<SafetensorsFile>> files_;
  std::map<std::string, size_t> where_;  // tensor -> index into files_
};

}  // namespace music3::io
