// The arm request of each stage of `music3 generate`: one word for every stage, or per stage.
// Contract: parse_stage_arms(spec) takes "auto" | "host" | "device" (every stage) or a comma-separated list of
// STAGE=REQUEST with STAGE one of lm, depth, acoustic (the condition encoder and the DiT), vocoder; stages not
// named stay auto. An unknown stage or request, an empty item, or a stage named twice throws
// std::invalid_argument naming it. describe() gives the spec back in the list form, every stage named.
// Plain data: thread-safe.
#pragma once
#include <string>

#include "engine/runtime/arm.h"

namespace music3::pipeline {

struct StageArms {
  runtime::ArmRequest lm = runtime::ArmRequest::Auto;
  runtime::ArmRequest depth = runtime::ArmRequest::Auto;
  runtime::ArmRequest acoustic = runtime::ArmRequest::Auto;
  runtime::ArmRequest vocoder = runtime::ArmRequest::Auto;

  std::string describe() const;
};

StageArms parse_stage_arms(const std::string& spec);

}  // namespace music3::pipeline
