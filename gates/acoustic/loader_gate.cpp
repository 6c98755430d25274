// Gate acoustic.loader (bad input) and acoustic.selection: a regenerated checkpoint (condition_encoder/, and the
// sharded f32 transformer/) is copied and damaged one defect at a time, and must be refused with an error naming
// the defect; the arm factories give the host arm on a CPU queue and refuse every other device by name.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/core/backend.h"
#include "engine/io/safetensors.h"
#include "engine/models/music3/acoustic/acoustic_selector.h"
#include "engine/models/music3/acoustic/condition_encoder_loader.h"
#include "engine/models/music3/acoustic/dit_loader.h"
#include "gates/acoustic/acoustic_oracle.h"
#include "gates/lib/gate_env.h"

namespace music3::gates {
namespace {
namespace fs = std::filesystem;

const AcousticCase kCase{"tiny", 0};

struct Owned {
  DType dtype;
  Shape shape;
  std::vector<unsigned char> bytes;
};
using Tensors = std::map<std::string, Owned>;

Tensors read_file(const fs::path& path) {
  io::SafetensorsFile f(path.string());
  Tensors out;
  for (const auto& name : f.names()) {
    const Tensor t = f.tensor(name);
    const auto* p = static_cast<const unsigned char*>(t.data);
    out[name] = {t.dtype, t.shape, std::vector<unsigned char>(p, p + t.bytes())};
  }
  return out;
}

void write_file(const fs::path& path, const Tensors& tensors) {
  std::vector<io::SafetensorsEntry> entries;
  for (const auto& [name, t] : tensors) entries.push_back({name, t.dtype, t.shape, t.bytes.data(), t.bytes.size()});
  io::write_safetensors(path.string(), entries);
}

// A private copy of the case's component folder, damaged by `damage`, then loaded; returns the error ("" = loaded).
std::string load_error(const std::string& component, const std::function<void(const fs::path&)>& damage) {
  verify_acoustic_checkpoint(kCase);
  const fs::path dir = fs::temp_directory_path() / ("acoustic_loader_gate_" + std::to_string(::getpid())) / component;
  fs::remove_all(dir.parent_path());
  fs::create_directories(dir.parent_path());
  fs::copy(acoustic_checkpoint_dir(kCase) + component, dir);
  damage(dir);
  std::string error;
  try {
    if (component == "transformer") acoustic::load_dit(dir.string());
    else acoustic::load_condition_encoder(dir.string());
  } catch (const std::exception& e) {
    error = e.what();
  }
  fs::remove_all(dir.parent_path());
  return error;
}

// The shard holding `tensor` (the transformer is always sharded by the bridge).
fs::path shard_of(const fs::path& dir, const std::string& tensor) {
  std::ifstream in(dir / "diffusion_pytorch_model.safetensors.index.json");
  const auto index = nlohmann::json::parse(in);
  return dir / index.at("weight_map").at(tensor).get<std::string>();
}

void edit_tensor(const fs::path& dir, const std::string& tensor, const std::function<void(Tensors&)>& edit,
                 bool sharded = true) {
  const fs::path file = sharded ? shard_of(dir, tensor) : dir / "diffusion_pytorch_model.safetensors";
  Tensors t = read_file(file);
  edit(t);
  write_file(file, t);
}

void expect_refused(const std::string& error, const std::string& needle) {
  EXPECT_NE(error.find(needle), std::string::npos) << "error: '" << error << "' does not name '" << needle << "'";
}

const char* kNorm = "transformer_blocks.1.norm2.weight";

TEST(AcousticLoader, UntouchedCopiesLoadAndEveryF32TensorIsRoundedOnce) {
  EXPECT_EQ(load_error("transformer", [](const fs::path&) {}), "");
  EXPECT_EQ(load_error("condition_encoder", [](const fs::path&) {}), "");
  acoustic::AcousticLoadReport r;
  const auto w = acoustic::load_dit(acoustic_checkpoint_dir(kCase) + "transformer", &r);
  EXPECT_GE(r.shards, 2u) << "the bridge writes the transformer in shards";
  EXPECT_EQ(r.tensors, acoustic::dit_tensors(w.cfg).size());
  EXPECT_EQ(r.converted, r.tensors) << "the checkpoint stores f32, as the release does";
  size_t params = 0;
  for (const auto& s : acoustic::dit_tensors(w.cfg)) params += size_t(s.shape.numel());
  EXPECT_EQ(w.bytes(), 2 * params) << "resident weights are bf16";
}

TEST(AcousticLoader, TransformerDefectsAreNamed) {
  expect_refused(load_error("transformer", [](const fs::path& d) {
                   edit_tensor(d, kNorm, [](Tensors& t) { t.erase(kNorm); });
                 }),
                 std::string("tensor '") + kNorm + "' is mapped to shard");
  expect_refused(load_error("transformer", [](const fs::path& d) {
                   const fs::path idx = d / "diffusion_pytorch_model.safetensors.index.json";
                   std::ifstream in(idx);
                   auto j = nlohmann::json::parse(in);
                   in.close();
                   j["weight_map"].erase(kNorm);
                   std::ofstream(idx) << j.dump();
                 }),
                 std::string("holds tensor '") + kNorm + "', which the index does not map to it");
  expect_refused(load_error("transformer", [](const fs::path& d) {
                   const fs::path idx = d / "diffusion_pytorch_model.safetensors.index.json";
                   std::ifstream in(idx);
                   auto j = nlohmann::json::parse(in);
                   in.close();
                   const fs::path f = d / j["weight_map"]["proj_out.weight"].get<std::string>();
                   Tensors t = read_file(f);
                   t.erase("proj_out.weight");
                   write_file(f, t);
                   j["weight_map"].erase("proj_out.weight");
                   std::ofstream(idx) << j.dump();
                 }),
                 "missing tensor 'proj_out.weight'");
  expect_refused(load_error("transformer", [](const fs::path& d) {
                   const fs::path f = shard_of(d, kNorm);
                   fs::resize_file(f, fs::file_size(f) - 4);
                 }),
                 "diffusion_pytorch_model-");
  expect_refused(load_error("transformer", [](const fs::path& d) {
                   edit_tensor(d, kNorm, [](Tensors& t) {
                     auto& v = t.at(kNorm);
                     v.shape = Shape{v.shape[0] / 2};
                     v.bytes.resize(v.bytes.size() / 2);
                   });
                 }),
                 std::string("tensor '") + kNorm + "' has shape");
  expect_refused(load_error("transformer", [](const fs::path& d) {
                   edit_tensor(d, kNorm, [](Tensors& t) { t.at(kNorm).dtype = DType::I32; });
                 }),
                 std::string("tensor '") + kNorm + "' has dtype I32");
  expect_refused(load_error("transformer", [](const fs::path& d) {
                   edit_tensor(d, "time_proj.weight", [](Tensors& t) {
                     const float inf = INFINITY;
                     std::memcpy(t.at("time_proj.weight").bytes.data() + 4, &inf, 4);
                   });
                 }),
                 "tensor 'time_proj.weight' has a non-finite value at element 1");
  // A tensor in a shard that the index does not list, then one listed by both: neither is silently ignored.
  expect_refused(load_error("transformer", [](const fs::path& d) {
                   edit_tensor(d, kNorm, [](Tensors& t) { t["transformer_blocks.9.norm1.weight"] = t.at(kNorm); });
                 }),
                 "holds tensor 'transformer_blocks.9.norm1.weight', which the index does not map to it");
  expect_refused(load_error("transformer", [](const fs::path& d) {
                   edit_tensor(d, kNorm, [](Tensors& t) { t["transformer_blocks.9.norm1.weight"] = t.at(kNorm); });
                   const fs::path idx = d / "diffusion_pytorch_model.safetensors.index.json";
                   std::ifstream in(idx);
                   auto j = nlohmann::json::parse(in);
                   in.close();
                   j["weight_map"]["transformer_blocks.9.norm1.weight"] = j["weight_map"][kNorm];
                   std::ofstream(idx) << j.dump();
                 }),
                 "unexpected tensor 'transformer_blocks.9.norm1.weight'");
  expect_refused(load_error("transformer", [](const fs::path& d) {
                   std::ifstream in(d / "config.json");
                   auto j = nlohmann::json::parse(in);
                   in.close();
                   j["rotary_dim"] = 3;
                   std::ofstream(d / "config.json") << j.dump();
                 }),
                 "rotary_dim must be even");
}

TEST(AcousticLoader, EncoderDefectsAreNamed) {
  expect_refused(load_error("condition_encoder", [](const fs::path& d) {
                   edit_tensor(d, "layer_scale", [](Tensors& t) { t.erase("layer_scale"); }, false);
                 }),
                 "missing tensor 'layer_scale'");
  expect_refused(load_error("condition_encoder", [](const fs::path& d) {
                   edit_tensor(d, "layer_scale", [](Tensors& t) { t["proj.weight_g"] = t.at("layer_scale"); }, false);
                 }),
                 "unexpected tensor 'proj.weight_g'");
  expect_refused(load_error("condition_encoder", [](const fs::path& d) {
                   edit_tensor(d, "layer_weight_logits", [](Tensors& t) {
                     const float nan = NAN;
                     std::memcpy(t.at("layer_weight_logits").bytes.data() + 8, &nan, 4);
                   }, false);
                 }),
                 "tensor 'layer_weight_logits' has a non-finite value at element 2");
  expect_refused(load_error("condition_encoder", [](const fs::path& d) {
                   edit_tensor(d, "proj.weight", [](Tensors& t) {
                     auto& v = t.at("proj.weight");
                     v.shape = Shape{v.shape[0], v.shape[1], 1};
                     v.bytes.resize(v.bytes.size() / 3);
                   }, false);
                 }),
                 "tensor 'proj.weight' has shape");
  expect_refused(load_error("condition_encoder", [](const fs::path& d) {
                   std::ifstream in(d / "config.json");
                   auto j = nlohmann::json::parse(in);
                   in.close();
                   j["_class_name"] = "MiniMaxMusic3Vocoder";
                   std::ofstream(d / "config.json") << j.dump();
                 }),
                 "expected 'MiniMaxMusic3ConditionEncoder'");
}

TEST(AcousticSelection, HostOnCpuDeviceOnRequestRefusedElsewhere) {
  using runtime::ArmKind;
  using runtime::ArmRequest;
  const auto enc = load_encoder_case(kCase);
  const auto dit = load_dit_case(kCase);
  runtime::ArmInstruments ins;
  EXPECT_EQ(acoustic::make_dit_arm(dit, cpu_queue(1), ArmRequest::Auto, ins)->kind(), ArmKind::Host);
  EXPECT_EQ(acoustic::make_dit_arm(dit, cpu_queue(1), ArmRequest::Host, ins)->kind(), ArmKind::Host);
  EXPECT_EQ(acoustic::make_condition_encoder_arm(enc, cpu_queue(1), ArmRequest::Auto, ins)->kind(), ArmKind::Host);
  EXPECT_EQ(ins.staging_count, 0u) << "a host arm stages nothing";
  EXPECT_EQ(acoustic::make_dit_arm(dit, cpu_queue(1), ArmRequest::Device, ins)->kind(), ArmKind::Device);
  EXPECT_EQ(acoustic::make_condition_encoder_arm(enc, cpu_queue(1), ArmRequest::Device, ins)->kind(), ArmKind::Device);
  EXPECT_EQ(ins.staging_count, 2u);
  size_t refused = 0;
  for (DeviceType dev : all_device_types()) {
    if (dev == DeviceType::CPU) continue;
    for (auto req : {ArmRequest::Auto, ArmRequest::Host, ArmRequest::Device}) {
      try {
        acoustic::make_dit_arm(dit, fabricated_queue(dev), req, ins);
        ADD_FAILURE() << "the dit factory did not refuse " << device_type_name(dev);
      } catch (const runtime::ArmRefused& e) {
        EXPECT_EQ(e.device, dev);
        EXPECT_NE(std::string(e.what()).find("dit"), std::string::npos) << e.what();
        ++refused;
      }
      EXPECT_THROW(acoustic::make_condition_encoder_arm(enc, fabricated_queue(dev), req, ins), runtime::ArmRefused);
    }
  }
  EXPECT_GE(refused, 3u);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
