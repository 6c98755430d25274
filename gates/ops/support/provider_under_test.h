// Which provider an op test executable exercises. Every op test source is built
// twice, once linked with provider_cpu.cpp (ctest name op_<op>_cpu, label cpu) and
// once with provider_cuda.cpp (op_<op>_cuda, label gpu), which also supply main():
// the CUDA one exits 77 (ctest: skipped) when no CUDA device is visible.
#pragma once
#include <string>

#include "engine/core/queue.h"

namespace music3::optest {

bool provider_is_cuda();
std::string provider_name();             // "cpu" or "cuda"
Queue provider_queue(int cpu_threads);   // the queue the provider under test runs on

}  // namespace music3::optest
