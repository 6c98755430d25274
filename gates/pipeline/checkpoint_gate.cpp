// Gate pipeline.checkpoint: the pipeline checkpoint reader (engine/models/music3/pipeline) accepts the embedded
// tiny pipeline whole and refuses, by component and rule, every defect of its refusal table: one mutated copy of
// the folder per rule (JSON files copied and edited, weight files linked), each read in a fresh temp folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>

#include "engine/models/music3/pipeline/pipeline_checkpoint.h"
#include "engine/models/music3/pipeline/pipeline_refused.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/pipeline/pipeline_oracle.h"

namespace music3::gates {
namespace {
namespace fs = std::filesystem;

// A copy of the embedded pipeline: JSON files copied (so a case can edit them), every other file linked.
class MutatedCopy {
 public:
  MutatedCopy() {
    std::random_device rd;
    root_ = fs::temp_directory_path() / ("music3-pipeline-gate-" + std::to_string(rd()));
    const fs::path source = fs::absolute(embedded_pipeline_folder());
    for (const auto& e : fs::recursive_directory_iterator(source)) {
      const fs::path target = root_ / fs::relative(e.path(), source);
      if (e.is_directory()) continue;
      fs::create_directories(target.parent_path());
      if (e.path().extension() == ".json")
        fs::copy_file(e.path(), target);
      else
        fs::create_symlink(e.path(), target);
    }
  }
  ~MutatedCopy() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  const fs::path& root() const { return root_; }
  void edit(const std::string& file, const std::function<void(nlohmann::json&)>& change) const {
    nlohmann::json j;
    std::ifstream(root_ / file) >> j;
    change(j);
    std::ofstream(root_ / file) << j.dump(2);
  }

 private:
  fs::path root_;
};

struct RefusalCase {
  std::string name, component, rule;
  std::function<void(const MutatedCopy&)> mutate;
};

std::vector<RefusalCase> refusal_cases() {
  auto set = [](std::string file, std::string key, nlohmann::json value) {
    return [=](const MutatedCopy& m) { m.edit(file, [&](nlohmann::json& j) { j[key] = value; }); };
  };
  auto remove = [](std::string path) { return [=](const MutatedCopy& m) { fs::remove_all(m.root() / path); }; };
  const std::string index = "modular_model_index.json";
  return {
      {"index_missing", index, "index_unreadable", remove(index)},
      {"index_malformed", index, "index_unreadable",
       [index](const MutatedCopy& m) { std::ofstream(m.root() / index) << "{\"_class_name\": "; }},
      {"index_class", index, "index_class", set(index, "_class_name", "StableDiffusionPipeline")},
      {"index_entry", "vocoder", "index_entry",
       [index](const MutatedCopy& m) { m.edit(index, [](nlohmann::json& j) { j.erase("vocoder"); }); }},
      {"component_class", "transformer", "index_class",
       [index](const MutatedCopy& m) { m.edit(index, [](nlohmann::json& j) { j["transformer"][1] = "SD3Transformer2DModel"; }); }},
      {"folder_missing", "scheduler", "folder_missing", remove("scheduler")},
      {"weights_missing", "transformer", "file_missing", remove("transformer/diffusion_pytorch_model.safetensors")},
      {"tokenizer_missing", "tokenizer", "file_missing", remove("tokenizer/tokenizer.json")},
      {"lm_config", "language_model", "config", set("language_model/config.json", "vocab_size", 151936)},
      {"scheduler_config", "scheduler", "config", set("scheduler/scheduler_config.json", "invert_sigmas", false)},
      {"depth_hidden", "rvq_depth_decoder", "depth_hidden", set("rvq_depth_decoder/config.json", "hidden_size", 32)},
      {"condition_width", "condition_encoder", "condition_width",
       set("condition_encoder/config.json", "condition_hidden_dim", 32)},
      {"condition_layers", "condition_encoder", "condition_layers",
       set("condition_encoder/config.json", "num_condition_layers", 7)},
      {"frame_rate", "condition_encoder", "frame_rate", set("condition_encoder/config.json", "input_hop_length", 480)},
      {"condition_dim", "transformer", "condition_dim", set("transformer/config.json", "condition_dim", 32)},
      {"latent_channels", "vocoder", "latent_channels", set("vocoder/config.json", "latent_channels", 16)},
      {"hop", "vocoder", "hop", set("vocoder/config.json", "upsampling_ratios", nlohmann::json::array({8, 8, 4, 4}))},
      {"sample_rate", "vocoder", "sample_rate", set("vocoder/config.json", "sampling_rate", 48000)},
  };
}

TEST(PipelineCheckpoint, AcceptsTheEmbeddedPipeline) {
  const MutatedCopy copy;
  const pipeline::PipelineCheckpoint p = pipeline::read_pipeline_checkpoint(copy.root());
  EXPECT_EQ(p.lm.hidden, p.depth.hidden);
  EXPECT_EQ(p.condition.frame_width(), int64_t(p.depth.codebooks) * p.lm.hidden);
  EXPECT_EQ(p.dit.in_channels, p.vocoder.latent_channels);
  EXPECT_EQ(p.vocoder.hop(), 512);
  EXPECT_EQ(p.describe().size(), 7u);
}

TEST(PipelineCheckpoint, RefusesEachDefectByName) {
  int wrong = 0;
  for (const RefusalCase& c : refusal_cases()) {
    SCOPED_TRACE(c.name);
    const MutatedCopy copy;
    c.mutate(copy);
    std::string component = "(accepted)", rule;
    try {
      pipeline::read_pipeline_checkpoint(copy.root());
    } catch (const pipeline::PipelineRefused& e) {
      component = e.component();
      rule = e.rule();
      EXPECT_NE(std::string(e.what()).find(c.component), std::string::npos) << e.what();
    }
    EXPECT_EQ(component, c.component);
    EXPECT_EQ(rule, c.rule);
    const bool right = component == c.component && rule == c.rule;
    wrong += right ? 0 : 1;
    record("pipeline.checkpoint", c.name, "refused_by_name", right ? 1 : 0, 1, BoundKind::Lower);
  }
  record("pipeline.checkpoint", "all", "wrong_refusals", wrong, 0);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
