// What a gate binary runs on, and its main().
// Contract: gate binaries accept `--device cpu|cuda` (default cpu) before the
// GoogleTest flags. With cuda on a machine without a CUDA device, main returns 77
// (ctest: skipped) without running a test, so a skip is never counted as a pass.
// `--disable-providers A,B` sets MUSIC3_DISABLE_PROVIDERS for the run (so one binary gates each provider of an op),
// `--enable-providers A,B` MUSIC3_ENABLE_PROVIDERS (opt-in providers, engine/ops/registry.h); gate_variant() is then
// "_with_" + the enabled list and/or "_without_" + the disabled list, every non-alphanumeric as '_' (for gate ids),
// else "".
#pragma once
#include <string>

#include "engine/core/queue.h"

namespace music3::gates {

DeviceType gate_device();
Queue gate_queue(int threads = 0);  // a queue on gate_device()
std::string gate_device_name();
std::string gate_variant();
int gate_main(int argc, char** argv);

}  // namespace music3::gates
