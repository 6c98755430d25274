#include "engine/models/music3/pipeline/scheduler_config.h"

#include <stdexcept>

#include "engine/io/component_config.h"

namespace music3::pipeline {

std::string SchedulerConfig::describe() const {
  return "{num_train_timesteps " + std::to_string(num_train_timesteps) + ", shift " + std::to_string(shift) +
         ", invert_sigmas " + (invert_sigmas ? "true" : "false") + "}";
}

SchedulerConfig SchedulerConfig::from_file(const std::string& path) {
  const io::ComponentConfig c(path);
  if (c.class_name() != "FlowMatchEulerDiscreteScheduler")
    throw std::runtime_error(path + ": _class_name is '" + c.class_name() + "', expected 'FlowMatchEulerDiscreteScheduler'");
  auto refuse = [&](const std::string& field, const std::string& why) {
    throw std::runtime_error(path + ": " + field + " " + why + " (the engine's window loop implements the Music3 "
                             "schedule only)");
  };
  SchedulerConfig s;
  s.num_train_timesteps = static_cast<int>(c.get_int_or("num_train_timesteps", 1000));
  s.shift = c.get_float_or("shift", 1.0);
  s.invert_sigmas = c.has("invert_sigmas") && c.get_bool("invert_sigmas");
  if (s.num_train_timesteps != 1) refuse("num_train_timesteps", "is " + std::to_string(s.num_train_timesteps) + ", not 1");
  if (s.shift != 1.0) refuse("shift", "is " + std::to_string(s.shift) + ", not 1.0");
  if (!s.invert_sigmas) refuse("invert_sigmas", "is false or absent");
  for (const char* flag : {"use_dynamic_shifting", "use_karras_sigmas", "use_exponential_sigmas", "use_beta_sigmas",
                           "stochastic_sampling"})
    if (c.has(flag) && c.get_bool(flag)) refuse(flag, "is true");
  if (c.has("shift_terminal") && c.get_float_or("shift_terminal", 0.0) != 0.0) refuse("shift_terminal", "is set");
  return s;
}

}  // namespace music3::pipeline
