#include "gates/acoustic/loop_oracle.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "engine/io/safetensors.h"
#include "engine/io/sha256.h"
#include "gates/lib/oracle_paths.h"

namespace music3::gates {
namespace {

constexpr const char* kComponent = "acoustic_loop";

std::string oracle_root() {
  const char* v = std::getenv("MUSIC3_ACOUSTIC_LOOP_ORACLE_DIR");
  return v && *v ? v : MUSIC3_DEFAULT_ACOUSTIC_LOOP_ORACLE_DIR;
}

const nlohmann::json& manifest() { return oracle_manifest(kComponent); }

// The path of a generated file after its sha256 matched the manifest.
std::string verified(const std::string& rel) {
  const std::string path = oracle_root() + "/" + rel;
  if (!std::filesystem::exists(path))
    throw std::runtime_error(path + ": missing; the ctest fixture acoustic_loop_oracle (acoustic_loop_oracle_setup) "
                                    "writes it");
  const std::string expected = manifest().at("files").at(rel).at("sha256").get<std::string>();
  const std::string actual = io::sha256_file(path);
  if (actual != expected)
    throw std::runtime_error(path + ": sha256 " + actual + ", the acoustic_loop manifest records " + expected);
  return path;
}

template <class T>
std::vector<T> read_as(const std::string& file, const std::string& tensor, DType dtype, std::vector<int64_t>* shape) {
  io::SafetensorsFile f(file);
  const Tensor t = f.tensor(tensor);
  if (t.dtype != dtype)
    throw std::runtime_error(file + ": tensor '" + tensor + "' is " + t.describe() + ", expected " +
                             std::string(dtype_name(dtype)));
  if (shape) {
    shape->clear();
    for (int i = 0; i < t.shape.rank; ++i) shape->push_back(t.shape[i]);
  }
  return std::vector<T>(t.as<const T>(), t.as<const T>() + t.numel());
}

std::vector<int64_t> split_ints(const std::string& s) {
  std::vector<int64_t> out;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t comma = s.find(',', pos);
    out.push_back(std::stoll(s.substr(pos, comma - pos)));
    pos = comma == std::string::npos ? s.size() : comma + 1;
  }
  return out;
}

}  // namespace

std::vector<bf16> read_bf16(const std::string& file, const std::string& tensor, std::vector<int64_t>* shape) {
  return read_as<bf16>(file, tensor, DType::BF16, shape);
}

std::vector<float> read_f32(const std::string& file, const std::string& tensor, std::vector<int64_t>* shape) {
  return read_as<float>(file, tensor, DType::F32, shape);
}

std::vector<LoopCase> loop_cases() {
  std::vector<LoopCase> out;
  for (const auto& [geometry, _] : manifest().at("geometries").items())
    for (const auto& seed : manifest().at("seeds")) out.push_back({geometry, seed.get<int>()});
  return out;
}

std::string loop_checkpoint_root(const LoopCase& c) {
  const std::string root = "checkpoints/" + c.geometry + "/seed" + std::to_string(c.seed);
  for (const char* component : {"condition_encoder", "transformer"})
    verified(root + "/" + component + "/diffusion_pytorch_model.safetensors");
  return oracle_root() + "/" + root;
}

std::string loop_golden_file(const LoopCase& c) {
  return verified("goldens/" + c.geometry + "/seed" + std::to_string(c.seed) + ".safetensors");
}

std::string loop_schedules_file() { return verified("goldens/schedules.safetensors"); }

std::vector<int> loop_schedule_steps() { return manifest().at("schedule_steps").get<std::vector<int>>(); }

LoopGolden load_loop_golden(const LoopCase& c) {
  const std::string file = loop_golden_file(c);
  const auto& run = manifest().at("runs").at(c.name());
  LoopGolden g;
  g.steps = std::stoi(run.at("steps").get<std::string>());
  std::vector<int64_t> shape;
  g.frame_hiddens = read_bf16(file, "frame_hiddens", &shape);
  g.frames = shape.at(0);
  g.frame_width = shape.at(1);
  const auto starts = split_ints(run.at("starts").get<std::string>());
  const auto lengths = split_ints(run.at("lengths").get<std::string>());
  for (size_t k = 0; k < starts.size(); ++k) {
    const std::string p = "window" + std::to_string(k) + ".";
    LoopWindowGolden w;
    w.start = starts[k];
    w.length = lengths.at(k);
    w.noise = read_bf16(file, p + "noise", &shape);
    g.channels = shape.at(0);
    w.condition = read_bf16(file, p + "condition", &shape);
    g.cond_channels = shape.at(1);
    w.dit_condition = read_bf16(file, p + "dit_condition");
    w.sigmas = read_f32(file, p + "sigmas");
    w.dit_x = read_bf16(file, p + "dit_x");
    w.dit_t = read_bf16(file, p + "dit_t");
    w.v_cond = read_bf16(file, p + "v_cond");
    w.v_uncond = read_bf16(file, p + "v_uncond");
    w.latents = read_bf16(file, p + "latents");
    g.windows.push_back(std::move(w));
  }
  return g;
}

}  // namespace music3::gates
