// The engine's AR stage: owns the language model's weights and arm (select_lm_arm),
// the depth stage (DepthEngine, its own selection) and the depth decoder's audio
// embeddings the feedback reads, and runs run_ar() (ar_loop.h) on them. This is the
// production call site the CLI, the gates and the benches use.
// Contract: construction yields running arms or throws (ArmRefused names the
// component and device); one request selects both arms, or the LM's and the depth
// stage's are given apart (music3 generate --arm lm=...,depth=...); run() validates its
// inputs (ArError names the problem).
// Thread-safety: one thread at a time.
#pragma once
#include <memory>

#include "engine/core/queue.h"
#include "engine/models/music3/ar/ar_loop.h"
#include "engine/models/music3/depth/depth_engine.h"
#include "engine/models/music3/lm/lm_arm.h"
#include "engine/models/music3/lm/lm_weights.h"

namespace music3::ar {

class ArStage {
 public:
  ArStage(lm::LmWeights lm, depth::DepthWeights depth, const Queue& q, runtime::ArmRequest request);
  ArStage(lm::LmWeights lm, depth::DepthWeights depth, const Queue& q, runtime::ArmRequest lm_request,
          runtime::ArmRequest depth_request);
  ArStage(const ArStage&) = delete;  // arms hold references into this object
  ArStage& operator=(const ArStage&) = delete;

  ArResult run(const int32_t* text_ids, int prompt, const ArOptions& options, ArTrace* trace = nullptr);
  runtime::ArmKind lm_arm_kind() const { return lm_arm_->kind(); }
  const runtime::ArmInstruments& lm_instruments() const { return lm_instruments_; }
  const depth::DepthEngine& depth() const { return *depth_; }
  const lm::LmConfig& lm_config() const { return lm_.cfg; }

 private:
  lm::LmWeights lm_;
  runtime::HostTensor audio_embeddings_;
  runtime::ArmInstruments lm_instruments_;
  std::unique_ptr<lm::LmArm> lm_arm_;
  std::unique_ptr<depth::DepthEngine> depth_;
};

}  // namespace music3::ar
