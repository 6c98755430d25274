#include "gates/vocoder/vocoder_oracle.h"

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/io/safetensors.h"
#include "engine/io/sha256.h"
#include "engine/models/music3/vocoder/vocoder_loader.h"
#include "gates/lib/oracle_paths.h"

namespace music3::gates {
namespace fs = std::filesystem;

namespace {
constexpr const char* kComponent = "vocoder";

std::string checkpoints_root() {
  const char* v = std::getenv("MUSIC3_VOCODER_ORACLE_DIR");
  return v && *v ? v : MUSIC3_DEFAULT_VOCODER_ORACLE_DIR;
}
const nlohmann::json& manifest() { return oracle_manifest(kComponent); }

std::vector<int64_t> shape_of(const Shape& s) {
  std::vector<int64_t> out;
  for (int i = 0; i < s.rank; ++i) out.push_back(s[i]);
  return out;
}
}  // namespace

std::vector<VocoderCase> vocoder_cases() {
  std::vector<VocoderCase> out;
  for (const auto& [geometry, _] : manifest().at("geometries").items())
    for (const auto& seed : manifest().at("seeds")) out.push_back({geometry, seed.get<int>()});
  return out;
}

std::vector<int> vocoder_stitch_seeds() {
  std::vector<int> out;
  for (const auto& [seed, _] : manifest().at("stitch").at("lengths").items()) out.push_back(std::stoi(seed));
  return out;
}

std::string vocoder_stitch_geometry() { return manifest().at("stitch").at("geometry").get<std::string>(); }

std::string vocoder_checkpoint_dir(const VocoderCase& c) {
  return checkpoints_root() + "/checkpoints/" + c.geometry + "/seed" + std::to_string(c.seed) + "/vocoder";
}

vocoder::VocoderWeights load_vocoder_case(const VocoderCase& c) {
  const std::string rel = "checkpoints/" + c.geometry + "/seed" + std::to_string(c.seed) +
                          "/vocoder/diffusion_pytorch_model.safetensors";
  const std::string expected = manifest().at("files").at(rel).at("sha256").get<std::string>();
  const std::string path = checkpoints_root() + "/" + rel;
  if (!fs::exists(path))
    throw std::runtime_error(path + ": missing; the ctest fixture vocoder_oracle (vocoder_oracle_setup) writes it");
  const std::string actual = io::sha256_file(path);
  if (actual != expected)
    throw std::runtime_error(path + ": sha256 " + actual + ", the vocoder manifest records " + expected);
  return vocoder::load_vocoder_checkpoint(vocoder_checkpoint_dir(c));
}

std::string vocoder_parity_golden(const VocoderCase& c) {
  return goldens_dir(kComponent) + "/parity/" + c.geometry + "/seed" + std::to_string(c.seed) + ".safetensors";
}

std::string vocoder_stitch_golden(int seed) { return goldens_dir(kComponent) + "/stitch/seed" + std::to_string(seed) + ".safetensors"; }

std::string vocoder_stage_file(const VocoderCase& c) {
  const std::string path = checkpoints_root() + "/stages/" + c.geometry + "/seed" + std::to_string(c.seed) + ".safetensors";
  if (!fs::exists(path))
    throw std::runtime_error(path + ": missing; the ctest fixture vocoder_stages (vocoder_stages_setup) writes it");
  return path;
}

Bf16Tensor read_bf16(const std::string& file, const std::string& tensor) {
  io::SafetensorsFile f(file);
  const Tensor t = f.tensor(tensor);
  if (t.dtype != DType::BF16) throw std::runtime_error(file + ": tensor '" + tensor + "' is not BF16");
  Bf16Tensor out{shape_of(t.shape), std::vector<bf16>(t.as<const bf16>(), t.as<const bf16>() + t.numel())};
  return out;
}

std::vector<float> read_f32(const std::string& file, const std::string& tensor, std::vector<int64_t>* shape) {
  io::SafetensorsFile f(file);
  const Tensor t = f.tensor(tensor);
  if (t.dtype != DType::F32) throw std::runtime_error(file + ": tensor '" + tensor + "' is not F32");
  if (shape) *shape = shape_of(t.shape);
  return std::vector<float>(t.as<const float>(), t.as<const float>() + t.numel());
}

}  // namespace music3::gates
