#include "engine/core/bf16_from_bytes.h"
#include "engine/models/music3/acoustic/acoustic_tensor_reader.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace music3::acoustic {
namespace fs = std::filesystem;

std::string component_folder(const std::string& dir, const std::string& sub) {
  if (fs::exists(fs::path(dir) / "config.json")) return dir;
  if (fs::exists(fs::path(dir) / sub / "config.json")) return (fs::path(dir) / sub).string();
  throw std::runtime_error("checkpoint '" + dir + "': no config.json here nor in " + sub + "/");
}

TensorReader::TensorReader(const io::SafetensorsSet& set, const std::vector<TensorSpec>& expected) : set_(set) {
  for (const auto& spec : expected) {
    if (!set.has(spec.name)) throw std::runtime_error(set.path() + ": missing tensor '" + spec.name + "'");
    expected_[spec.name] = spec.shape;
  }
  for (const auto& name : set.names())
    if (!expected_.count(name)) throw std::runtime_error(set.path() + ": unexpected tensor '" + name + "'");
}

HostTensor TensorReader::take(const std::string& name) {
  const Shape& want = expected_.at(name);
  const io::SafetensorsFile& file = set_.file_of(name);
  const Tensor src = file.tensor(name);
  if (!(src.shape == want))
    throw std::runtime_error(file.path() + ": tensor '" + name + "' has shape " + src.shape.str() + ", expected " +
                             want.str());
  const int64_t n = want.numel();
  HostTensor out;
  if (src.dtype == DType::BF16 && reinterpret_cast<uintptr_t>(src.data) % alignof(bf16) == 0) {
    out = HostTensor::mapped(want, src.as<const bf16>(), set_.keeper());
  } else if (src.dtype == DType::BF16) {
    out = HostTensor(want);
    std::memcpy(out.mutable_ptr(), src.data, size_t(n) * sizeof(bf16));
  } else if (src.dtype == DType::F32) {
    out = HostTensor(want);
    bf16* d = out.mutable_ptr();
    bf16_from_f32_bytes(src.data, n, d);
    ++converted_;
  } else {
    throw std::runtime_error(file.path() + ": tensor '" + name + "' has dtype " + std::string(dtype_name(src.dtype)) +
                             ", expected F32 (rounded to bf16 at load) or BF16");
  }
  if (const int64_t bad = first_nonfinite(out.ptr(), n); bad >= 0)
    throw std::runtime_error(file.path() + ": tensor '" + name + "' has a non-finite value at element " +
                             std::to_string(bad));
  ++taken_;
  return out;
}

}  // namespace music3::acoustic
