// The main() of bench-ops and bench-depth: what every bench run does around registering
// its benches.
// Contract: run_bench_main initialises Google Benchmark (1 on an unrecognised argument),
// measures the copy ceilings every fraction is taken against (CPU: a kCpuCeilingBytes
// parallel copy, median of 5; CUDA builds with a device present: a kCudaCeilingBytes
// device-to-device copy, median of 10), writes them into the custom context
// (cpu_copy_ceiling_GBps, cuda_copy_ceiling_TBps; in a CUDA build without a device,
// cuda = "no device: CUDA benches not registered"), calls `register_benches` with them,
// runs the benches and returns 0; an exception is printed as "<name>: <what>" and
// returns 1. fixed() formats v with `digits` decimals, for context values.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

#include "engine/core/queue.h"

namespace music3::bench {

constexpr size_t kCpuCeilingBytes = size_t(512) << 20;
constexpr size_t kCudaCeilingBytes = size_t(2) << 30;

struct Ceilings {
  Queue cpu;
  double cpu_Bps = 0;
  bool has_cuda = false;  // gpu and gpu_Bps are set only when true
  Queue gpu;
  double gpu_Bps = 0;
};

int run_bench_main(int argc, char** argv, const std::string& name,
                   const std::function<void(const Ceilings&)>& register_benches);

std::string fixed(double v, int digits);

}  // namespace music3::bench
