// Gate lm.loader: the language model's checkpoint loader on the oracle's sharded
// checkpoints and on bad input. Every refusal must be a named error (the file, the
// tensor or the key), never a crash and never a silently defaulted value:
//  - every oracle checkpoint loads (sharded, with an index) with the config's geometry;
//  - rope theta missing from config.json is refused by name (transformers 4.x would
//    silently use 10,000); a vocabulary below 168,059, a non-default rope type and tied
//    embeddings are refused by name;
//  - for every shard: truncated, a non-finite value in one of its tensors, deleted;
//  - the index mapping a tensor to the wrong shard; a tensor the config does not expect.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/io/safetensors.h"
#include "engine/models/music3/lm/lm_loader.h"
#include "gates/lib/gate_record.h"
#include "gates/lm/lm_oracle.h"

namespace music3::gates {
namespace {
namespace fs = std::filesystem;

// A private copy of the tiny/seed0 language model, removed afterwards.
struct Scratch {
  fs::path dir;
  Scratch() {
    dir = fs::temp_directory_path() / ("lm_loader_gate_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::copy(lm_checkpoint_dir({"tiny", 0}) + "/language_model", dir, fs::copy_options::recursive);
    for (const auto& e : fs::directory_iterator(dir))
      fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::add);
  }
  ~Scratch() { fs::remove_all(dir); }
  nlohmann::json json(const std::string& name) const {
    std::ifstream f(dir / name);
    return nlohmann::json::parse(f);
  }
  void write_json(const std::string& name, const nlohmann::json& j) const { std::ofstream(dir / name) << j.dump(1); }
  std::vector<std::string> shards() const {
    std::set<std::string> s;
    const nlohmann::json index = json("model.safetensors.index.json");
    for (const auto& [tensor, shard] : index.at("weight_map").items())
      s.insert(shard.get<std::string>());
    return {s.begin(), s.end()};
  }
};

std::string refusal(const std::string& dir) {
  try {
    lm::load_lm_checkpoint(dir);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_REFUSED_NAMING(dir, needle)                                              \
  do {                                                                                  \
    const std::string message = refusal(dir);                                           \
    EXPECT_NE(message, "") << "accepted";                                               \
    EXPECT_NE(message.find(needle), std::string::npos) << "message: " << message;       \
  } while (0)

TEST(LmLoader, EveryOracleCheckpointLoads) {
  for (const auto& c : lm_cases()) {
    lm::LmLoadReport report;
    const lm::LmWeights w = lm::load_lm_checkpoint(lm_checkpoint_dir(c), &report);
    EXPECT_GT(report.shards, 1u) << c.name();
    EXPECT_EQ(w.cfg.rope_theta, 1e6) << c.name();
    EXPECT_EQ(int64_t(w.layers.size()), w.cfg.layers) << c.name();
    EXPECT_TRUE(report.converted.empty()) << c.name();
    record("lm.loader", c.name(), "load.shards", double(report.shards), 2, BoundKind::Lower);
  }
}

TEST(LmLoader, RopeThetaMissingIsRefusedByName) {
  Scratch s;
  auto cfg = s.json("config.json");
  cfg["rope_parameters"].erase("rope_theta");
  s.write_json("config.json", cfg);
  EXPECT_REFUSED_NAMING(s.dir.string(), "rope theta missing");
  cfg.erase("rope_parameters");
  s.write_json("config.json", cfg);
  EXPECT_REFUSED_NAMING(s.dir.string(), "rope theta missing");
  cfg["rope_theta"] = 1e6;  // the legacy top-level key, explicitly given, is read
  s.write_json("config.json", cfg);
  EXPECT_EQ(lm::load_lm_checkpoint(s.dir.string()).cfg.rope_theta, 1e6);
}

TEST(LmLoader, UnsupportedConfigsAreRefusedByName) {
  Scratch s;
  const auto good = s.json("config.json");
  auto cfg = good;
  cfg["vocab_size"] = 168058;
  s.write_json("config.json", cfg);
  EXPECT_REFUSED_NAMING(s.dir.string(), "'vocab_size'");
  cfg = good;
  cfg["rope_parameters"]["rope_type"] = "yarn";
  s.write_json("config.json", cfg);
  EXPECT_REFUSED_NAMING(s.dir.string(), "rope_type");
  cfg = good;
  cfg["tie_word_embeddings"] = true;
  s.write_json("config.json", cfg);
  EXPECT_REFUSED_NAMING(s.dir.string(), "tie_word_embeddings");
  cfg = good;
  cfg["hidden_size"] = 48;
  s.write_json("config.json", cfg);
  EXPECT_REFUSED_NAMING(s.dir.string(), "has shape");
}

TEST(LmLoader, EveryShardsDefectsAreRefusedNamingTheShard) {
  Scratch s;
  const auto shards = s.shards();
  ASSERT_GT(shards.size(), 1u);
  for (const auto& shard : shards) {
    SCOPED_TRACE(shard);
    const fs::path path = s.dir / shard;
    const fs::path saved = s.dir / (shard + ".saved");
    fs::copy_file(path, saved);
    fs::resize_file(path, fs::file_size(path) - 1);  // truncated
    EXPECT_REFUSED_NAMING(s.dir.string(), shard);
    fs::copy_file(saved, path, fs::copy_options::overwrite_existing);
    {  // a NaN in the first element of each of its tensors, one at a time
      const io::SafetensorsFile file(path.string());
      for (const auto& name : file.names()) {
        const uint64_t offset = file.info(name).file_offset;
        {
          std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
          f.seekp(std::streamoff(offset));
          const unsigned char nan_bf16[2] = {0xC0, 0x7F};
          f.write(reinterpret_cast<const char*>(nan_bf16), 2);
        }
        if (name == "lm_head.weight") {
          // Row 0 is never sampled, so the loader never reads it: only the sampled rows are checked.
          EXPECT_EQ(refusal(s.dir.string()), "") << name;
        } else {
          EXPECT_REFUSED_NAMING(s.dir.string(), name);
        }
        fs::copy_file(saved, path, fs::copy_options::overwrite_existing);
      }
    }
    fs::remove(path);  // deleted
    EXPECT_REFUSED_NAMING(s.dir.string(), shard);
    fs::rename(saved, path);
  }
  EXPECT_EQ(refusal(s.dir.string()), "");
}

TEST(LmLoader, IndexDefectsAreRefusedByName) {
  Scratch s;
  const auto good = s.json("model.safetensors.index.json");
  auto index = good;
  const auto shards = s.shards();
  // A tensor mapped to a shard that does not hold it.
  const std::string tensor = "model.norm.weight";
  const std::string wrong = index["weight_map"][tensor] == shards[0] ? shards[1] : shards[0];
  index["weight_map"][tensor] = wrong;
  s.write_json("model.safetensors.index.json", index);
  EXPECT_REFUSED_NAMING(s.dir.string(), tensor);
  // A tensor the config does not expect.
  index = good;
  auto cfg = s.json("config.json");
  cfg["num_hidden_layers"] = 1;
  s.write_json("model.safetensors.index.json", index);
  s.write_json("config.json", cfg);
  EXPECT_REFUSED_NAMING(s.dir.string(), "unexpected tensor 'model.layers.1.");
}

}  // namespace
}  // namespace music3::gates
