// Reads the acoustic components' tensors (condition_encoder/, transformer/) out of one safetensors file or a
// sharded set, as bf16 host tensors.
// Cast point: the checkpoint stores f32 (the release) or bf16; an f32 tensor is rounded to bf16 (nearest, ties to
// even) here, once, exactly as the documented usage's load_components(dtype=bfloat16) casts the module before its
// first forward; a bf16 tensor is viewed in place in the mapping. Nothing downstream sees f32 weights.
// Contract: the constructor refuses, naming the checkpoint and the tensor, a tensor the expected list holds but
// the set does not ("missing tensor"), and one the set holds but the list does not ("unexpected tensor", which
// also catches a shard whose tensors the model would ignore). take() refuses a wrong shape, a dtype other than
// BF16/F32 and a non-finite value (naming the element), and counts the f32 conversions. Truncated or lying
// files and inconsistent indexes are refused by io::SafetensorsSet. Used by one thread at a time.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/io/safetensors_set.h"
#include "engine/runtime/host_tensor.h"

namespace music3::acoustic {

using runtime::HostTensor;

struct TensorSpec {
  std::string name;
  Shape shape;
};

// What a loader read: the single file or the index, its sha256, the shard count, the tensors taken and how many
// of them were stored F32 and rounded to bf16.
struct AcousticLoadReport {
  std::string weights_path;
  std::string weights_sha256;
  size_t shards = 0;
  size_t tensors = 0;
  size_t converted = 0;
};

class TensorReader {
 public:
  TensorReader(const io::SafetensorsSet& set, const std::vector<TensorSpec>& expected);
  HostTensor take(const std::string& name);
  size_t taken() const { return taken_; }
  size_t converted() const { return converted_; }

 private:
  const io::SafetensorsSet& set_;
  std::map<std::string, Shape> expected_;
  size_t taken_ = 0, converted_ = 0;
};

// The component folder: `dir` itself when it holds config.json, else dir/<sub>; throws naming both.
std::string component_folder(const std::string& dir, const std::string& sub);

}  // namespace music3::acoustic
