#include "bench/ab/music3_cli_arm.h"

#include <stdexcept>

#include "tools/process.h"

namespace music3::bench {

Music3CliArm::Music3CliArm(const std::string& spec, const std::string& binary, const std::string& arm,
                           const std::string& device, const std::string& geometry, const ArmContext& ctx)
    : spec_(spec), binary_(binary), arm_(arm), device_(device), geometry_(geometry), seed_(ctx.seed),
      threads_(ctx.threads) {}

std::vector<double> Music3CliArm::run_repetition(int warmup, int frames) {
  const std::string cmd = tools::shell_quote(binary_) + " depth --synthetic " + tools::shell_quote(geometry_) + " --device " +
                          tools::shell_quote(device_) + " --arm " + tools::shell_quote(arm_) + " --frames " +
                          std::to_string(warmup + frames) + " --seed " + std::to_string(seed_) + " --threads " +
                          std::to_string(threads_) + " --json";
  const tools::ShellResult r = tools::capture_shell(cmd, false);
  if (r.exit_code != 0)
    throw std::runtime_error("arm '" + spec_ + "': '" + cmd + "' exited " + std::to_string(r.exit_code) + ": " +
                             tools::tail_chars(r.output, 500));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(r.output);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("arm '" + spec_ + "': '" + cmd + "' printed no JSON: " + e.what());
  }
  const auto& all = j.at("frames");
  if (!all.is_array() || all.size() != size_t(warmup + frames))
    throw std::runtime_error("arm '" + spec_ + "': expected " + std::to_string(warmup + frames) + " frames from '" +
                             cmd + "'");
  std::vector<double> ms;
  for (size_t i = size_t(warmup); i < all.size(); ++i) ms.push_back(all[i].at("ms").get<double>());
  j.erase("frames");
  last_run_ = j;
  return ms;
}

nlohmann::json Music3CliArm::describe() const {
  return {{"kind", "music3 depth --json, one process per repetition"},
          {"binary", binary_},
          {"arm", arm_},
          {"device", device_},
          {"geometry", geometry_},
          {"seed", seed_},
          {"last_run", last_run_}};
}

}  // namespace music3::bench
