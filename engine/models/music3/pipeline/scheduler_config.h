// The flow-matching scheduler's config (diffusers FlowMatchEulerDiscreteScheduler scheduler_config.json), held to
// what the engine's window loop implements: upstream's schedule sigma_i = 1 - linspace(1, 1/N, N)_i (invert_sigmas),
// timesteps = sigmas * num_train_timesteps with num_train_timesteps 1, the deterministic Euler step.
// Contract: from_file() refuses with std::runtime_error naming the file and the field: another _class_name, or
// any setting that changes the schedule or the step (num_train_timesteps != 1, shift != 1, invert_sigmas false,
// use_dynamic_shifting, shift_terminal, karras / exponential / beta sigmas, stochastic_sampling). Absent keys take
// the class defaults. Plain data: thread-safe.
#pragma once
#include <string>

namespace music3::pipeline {

struct SchedulerConfig {
  int num_train_timesteps = 1;
  double shift = 1.0;
  bool invert_sigmas = true;

  std::string describe() const;
  static SchedulerConfig from_file(const std::string& scheduler_config_json);
};

}  // namespace music3::pipeline
