// Every model of a pipeline checkpoint loaded and every arm selected on one device: what `music3 generate` runs.
// The tokenizer, LM and depth stage use the queue given; the condition encoder, DiT and vocoder its side queue
// (core/queue.h side_queue: on CUDA a second stream), so a window's acoustic stage can run beside the AR loop
// (window_schedule.h). Cross-stream safety: during the overlap the AR loop's arms take nothing from the shared
// device pool (the LM's sequence buffers are taken at prefill, before any window is handed over; the rest is
// resident), so a block the windows' arms release is never reused on the other stream while queued work may
// still touch it; cuBLAS handles and workspaces are per stream (ops/cuda/cublas_handle.h).
// Contract: the constructor reads and checks the checkpoint first (read_pipeline_checkpoint: the layout, every
// component's config and the coupling rules, refused by name with PipelineRefused), refuses an impossible vocoder
// arm before any weight is read (ArmRefused), then loads the tokenizer and every component's weights (each loader
// refuses its own defects by file and tensor) and builds the arms (ArmRefused names the component and device).
// So a missing or inconsistent component stops it before any generation work. The arms hold references into this
// object: it is neither copyable nor movable. describe_arms() gives, per component, the arm kind and the device;
// weights_sha256() each weights file's sha256 (language_model: its index or single file); load_stages() the wall
// seconds of each step of the constructor (the tokenizer, each component's read of its weights, each arm's making:
// on a device, its uploads), which add up to about the constructor's time. Thread-safety: one generation at a time.
#pragma once
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/core/queue.h"
#include "engine/models/music3/acoustic/acoustic_arms.h"
#include "engine/models/music3/acoustic/condition_encoder_weights.h"
#include "engine/models/music3/acoustic/dit_weights.h"
#include "engine/models/music3/ar/ar_stage.h"
#include "engine/models/music3/pipeline/pipeline_checkpoint.h"
#include "engine/models/music3/pipeline/stage_arms.h"
#include "engine/models/music3/tokenizer/qwen2_tokenizer.h"
#include "engine/models/music3/vocoder/vocoder_arm.h"
#include "engine/models/music3/vocoder/vocoder_weights.h"
#include "engine/runtime/arm.h"

namespace music3::pipeline {

class PipelineModels {
 public:
  PipelineModels(const std::filesystem::path& root, const Queue& q, const StageArms& arms);
  PipelineModels(const PipelineModels&) = delete;
  PipelineModels& operator=(const PipelineModels&) = delete;

  const PipelineCheckpoint& checkpoint() const { return checkpoint_; }
  const Queue& queue() const { return queue_; }
  tokenizer::Qwen2Tokenizer& tokenizer() { return *tokenizer_; }
  ar::ArStage& ar() { return *ar_; }
  // The width of one row of the AR stage's frame_hiddens, which the condition encoder takes (the checkpoint's
  // coupling rules hold it to the depth stage's codebooks x the LM's hidden size).
  int64_t frame_width() const { return checkpoint_.condition.frame_width(); }
  acoustic::ConditionEncoderArm& encoder() { return *encoder_; }
  acoustic::DitArm& dit() { return *dit_; }
  vocoder::VocoderArm& vocoder() { return *vocoder_; }
  nlohmann::json describe_arms() const;
  const nlohmann::json& weights_sha256() const { return weights_sha256_; }
  const nlohmann::json& load_stages() const { return load_stages_; }

 private:
  PipelineCheckpoint checkpoint_;
  Queue queue_, side_queue_;
  std::unique_ptr<tokenizer::Qwen2Tokenizer> tokenizer_;
  std::unique_ptr<ar::ArStage> ar_;
  acoustic::ConditionEncoderWeights encoder_weights_;
  acoustic::DitWeights dit_weights_;
  vocoder::VocoderWeights vocoder_weights_;
  runtime::ArmInstruments encoder_instruments_, dit_instruments_;  // outlive the arms that count into them
  std::unique_ptr<acoustic::ConditionEncoderArm> encoder_;
  std::unique_ptr<acoustic::DitArm> dit_;
  std::unique_ptr<vocoder::VocoderArm> vocoder_;
  nlohmann::json weights_sha256_;
  nlohmann::json load_stages_ = nlohmann::json::object();
};

}  // namespace music3::pipeline
