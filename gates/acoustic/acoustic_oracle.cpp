#include "gates/acoustic/acoustic_oracle.h"

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/io/safetensors.h"
#include "engine/io/sha256.h"
#include "engine/models/music3/acoustic/condition_encoder_loader.h"
#include "engine/models/music3/acoustic/dit_loader.h"
#include "gates/lib/oracle_paths.h"

namespace music3::gates {
namespace fs = std::filesystem;

namespace {
constexpr const char* kComponent = "acoustic";

std::string checkpoints_root() {
  const char* v = std::getenv("MUSIC3_ACOUSTIC_ORACLE_DIR");
  return v && *v ? v : MUSIC3_DEFAULT_ACOUSTIC_ORACLE_DIR;
}
const nlohmann::json& manifest() { return oracle_manifest(kComponent); }
std::string case_prefix(const AcousticCase& c) {
  return "checkpoints/" + c.geometry + "/seed" + std::to_string(c.seed) + "/";
}
}  // namespace

std::vector<AcousticCase> acoustic_cases() {
  std::vector<AcousticCase> out;
  for (const auto& [geometry, _] : manifest().at("geometries").items())
    for (const auto& seed : manifest().at("seeds")) out.push_back({geometry, seed.get<int>()});
  return out;
}

std::string acoustic_checkpoint_dir(const AcousticCase& c) { return checkpoints_root() + "/" + case_prefix(c); }

void verify_acoustic_checkpoint(const AcousticCase& c) {
  const std::string prefix = case_prefix(c);
  size_t checked = 0;
  for (const auto& [rel, entry] : manifest().at("files").items()) {
    if (rel.rfind(prefix, 0) != 0) continue;
    const std::string path = checkpoints_root() + "/" + rel;
    if (!fs::exists(path))
      throw std::runtime_error(path + ": missing; the ctest fixture acoustic_oracle (acoustic_oracle_setup) writes it");
    const std::string actual = io::sha256_file(path), expected = entry.at("sha256").get<std::string>();
    if (actual != expected)
      throw std::runtime_error(path + ": sha256 " + actual + ", the acoustic manifest records " + expected);
    ++checked;
  }
  if (checked == 0) throw std::runtime_error("the acoustic manifest lists no checkpoint files for " + c.name());
}

acoustic::ConditionEncoderWeights load_encoder_case(const AcousticCase& c) {
  verify_acoustic_checkpoint(c);
  return acoustic::load_condition_encoder(acoustic_checkpoint_dir(c) + "condition_encoder");
}

acoustic::DitWeights load_dit_case(const AcousticCase& c) {
  verify_acoustic_checkpoint(c);
  return acoustic::load_dit(acoustic_checkpoint_dir(c) + "transformer");
}

std::string acoustic_golden(const AcousticCase& c) {
  return goldens_dir(kComponent) + "/" + c.geometry + "/seed" + std::to_string(c.seed) + ".safetensors";
}

GoldenTensor read_golden(const std::string& file, const std::string& tensor) {
  io::SafetensorsFile f(file);
  const Tensor t = f.tensor(tensor);
  if (t.dtype != DType::BF16) throw std::runtime_error(file + ": tensor '" + tensor + "' is not BF16");
  GoldenTensor out;
  for (int i = 0; i < t.shape.rank; ++i) out.shape.push_back(t.shape[i]);
  out.data.assign(t.as<const bf16>(), t.as<const bf16>() + t.numel());
  return out;
}

}  // namespace music3::gates
