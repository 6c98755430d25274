#include "engine/core/bf16_from_bytes.h"
#include "engine/models/music3/depth/depth_loader.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "engine/io/component_config.h"
#include "engine/io/safetensors_set.h"

namespace music3::depth {
namespace fs = std::filesystem;

namespace {
std::string component_dir(const std::string& dir) {
  if (fs::exists(fs::path(dir) / "config.json")) return dir;
  if (fs::exists(fs::path(dir) / "rvq_depth_decoder" / "config.json")) return (fs::path(dir) / "rvq_depth_decoder").string();
  throw std::runtime_error("checkpoint '" + dir + "': no config.json here nor in rvq_depth_decoder/");
}

// The tensor as the weights hold it: a view of the mapping (bf16, 2-aligned) or an
// owned bf16 copy (F32 rounded, or bf16 the file lays out unaligned).
void take_tensor(const io::SafetensorsSet& set, const std::string& name, HostTensor& dst, LoadReport& report) {
  const io::SafetensorsFile& file = set.file_of(name);
  Tensor src = file.tensor(name);
  if (!(src.shape == dst.shape))
    throw std::runtime_error(file.path() + ": tensor '" + name + "' has shape " + src.shape.str() + ", expected " +
                             dst.shape.str());
  const int64_t n = src.numel();
  if (src.dtype == DType::BF16 && reinterpret_cast<uintptr_t>(src.data) % alignof(bf16) == 0) {
    dst = HostTensor::mapped(dst.shape, src.as<const bf16>(), set.keeper());
  } else if (src.dtype == DType::BF16) {
    dst = HostTensor(dst.shape);
    std::memcpy(dst.mutable_ptr(), src.data, src.bytes());
  } else if (src.dtype == DType::F32) {
    dst = HostTensor(dst.shape);
    bf16* d = dst.mutable_ptr();
    bf16_from_f32_bytes(src.data, n, d);
    report.converted.push_back(name);
  } else {
    throw std::runtime_error(file.path() + ": tensor '" + name + "' has dtype " + std::string(dtype_name(src.dtype)) +
                             ", expected BF16 (or F32, converted)");
  }
  if (const int64_t bad = first_nonfinite(dst.ptr(), n); bad >= 0)
    throw std::runtime_error(file.path() + ": tensor '" + name + "' has a non-finite value at element " +
                             std::to_string(bad));
  report.bytes_read += src.bytes();
}
}  // namespace

DepthWeights load_depth_checkpoint(const std::string& dir, LoadReport* report_out) {
  const std::string comp = component_dir(dir);
  const auto cfg = DepthConfig::from_component_config(io::ComponentConfig((fs::path(comp) / "config.json").string()));
  const io::SafetensorsSet set = io::SafetensorsSet::open(comp, "diffusion_pytorch_model");
  const std::string& path = set.path();

  LoadReport report;
  report.weights_path = path;
  report.weights_sha256 = set.sha256();
  DepthWeights w = DepthWeights::shapes(cfg);
  std::set<std::string> expected;
  for (auto& [spec, slot] : w.named()) {
    expected.insert(spec.name);
    if (!set.has(spec.name)) throw std::runtime_error(path + ": missing tensor '" + spec.name + "'");
    take_tensor(set, spec.name, *slot, report);
  }
  for (const auto& name : set.names())
    if (!expected.count(name)) throw std::runtime_error(path + ": unexpected tensor '" + name + "'");
  if (report_out) *report_out = report;
  return w;
}

}  // namespace music3::depth
