#include "engine/models/music3/pipeline/pipeline_models.h"

#include <chrono>
#include <optional>

#include "engine/models/music3/acoustic/acoustic_selector.h"
#include "engine/models/music3/acoustic/condition_encoder_loader.h"
#include "engine/models/music3/acoustic/dit_loader.h"
#include "engine/models/music3/depth/depth_loader.h"
#include "engine/models/music3/lm/lm_loader.h"
#include "engine/models/music3/tokenizer/prompt_ids.h"
#include "engine/models/music3/vocoder/vocoder_loader.h"
#include "engine/models/music3/vocoder/vocoder_selector.h"

namespace music3::pipeline {

PipelineModels::PipelineModels(const std::filesystem::path& root, const Queue& q, const StageArms& arms)
    : checkpoint_(read_pipeline_checkpoint(root)), queue_(q), side_queue_(side_queue(q)) {
  vocoder::choose_vocoder_arm(q, arms.vocoder);  // refuses by name before any weight is read
  // Each step's wall seconds, in the order it runs (load_stages()).
  auto timed = [this](const char* stage, auto&& step) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    load_stages_[stage] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  timed("tokenizer", [&] {
    tokenizer_ = std::make_unique<tokenizer::Qwen2Tokenizer>(
        tokenizer::Qwen2Tokenizer::from_folder(checkpoint_.component_dir("tokenizer")));
    tokenizer::check_template_tokens(*tokenizer_);
  });
  const std::string dir = root.string();
  lm::LmLoadReport lm_report;
  lm::LmWeights lm_weights;
  timed("language_model_read", [&] { lm_weights = lm::load_lm_checkpoint(dir, &lm_report); });
  acoustic::AcousticLoadReport encoder_report, dit_report;
  timed("condition_encoder_read", [&] { encoder_weights_ = acoustic::load_condition_encoder(dir, &encoder_report); });
  timed("transformer_read", [&] { dit_weights_ = acoustic::load_dit(dir, &dit_report); });
  vocoder::LoadReport vocoder_report;
  timed("vocoder_read", [&] { vocoder_weights_ = vocoder::load_vocoder_checkpoint(dir, &vocoder_report); });
  depth::LoadReport depth_report;
  std::optional<depth::DepthWeights> depth_weights;
  timed("rvq_depth_decoder_read", [&] { depth_weights.emplace(depth::load_depth_checkpoint(dir, &depth_report)); });
  timed("ar_arms", [&] {
    ar_ = std::make_unique<ar::ArStage>(std::move(lm_weights), std::move(*depth_weights), q, arms.lm, arms.depth);
  });
  timed("condition_encoder_arm", [&] {
    encoder_ = acoustic::make_condition_encoder_arm(encoder_weights_, side_queue_, arms.acoustic, encoder_instruments_);
  });
  timed("transformer_arm",
        [&] { dit_ = acoustic::make_dit_arm(dit_weights_, side_queue_, arms.acoustic, dit_instruments_); });
  timed("vocoder_arm", [&] { vocoder_ = vocoder::make_vocoder_arm(vocoder_weights_, side_queue_, arms.vocoder); });
  weights_sha256_ = {{"language_model", lm_report.sha256},
                     {"rvq_depth_decoder", depth_report.weights_sha256},
                     {"condition_encoder", encoder_report.weights_sha256},
                     {"transformer", dit_report.weights_sha256},
                     {"vocoder", vocoder_report.weights_sha256}};
}

nlohmann::json PipelineModels::describe_arms() const {
  const std::string device = device_type_name(queue_.device);
  auto arm = [&](runtime::ArmKind kind) { return nlohmann::json{{"arm", runtime::arm_name(kind)}, {"device", device}}; };
  return {{"lm", arm(ar_->lm_arm_kind())},
          {"depth", arm(ar_->depth().arm_kind())},
          {"condition_encoder", arm(encoder_->kind())},
          {"dit", arm(dit_->kind())},
          {"vocoder", arm(vocoder_->kind())}};
}

}  // namespace music3::pipeline
