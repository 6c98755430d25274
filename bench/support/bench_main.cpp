#include "bench/support/bench_main.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <exception>

#include "bench/support/copy_ceiling.h"
#include "engine/core/backend.h"

namespace music3::bench {
namespace {

Ceilings measure_ceilings() {
  Ceilings c;
  c.cpu = cpu_queue();
  c.cpu_Bps = cpu_copy_ceiling_Bps(kCpuCeilingBytes, 5);
  benchmark::AddCustomContext("cpu_copy_ceiling_GBps", fixed(c.cpu_Bps / 1e9, 2));
#ifdef MUSIC3_WITH_CUDA
  if (cuda_device_available()) {
    c.has_cuda = true;
    c.gpu = cuda_queue();
    c.gpu_Bps = cuda_copy_ceiling_Bps(c.gpu, kCudaCeilingBytes, 10);
    benchmark::AddCustomContext("cuda_copy_ceiling_TBps", fixed(c.gpu_Bps / 1e12, 3));
  } else {
    benchmark::AddCustomContext("cuda", "no device: CUDA benches not registered");
  }
#endif
  return c;
}

}  // namespace

int run_bench_main(int argc, char** argv, const std::string& name,
                   const std::function<void(const Ceilings&)>& register_benches) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  try {
    register_benches(measure_ceilings());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
    return 1;
  }
  return 0;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace music3::bench
