#include "bench/support/kernel_trace.h"

#include <stdexcept>

#ifdef MUSIC3_WITH_CUPTI
#include <cuda_runtime.h>
#include <cupti.h>
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#endif

namespace music3::bench {

#ifdef MUSIC3_WITH_CUPTI
namespace {

constexpr size_t kBufferBytes = size_t(8) << 20;

std::mutex sink_mutex;
std::vector<KernelRecord>* sink = nullptr;  // the trace in progress; CUPTI's buffer thread appends to it

std::string demangle(const char* name) {
  if (!name) return "?";
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  std::lock_guard<std::mutex> lock(sink_mutex);
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || !sink) continue;
    // Later record versions only append fields: the start, end and name are where this header puts them.
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    sink->push_back({demangle(k->name), k->start, k->end});
  }
  std::free(buffer);
}

void check_cupti(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  throw std::runtime_error(std::string("kernel trace: ") + what + ": " + (text ? text : "unknown CUPTI error"));
}

// The activity on for one trace; off (and the buffers flushed into nothing) however the trace ends.
struct ActivityOn {
  explicit ActivityOn(std::vector<KernelRecord>* target) {
    {
      std::lock_guard<std::mutex> lock(sink_mutex);
      if (sink) throw std::logic_error("kernel trace: one trace at a time");
      sink = target;
    }
    try {
      check_cupti(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
      check_cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable");
    } catch (...) {
      std::lock_guard<std::mutex> lock(sink_mutex);
      sink = nullptr;
      throw;
    }
  }
  ~ActivityOn() {
    {
      std::lock_guard<std::mutex> lock(sink_mutex);
      sink = nullptr;  // what is flushed below goes nowhere
    }
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
};

// Waits for the device, then hands every completed buffer to buffer_completed.
void drain() {
  if (cudaDeviceSynchronize() != cudaSuccess) throw std::runtime_error("kernel trace: cudaDeviceSynchronize failed");
  check_cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
}

}  // namespace

bool kernel_trace_built() { return true; }

std::vector<KernelRecord> trace_kernels(const std::function<void()>& prepare, const std::function<void()>& traced) {
  std::vector<KernelRecord> records;
  ActivityOn on(&records);
  prepare();
  drain();
  {
    std::lock_guard<std::mutex> lock(sink_mutex);
    records.clear();
  }
  traced();
  drain();
  std::vector<KernelRecord> out;
  std::lock_guard<std::mutex> lock(sink_mutex);
  out.swap(records);
  return out;
}
#else
bool kernel_trace_built() { return false; }

std::vector<KernelRecord> trace_kernels(const std::function<void()>&, const std::function<void()>&) {
  throw std::runtime_error("kernel trace: this build has no CUPTI (CUDA::cupti was not found when it was configured)");
}
#endif

}  // namespace music3::bench
