// Gate vocoder.loader (bad input) and vocoder.selection (arm selection, reachability, resident dtype): a
// regenerated checkpoint is rewritten with one defect at a time and must be refused with an error naming it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "engine/io/safetensors.h"
#include "engine/core/backend.h"
#include "engine/models/music3/vocoder/vocoder_device_arm.h"
#include "engine/models/music3/vocoder/vocoder_host_arm.h"
#include "engine/models/music3/vocoder/vocoder_loader.h"
#include "engine/models/music3/vocoder/vocoder_selector.h"
#include "gates/lib/gate_env.h"
#include "gates/vocoder/vocoder_oracle.h"

namespace music3::gates {
namespace {
namespace fs = std::filesystem;

struct Owned {
  DType dtype;
  Shape shape;
  std::vector<unsigned char> bytes;
};
using Tensors = std::map<std::string, Owned>;

const VocoderCase kCase{"narrow", 0};

Tensors original() {
  io::SafetensorsFile f(vocoder_checkpoint_dir(kCase) + "/diffusion_pytorch_model.safetensors");
  Tensors out;
  for (const auto& name : f.names()) {
    const Tensor t = f.tensor(name);
    const auto* p = static_cast<const unsigned char*>(t.data);
    out[name] = {t.dtype, t.shape, std::vector<unsigned char>(p, p + t.bytes())};
  }
  return out;
}

// Writes the tensors (and config.json, optionally edited) into a fresh folder and loads it; returns the error.
std::string load_error(const Tensors& tensors, const std::function<void(std::string&)>& edit_config = {}) {
  const fs::path dir = fs::temp_directory_path() / ("vocoder_loader_gate_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ifstream in(vocoder_checkpoint_dir(kCase) + "/config.json");
  std::string config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (edit_config) edit_config(config);
  std::ofstream(dir / "config.json") << config;
  std::vector<io::SafetensorsEntry> entries;
  for (const auto& [name, t] : tensors) entries.push_back({name, t.dtype, t.shape, t.bytes.data(), t.bytes.size()});
  io::write_safetensors((dir / "diffusion_pytorch_model.safetensors").string(), entries);
  std::string error;
  try {
    vocoder::load_vocoder_checkpoint(dir.string());
  } catch (const std::exception& e) {
    error = e.what();
  }
  fs::remove_all(dir);
  return error;
}

void expect_refused(const std::string& error, const std::string& needle) {
  EXPECT_NE(error.find(needle), std::string::npos) << "error: '" << error << "' does not name '" << needle << "'";
}

TEST(VocoderLoader, UntouchedCopyLoads) { EXPECT_EQ(load_error(original()), ""); }

TEST(VocoderLoader, WeightGWithoutWeightV) {
  auto t = original();
  t.erase("blocks.1.conv_t1.weight_v");
  const std::string e = load_error(t);
  expect_refused(e, "blocks.1.conv_t1.weight_g without its weight_v");
}

TEST(VocoderLoader, WrongKernelSize) {
  auto t = original();
  auto& v = t.at("blocks.0.res_unit2.conv1.weight_v");
  v.shape = Shape{v.shape[0], v.shape[1], 5};
  v.bytes.resize(static_cast<size_t>(v.shape.numel()) * 2);
  expect_refused(load_error(t), "'blocks.0.res_unit2.conv1.weight_v' has kernel size 5, expected 7");
}

TEST(VocoderLoader, MissingUnexpectedNonFiniteZeroNormAndConfig) {
  auto t = original();
  t.erase("conv_out.bias");
  expect_refused(load_error(t), "missing tensor 'conv_out.bias'");

  t = original();
  t["conv_in.weight"] = t.at("conv_in.weight_v");
  expect_refused(load_error(t), "unexpected tensor 'conv_in.weight'");

  t = original();
  auto& g = t.at("conv_in.weight_g");
  g.bytes[2] = 0x80, g.bytes[3] = 0x7F;  // element 1 = +inf (bf16 0x7F80)
  expect_refused(load_error(t), "'conv_in.weight_g' has a non-finite value at element 1");

  t = original();
  auto& v = t.at("blocks.2.res_unit1.conv2.weight_v");
  const size_t row = static_cast<size_t>(v.shape[1] * v.shape[2]) * 2;
  std::fill(v.bytes.begin() + static_cast<std::ptrdiff_t>(row), v.bytes.begin() + static_cast<std::ptrdiff_t>(2 * row), 0);
  expect_refused(load_error(t), "weight_v slice 1 is all zeros");

  t = original();
  auto& d = t.at("dec_in_proj.weight");
  d.dtype = DType::I32;
  d.shape = Shape{d.shape[0], d.shape[1] / 2, 1};
  expect_refused(load_error(t), "'dec_in_proj.weight' has shape");

  expect_refused(load_error(original(), [](std::string& c) {
                   c.replace(c.find("\"latent_channels\": 8"), 20, "\"latent_channels\": 7");
                 }),
                 "latent_channels must be even");
}

TEST(VocoderSelection, HostOnCpuDeviceWhereProvidedRefusedElsewhere) {
  using runtime::ArmKind;
  using runtime::ArmRequest;
  EXPECT_EQ(vocoder::choose_vocoder_arm(cpu_queue(1), ArmRequest::Auto).arm, ArmKind::Host);
  EXPECT_EQ(vocoder::choose_vocoder_arm(cpu_queue(1), ArmRequest::Host).arm, ArmKind::Host);
  EXPECT_EQ(vocoder::choose_vocoder_arm(cpu_queue(1), ArmRequest::Device).arm, ArmKind::Device);
  if (cuda_device_available()) EXPECT_EQ(vocoder::choose_vocoder_arm(cuda_queue(0), ArmRequest::Auto).arm, ArmKind::Device);
  // Every device type this machine has no queue for is refused by name, whatever the request.
  size_t refused = 0;
  for (DeviceType dev : all_device_types()) {
    if (dev == DeviceType::CPU || (dev == DeviceType::CUDA && cuda_device_available())) continue;
    for (auto req : {ArmRequest::Auto, ArmRequest::Host, ArmRequest::Device}) {
      try {
        vocoder::choose_vocoder_arm(fabricated_queue(dev), req);
        ADD_FAILURE() << "selection did not refuse " << device_type_name(dev);
      } catch (const runtime::ArmRefused& e) {
        EXPECT_EQ(e.device, dev);
        EXPECT_NE(std::string(e.what()).find("vocoder"), std::string::npos) << e.what();
        ++refused;
      }
    }
  }
  EXPECT_GE(refused, 3u);
  EXPECT_THROW(runtime::arm_request_from_name("gpu"), std::invalid_argument);
  // The production factory follows the choice: never the host arm for a Device request.
  const auto w = load_vocoder_case(kCase);
  EXPECT_EQ(vocoder::make_vocoder_arm(w, cpu_queue(1), ArmRequest::Auto)->kind(), ArmKind::Host);
  EXPECT_EQ(vocoder::make_vocoder_arm(w, cpu_queue(1), ArmRequest::Device)->kind(), ArmKind::Device);
  EXPECT_THROW(vocoder::make_vocoder_arm(w, fabricated_queue(DeviceType::CUDA), ArmRequest::Host), runtime::ArmRefused);
}

TEST(VocoderSelection, ReachabilityAndResidentDtype) {
  const auto w = load_vocoder_case(kCase);
  static_assert(std::is_same_v<decltype(w.conv_in.weight)::value_type, bf16>, "resident weights are bf16");
  // 2-byte storage: the weights' bytes equal 2 x the parameter count of the checkpoint minus the folded g's.
  size_t params = 0, gs = 0;
  for (const auto& spec : vocoder::expected_tensors(w.cfg)) {
    params += static_cast<size_t>(spec.shape.numel());
    if (spec.name.ends_with(".weight_g")) gs += static_cast<size_t>(spec.shape.numel());
  }
  EXPECT_EQ(w.bytes(), 2 * (params - gs));
  vocoder::VocoderHostArm arm(w, 1);
  const Bf16Tensor lat = read_bf16(vocoder_parity_golden(kCase), "latents");
  arm.decode(lat.data.data(), lat.shape[2]);
  arm.decode(lat.data.data(), lat.shape[2]);
  EXPECT_EQ(arm.forwards(), 2);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
