#include "gates/depth/depth_oracle_cases.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/io/safetensors.h"
#include "engine/models/music3/depth/depth_loader.h"

namespace music3::gates {
namespace {
const nlohmann::json& manifest() { return oracle_manifest("depth"); }

template <class T>
std::vector<T> take(const io::SafetensorsFile& f, const std::string& name, DType dt, const Shape& shape) {
  const Tensor t = f.require(name, dt, shape);
  std::vector<T> v(static_cast<size_t>(t.numel()));
  std::memcpy(v.data(), t.data, t.bytes());
  return v;
}
}  // namespace

std::vector<OracleCase> oracle_cases() {
  std::vector<OracleCase> cases;
  for (const auto& g : manifest().at("geometries").items())
    for (const auto& s : manifest().at("seeds")) cases.push_back({g.key(), s.get<int>()});
  return cases;
}

std::string golden_path(const OracleCase& c) {
  return goldens_dir("depth") + "/" + c.geometry + "/seed" + std::to_string(c.seed) + ".safetensors";
}

depth::DepthWeights load_case_weights(const OracleCase& c) {
  const std::string rel = "checkpoints/" + c.geometry + "/seed" + std::to_string(c.seed) + "/rvq_depth_decoder";
  const std::string dir = oracle_dir() + "/" + rel;
  const auto& files = manifest().at("files");
  const std::string key = rel + "/diffusion_pytorch_model.safetensors";
  if (!files.contains(key)) throw std::runtime_error("manifest has no entry " + key);
  depth::LoadReport report;
  depth::DepthWeights w = depth::load_depth_checkpoint(dir, &report);
  const std::string want = files.at(key).at("sha256").get<std::string>();
  if (report.weights_sha256 != want)
    throw std::runtime_error(dir + ": sha256 " + report.weights_sha256 + " differs from the manifest's " + want +
                             " (regenerate with the oracle_checkpoints fixture)");
  return w;
}

OracleGolden read_golden(const OracleCase& c, const depth::DepthConfig& cfg) { return read_golden(golden_path(c), cfg); }

OracleGolden read_golden(const std::string& path, const depth::DepthConfig& cfg) {
  io::SafetensorsFile f(path);
  OracleGolden g;
  g.frames = f.tensor("codes").shape[0];
  const int64_t F = g.frames, S = cfg.steps(), H = cfg.hidden, V = cfg.vocab;
  g.last_hidden = take<bf16>(f, "last_hidden", DType::BF16, {F, 2, H});
  g.c0_embedding = take<bf16>(f, "c0_embedding", DType::BF16, {F, H});
  g.exp_draws = take<float>(f, "exp_draws", DType::F32, {F, S, V});
  g.final_hidden = take<bf16>(f, "final_hidden", DType::BF16, {F, S, 2, H});
  g.head_logits = take<bf16>(f, "head_logits", DType::BF16, {F, S, 2, V});
  g.guided = take<float>(f, "guided_logits", DType::F32, {F, S, V});
  g.codes = take<int32_t>(f, "codes", DType::I32, {F, S});
  g.hidden = take<bf16>(f, "hidden", DType::BF16, {F, S, H});
  g.sample_probs = take<float>(f, "sample_probs", DType::F32, {F, S, V});
  return g;
}

}  // namespace music3::gates
