// A MiniMax-Music3 checkpoint folder in the diffusers hub layout, read as one pipeline: every component's config
// through that component's own config reader, then the rules that couple them, all before any weight is loaded.
// Contract: read_pipeline_checkpoint(root) runs check_layout() (pipeline_layout.h), reads each config (a reader's
// refusal becomes PipelineRefused rule "config" naming the component), then refuses by name (PipelineRefused,
// component = the folder whose value disagrees) a pipeline upstream would run differently from the engine:
//   depth_hidden       rvq_depth_decoder hidden_size != language_model hidden_size
//   condition_width    condition_encoder condition_hidden_dim != language_model hidden_size (its input width,
//                      num_condition_layers * condition_hidden_dim, is not 8 * H)
//   condition_layers   condition_encoder num_condition_layers != rvq_depth_decoder num_codebooks
//   frame_rate         condition_encoder input_sampling_rate / input_hop_length != 25 (the AR stage's frame rate)
//   condition_dim      transformer condition_dim != condition_encoder out_dim
//   latent_channels    vocoder latent_channels != transformer in_channels
//   hop                vocoder prod(upsampling_ratios) != condition_encoder output_hop_length (the stitch crops
//                      by the condition encoder's hop)
//   sample_rate        vocoder sampling_rate != condition_encoder output_sampling_rate
// The weights themselves are read later by each component's loader (which refuses their own defects).
// Thread-safety: a pure function; the result is plain data.
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/models/music3/acoustic/condition_encoder_config.h"
#include "engine/models/music3/acoustic/dit_config.h"
#include "engine/models/music3/depth/depth_config.h"
#include "engine/models/music3/lm/lm_config.h"
#include "engine/models/music3/pipeline/scheduler_config.h"
#include "engine/models/music3/vocoder/vocoder_config.h"

namespace music3::pipeline {

inline constexpr int kFrameRate = 25;  // the AR stage's frames per second (ar::max_frames_for)

struct PipelineCheckpoint {
  std::filesystem::path root;
  lm::LmConfig lm;
  depth::DepthConfig depth;
  acoustic::ConditionEncoderConfig condition;
  acoustic::DitConfig dit;
  SchedulerConfig scheduler;
  vocoder::VocoderConfig vocoder;

  std::filesystem::path component_dir(const std::string& name) const { return root / name; }
  nlohmann::json describe() const;
};

PipelineCheckpoint read_pipeline_checkpoint(const std::filesystem::path& root);

}  // namespace music3::pipeline
