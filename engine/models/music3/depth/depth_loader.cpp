#include "engine/models/music3/depth/depth_loader.h"

#include <filesystem>
#include <set>
#include <stdexcept>

#include "engine/io/component_config.h"
#include "engine/io/safetensors.h"

namespace music3::depth {
namespace fs = std::filesystem;

namespace {
std::string component_dir(const std::string& dir) {
  if (fs::exists(fs::path(dir) / "config.json")) return dir;
  if (fs::exists(fs::path(dir) / "rvq_depth_decoder" / "config.json")) return (fs::path(dir) / "rvq_depth_decoder").string();
  throw std::runtime_error("checkpoint '" + dir + "': no config.json here nor in rvq_depth_decoder/");
}

void copy_tensor(const io::SafetensorsFile& file, const std::string& name, HostTensor& dst, LoadReport& report) {
  Tensor src = file.tensor(name);
  if (!(src.shape == dst.shape))
    throw std::runtime_error(file.path() + ": tensor '" + name + "' has shape " + src.shape.str() + ", expected " +
                             dst.shape.str());
  const int64_t n = src.numel();
  if (src.dtype == DType::BF16) {
    const auto* s = src.as<const bf16>();
    for (int64_t i = 0; i < n; ++i) dst.data[static_cast<size_t>(i)] = s[i];
  } else if (src.dtype == DType::F32) {
    const auto* s = src.as<const float>();
    for (int64_t i = 0; i < n; ++i) dst.data[static_cast<size_t>(i)] = to_bf16(s[i]);
    report.converted.push_back(name);
  } else {
    throw std::runtime_error(file.path() + ": tensor '" + name + "' has dtype " + std::string(dtype_name(src.dtype)) +
                             ", expected BF16 (or F32, converted)");
  }
  for (int64_t i = 0; i < n; ++i) {
    uint16_t b = dst.data[static_cast<size_t>(i)].bits;
    if ((b & 0x7F80u) == 0x7F80u)
      throw std::runtime_error(file.path() + ": tensor '" + name + "' has a non-finite value at element " +
                               std::to_string(i));
  }
  report.bytes_read += src.bytes();
}
}  // namespace

DepthWeights load_depth_checkpoint(const std::string& dir, LoadReport* report_out) {
  const std::string comp = component_dir(dir);
  const auto cfg = DepthConfig::from_component_config(io::ComponentConfig((fs::path(comp) / "config.json").string()));
  const std::string path = (fs::path(comp) / "diffusion_pytorch_model.safetensors").string();
  io::SafetensorsFile file(path);

  LoadReport report;
  report.weights_path = path;
  report.weights_sha256 = file.sha256();
  DepthWeights w = DepthWeights::allocate(cfg);
  std::set<std::string> expected;
  for (auto& [spec, slot] : w.named()) {
    expected.insert(spec.name);
    if (!file.has(spec.name)) throw std::runtime_error(path + ": missing tensor '" + spec.name + "'");
    copy_tensor(file, spec.name, *slot, report);
  }
  for (const auto& name : file.names())
    if (!expected.count(name)) throw std::runtime_error(path + ": unexpected tensor '" + name + "'");
  if (report_out) *report_out = report;
  return w;
}

}  // namespace music3::depth
