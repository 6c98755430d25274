#include "engine/models/music3/pipeline/pipeline_checkpoint.h"

#include <exception>

#include "engine/io/component_config.h"
#include "engine/models/music3/pipeline/pipeline_layout.h"
#include "engine/models/music3/pipeline/pipeline_refused.h"

namespace music3::pipeline {
namespace fs = std::filesystem;

namespace {

// Runs one component's config reader; its refusal is re-thrown naming the component.
template <class F>
auto read_config(const fs::path& root, const char* component, F&& reader) {
  try {
    return reader((root / component).string());
  } catch (const std::exception& e) {
    throw PipelineRefused(root.string(), component, "config", e.what());
  }
}

void require(bool holds, const fs::path& root, const char* component, const char* rule, const std::string& detail) {
  if (!holds) throw PipelineRefused(root.string(), component, rule, detail);
}

std::string n(int64_t v) { return std::to_string(v); }

void check_coupling(const PipelineCheckpoint& p) {
  const fs::path& r = p.root;
  require(p.depth.hidden == p.lm.hidden, r, "rvq_depth_decoder", "depth_hidden",
          "hidden_size " + n(p.depth.hidden) + " differs from the language model's hidden_size " + n(p.lm.hidden));
  require(p.condition.hidden == p.lm.hidden, r, "condition_encoder", "condition_width",
          "input width num_condition_layers * condition_hidden_dim = " + n(p.condition.frame_width()) +
              " is not 8 * H (condition_hidden_dim " + n(p.condition.hidden) + ", language model hidden_size " +
              n(p.lm.hidden) + ")");
  require(p.condition.layers == p.depth.codebooks, r, "condition_encoder", "condition_layers",
          "num_condition_layers " + n(p.condition.layers) + " differs from the depth decoder's num_codebooks " +
              n(p.depth.codebooks) + " (one layer per frame-hidden slice)");
  require(p.condition.input_rate == kFrameRate * p.condition.input_hop, r, "condition_encoder", "frame_rate",
          "input_sampling_rate / input_hop_length = " + n(p.condition.input_rate) + " / " + n(p.condition.input_hop) +
              " is not the AR stage's " + n(kFrameRate) + " frames per second");
  require(p.dit.condition_dim == p.condition.out_dim, r, "transformer", "condition_dim",
          "condition_dim " + n(p.dit.condition_dim) + " differs from the condition encoder's out_dim " +
              n(p.condition.out_dim));
  require(p.vocoder.latent_channels == p.dit.in_channels, r, "vocoder", "latent_channels",
          "latent_channels " + n(p.vocoder.latent_channels) + " differs from the transformer's in_channels " +
              n(p.dit.in_channels));
  require(p.vocoder.hop() == p.condition.output_hop, r, "vocoder", "hop",
          "prod(upsampling_ratios) = " + n(p.vocoder.hop()) + " differs from the condition encoder's "
              "output_hop_length " + n(p.condition.output_hop) + " (the stitch crops windows by that hop)");
  require(p.vocoder.sampling_rate == p.condition.output_rate, r, "vocoder", "sample_rate",
          "sampling_rate " + n(p.vocoder.sampling_rate) + " differs from the condition encoder's "
              "output_sampling_rate " + n(p.condition.output_rate));
}

io::ComponentConfig component_config(const std::string& dir) { return io::ComponentConfig(dir + "/config.json"); }

}  // namespace

nlohmann::json PipelineCheckpoint::describe() const {
  return {{"root", root.string()},
          {"language_model", lm.describe()},
          {"rvq_depth_decoder", depth.describe()},
          {"condition_encoder", condition.describe()},
          {"transformer", dit.describe()},
          {"scheduler", scheduler.describe()},
          {"vocoder", vocoder.describe()}};
}

PipelineCheckpoint read_pipeline_checkpoint(const fs::path& root) {
  check_layout(root);
  PipelineCheckpoint p;
  p.root = root;
  p.lm = read_config(root, "language_model",
                     [](const std::string& d) { return lm::LmConfig::from_file(d + "/config.json"); });
  p.depth = read_config(root, "rvq_depth_decoder", [](const std::string& d) {
    return depth::DepthConfig::from_component_config(component_config(d));
  });
  p.condition = read_config(root, "condition_encoder", [](const std::string& d) {
    return acoustic::ConditionEncoderConfig::from_component_config(component_config(d));
  });
  p.dit = read_config(root, "transformer", [](const std::string& d) {
    return acoustic::DitConfig::from_component_config(component_config(d));
  });
  p.scheduler = read_config(root, "scheduler",
                            [](const std::string& d) { return SchedulerConfig::from_file(d + "/scheduler_config.json"); });
  p.vocoder = read_config(root, "vocoder", [](const std::string& d) {
    return vocoder::VocoderConfig::from_component_config(component_config(d));
  });
  check_coupling(p);
  return p;
}

}  // namespace music3::pipeline
