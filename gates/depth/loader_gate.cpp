// The depth checkpoint loader on bad and unusual input: every refusal names the
// file and the tensor, nothing half-loads, and an f32-stored checkpoint is rounded
// to bf16 (nearest, ties to even) and reported tensor by tensor. A bf16 checkpoint is
// read in place (the weights view the mapped file), and a sharded one (index + shards)
// loads the same weights.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "engine/io/safetensors.h"
#include "engine/models/music3/depth/depth_loader.h"
#include "gates/depth/depth_oracle_cases.h"

namespace music3::gates {
namespace {
namespace fs = std::filesystem;

// Rewrites the embedded default checkpoint into a temporary folder, letting `edit`
// change the entry list (drop, reshape, retype, poison) before writing.
struct Entry {
  std::string name;
  DType dtype;
  Shape shape;
  std::vector<uint8_t> bytes;
};

fs::path rewrite(const std::string& tag, const std::function<void(std::vector<Entry>&)>& edit) {
  const fs::path src = fs::path(source_dir()) / "oracle_bridge/embedded/rvq_depth_decoder";
  const fs::path dir = fs::temp_directory_path() / ("music3_loader_gate_" + tag) / "rvq_depth_decoder";
  fs::create_directories(dir);
  fs::copy_file(src / "config.json", dir / "config.json", fs::copy_options::overwrite_existing);
  io::SafetensorsFile f((src / "diffusion_pytorch_model.safetensors").string());
  std::vector<Entry> entries;
  for (const auto& name : f.names()) {
    const Tensor t = f.tensor(name);
    const auto* p = static_cast<const uint8_t*>(t.data);
    entries.push_back({name, t.dtype, t.shape, std::vector<uint8_t>(p, p + t.bytes())});
  }
  edit(entries);
  std::vector<io::SafetensorsEntry> out;
  for (const auto& e : entries) out.push_back({e.name, e.dtype, e.shape, e.bytes.data(), e.bytes.size()});
  io::write_safetensors((dir / "diffusion_pytorch_model.safetensors").string(), out, {});
  return dir;
}

std::string load_error(const fs::path& dir) {
  try {
    depth::load_depth_checkpoint(dir.string());
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(DepthLoader, EmbeddedDefaultLoadsWithNoConversion) {
  depth::LoadReport report;
  auto w = depth::load_depth_checkpoint(source_dir() + "/oracle_bridge/embedded", &report);
  EXPECT_EQ(w.cfg.hidden, 64);
  EXPECT_TRUE(report.converted.empty());
  EXPECT_EQ(report.bytes_read, w.bytes());
  EXPECT_EQ(report.weights_sha256.size(), 64u);
  for (auto& [spec, slot] : w.named())
    EXPECT_TRUE(slot->is_mapped()) << spec.name << ": a bf16 tensor was copied instead of read in place";
}

TEST(DepthLoader, ShardedCheckpointLoadsTheSameWeights) {
  const fs::path dir = rewrite("sharded", [](std::vector<Entry>&) {});
  io::SafetensorsFile whole((dir / "diffusion_pytorch_model.safetensors").string());
  std::vector<io::SafetensorsEntry> first, second;
  std::string map;
  for (const auto& name : whole.names()) {
    const Tensor t = whole.tensor(name);
    const bool in_first = name < "layers.2";
    (in_first ? first : second).push_back({name, t.dtype, t.shape, t.data, t.bytes()});
    map += std::string(map.empty() ? "" : ", ") + "\"" + name + "\": \"" + (in_first ? "a" : "b") + ".safetensors\"";
  }
  io::write_safetensors((dir / "a.safetensors").string(), first);
  io::write_safetensors((dir / "b.safetensors").string(), second);
  std::ofstream(dir / "diffusion_pytorch_model.safetensors.index.json") << "{\"weight_map\": {" << map << "}}";
  depth::LoadReport report;
  auto sharded = depth::load_depth_checkpoint(dir.string(), &report);
  auto single = depth::load_depth_checkpoint(source_dir() + "/oracle_bridge/embedded");
  EXPECT_NE(report.weights_path.find(".index.json"), std::string::npos) << report.weights_path;
  const auto a = sharded.named(), b = single.named();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(a[i].second->is_mapped()) << a[i].first.name;
    EXPECT_EQ(std::memcmp(a[i].second->ptr(), b[i].second->ptr(), b[i].second->bytes()), 0) << a[i].first.name;
  }
  fs::remove(dir / "b.safetensors");
  EXPECT_NE(load_error(dir).find("shard 'b.safetensors' does not exist"), std::string::npos) << load_error(dir);
}

TEST(DepthLoader, F32CheckpointIsRoundedToNearestEvenAndReported) {
  // Store every tensor as f32 values that sit exactly between two bf16 values or just off them.
  const auto dir = rewrite("f32", [](std::vector<Entry>& es) {
    for (auto& e : es) {
      std::vector<uint8_t> wide(e.bytes.size() * 2);
      for (size_t i = 0; i < e.bytes.size() / 2; ++i) {
        uint16_t b;
        std::memcpy(&b, &e.bytes[2 * i], 2);
        const uint32_t lo = (i % 3 == 0) ? 0x8000u : (i % 3 == 1 ? 0x7FFFu : 0x8001u);  // tie, below, above
        const uint32_t u = (uint32_t(b) << 16) | lo;
        std::memcpy(&wide[4 * i], &u, 4);
      }
      e.dtype = DType::F32;
      e.bytes = std::move(wide);
    }
  });
  depth::LoadReport report;
  const auto w = depth::load_depth_checkpoint(dir.string(), &report);
  const auto expected = depth::DepthWeights::expected_tensors(w.cfg);
  EXPECT_EQ(report.converted.size(), expected.size());
  // Check the rounding on one tensor against the rule, element by element.
  const auto orig = depth::load_depth_checkpoint(source_dir() + "/oracle_bridge/embedded");
  for (size_t i = 0; i < size_t(orig.projection.numel()); ++i) {
    const uint16_t b = orig.projection.ptr()[i].bits;
    uint16_t want = b;
    if (i % 3 == 0) want = static_cast<uint16_t>(b + (b & 1u));  // tie: to even
    if (i % 3 == 2) want = static_cast<uint16_t>(b + 1u);        // above half: up
    ASSERT_EQ(w.projection.ptr()[i].bits, want) << "element " << i;
  }
}

TEST(DepthLoader, MissingTensorIsNamed) {
  const auto dir = rewrite("missing", [](std::vector<Entry>& es) {
    std::erase_if(es, [](const Entry& e) { return e.name == "layers.1.up_proj.weight"; });
  });
  const std::string err = load_error(dir);
  EXPECT_NE(err.find("missing tensor 'layers.1.up_proj.weight'"), std::string::npos) << err;
}

TEST(DepthLoader, WrongShapeIsNamed) {
  const auto dir = rewrite("shape", [](std::vector<Entry>& es) {
    for (auto& e : es)
      if (e.name == "norm.weight") {
        e.shape = Shape{32};
        e.bytes.resize(64);
      }
  });
  const std::string err = load_error(dir);
  EXPECT_NE(err.find("'norm.weight'"), std::string::npos) << err;
  EXPECT_NE(err.find("[32]"), std::string::npos) << err;
  EXPECT_NE(err.find("[64]"), std::string::npos) << err;
}

TEST(DepthLoader, UnsupportedDtypeIsNamed) {
  const auto dir = rewrite("dtype", [](std::vector<Entry>& es) {
    for (auto& e : es)
      if (e.name == "projection.weight") e.dtype = DType::F16;
  });
  const std::string err = load_error(dir);
  EXPECT_NE(err.find("'projection.weight'"), std::string::npos) << err;
  EXPECT_NE(err.find("F16"), std::string::npos) << err;
}

TEST(DepthLoader, NonFiniteWeightIsNamed) {
  const auto dir = rewrite("nonfinite", [](std::vector<Entry>& es) {
    for (auto& e : es)
      if (e.name == "audio_heads.2.weight") {
        const uint16_t inf = 0x7F80;
        std::memcpy(&e.bytes[2 * 17], &inf, 2);
      }
  });
  const std::string err = load_error(dir);
  EXPECT_NE(err.find("'audio_heads.2.weight'"), std::string::npos) << err;
  EXPECT_NE(err.find("non-finite"), std::string::npos) << err;
  EXPECT_NE(err.find("17"), std::string::npos) << err;
}

TEST(DepthLoader, UnexpectedTensorIsNamed) {
  const auto dir = rewrite("extra", [](std::vector<Entry>& es) {
    es.push_back({"layers.9.attn.to_q.weight", DType::BF16, Shape{2}, std::vector<uint8_t>(4, 0)});
  });
  const std::string err = load_error(dir);
  EXPECT_NE(err.find("unexpected tensor 'layers.9.attn.to_q.weight'"), std::string::npos) << err;
}

TEST(DepthLoader, WrongClassOrGeometryIsNamed) {
  const auto dir = rewrite("config", [](std::vector<Entry>&) {});
  {
    std::ofstream(dir / "config.json") << R"({"_class_name": "MiniMaxMusic3Vocoder", "hidden_size": 64})";
    const std::string err = load_error(dir);
    EXPECT_NE(err.find("MiniMaxMusic3Vocoder"), std::string::npos) << err;
  }
  {
    std::ofstream(dir / "config.json")
        << R"({"_class_name": "MiniMaxMusic3RVQDepthDecoder", "hidden_size": 64, "num_attention_heads": 3})";
    const std::string err = load_error(dir);
    EXPECT_NE(err.find("not divisible"), std::string::npos) << err;
  }
  EXPECT_NE(load_error(fs::temp_directory_path() / "music3_loader_gate_nowhere").find("no config.json"), std::string::npos);
}

}  // namespace
}  // namespace music3::gates
