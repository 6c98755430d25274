#include "engine/models/music3/ar/ar_stage.h"

#include "engine/models/music3/lm/lm_selector.h"

namespace music3::ar {

ArStage::ArStage(lm::LmWeights lm, depth::DepthWeights depth, const Queue& q, runtime::ArmRequest request)
    : ArStage(std::move(lm), std::move(depth), q, request, request) {}

ArStage::ArStage(lm::LmWeights lm, depth::DepthWeights depth, const Queue& q, runtime::ArmRequest lm_request,
                 runtime::ArmRequest depth_request)
    : lm_(std::move(lm)), audio_embeddings_(depth.audio_embeddings) {
  lm::select_lm_arm(q, lm_request, lm_, lm_instruments_, &lm_arm_);
  depth_ = std::make_unique<depth::DepthEngine>(std::move(depth), q, depth_request);
}

ArResult ArStage::run(const int32_t* text_ids, int prompt, const ArOptions& options, ArTrace* trace) {
  const ArModels models{*lm_arm_, lm_, *depth_, audio_embeddings_};
  return run_ar(models, text_ids, prompt, options, trace);
}

}  // namespace music3::ar
