#include "engine/models/music3/pipeline/pipeline_models.h"

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
  tokenizer_ = std::make_unique<tokenizer::Qwen2Tokenizer>(
      tokenizer::Qwen2Tokenizer::from_folder(checkpoint_.component_dir("tokenizer")));
  tokenizer::check_template_tokens(*tokenizer_);
  const std::string dir = root.string();
  lm::LmLoadReport lm_report;
  lm::LmWeights lm_weights = lm::load_lm_checkpoint(dir, &lm_report);
  acoustic::AcousticLoadReport encoder_report, dit_report;
  encoder_weights_ = acoustic::load_condition_encoder(dir, &encoder_report);
  dit_weights_ = acoustic::load_dit(dir, &dit_report);
  vocoder::LoadReport vocoder_report;
  vocoder_weights_ = vocoder::load_vocoder_checkpoint(dir, &vocoder_report);
  depth::LoadReport depth_report;
  ar_ = std::make_unique<ar::ArStage>(std::move(lm_weights), depth::load_depth_checkpoint(dir, &depth_report), q,
                                      arms.lm, arms.depth);
  encoder_ = acoustic::make_condition_encoder_arm(encoder_weights_, side_queue_, arms.acoustic, encoder_instruments_);
  dit_ = acoustic::make_dit_arm(dit_weights_, side_queue_, arms.acoustic, dit_instruments_);
  vocoder_ = vocoder::make_vocoder_arm(vocoder_weights_, side_queue_, arms.vocoder);
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
