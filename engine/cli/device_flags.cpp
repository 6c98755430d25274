#include "engine/cli/device_flags.h"

#include <stdexcept>

#include "engine/cli/args.h"

namespace music3::cli {

Queue queue_from_flag(const std::string& device, int threads) {
  try {
    return queue_by_name(device, threads);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--device: ") + e.what());
  }
}

runtime::ArmRequest arm_from_flag(const std::string& name) {
  try {
    return runtime::arm_request_from_name(name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--arm: ") + e.what());
  }
}

}  // namespace music3::cli
