// cuda.matmul_bt.cublaslt.tuned (opt-in: MUSIC3_ENABLE_PROVIDERS; then priority 3, M > 4 rows, with or without a
// bias, every operand 16-byte aligned): matmul_bt through LtGemm
// (cublaslt_gemm.h) on the algorithm that timing chose for the call's key (device, M, N, K, bias or not, the
// alignments of a, b and out). The first call of a key takes the heuristic's first kCandidates algorithms and times
// each on a private non-blocking stream with its own cuBLASLt handle and workspace (the call's a, b and bias, a
// scratch output; one untimed run, then the median of kRuns, CUDA events). Outside a capture the call's stream is
// drained first (an idle device, whole operands); during one (the calling thread capturing a graph) the timing runs
// in relaxed capture mode beside it and nothing of it enters the graph. The heuristic's first is kept unless another
// is at least kMargin faster, so timing noise rarely flips the choice between processes. Every later call of the
// key, captured or not, runs that algorithm, so within a process one key always gives the same bits. Every
// candidate accumulates in f32 (LtGemm's reduction ban), so each meets matmul_bt's band; the bits may differ
// between algorithms, hence between processes whose timings chose differently.
// Thread-safety: the choice table is guarded by a mutex, held while a key is timed (each key is timed once).
#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "engine/core/cuda/cuda_backend.h"
#include "engine/ops/cuda/capture_mode.h"
#include "engine/ops/cuda/cublas_handle.h"
#include "engine/ops/cuda/cublaslt_gemm.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"

namespace music3::ops {
namespace {

constexpr int kMinRows = 5;  // fewer rows: the GEMV (no bias) or cuda.matmul_bt.cublaslt (a bias)
constexpr uint32_t kMinAlignment = 16;  // operands less aligned: GemmEx (no bias) or cuda.matmul_bt.cublaslt
constexpr int kCandidates = 8;
constexpr int kRuns = 5;
constexpr float kMargin = 0.97f;  // another algorithm wins only below 97% of the heuristic first's time

using Key = std::tuple<int, int64_t, int64_t, int64_t, bool, uint32_t, uint32_t, uint32_t>;

struct Choices {
  std::mutex mu;
  std::map<Key, cublasLtMatmulAlgo_t> chosen;
  std::map<int, cudaStream_t> streams;  // per device: the private tuning stream, made on first use
};

Choices& choices() {
  static Choices c;  // for the process
  return c;
}

Key key_of(const MatmulBTArgs& p) {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice (matmul_bt tuned)");
  return {device,          p.a.shape[0],
          p.b.shape[0],    p.a.shape[1],
          bool(p.bias.data), alignment_bytes(p.a.data),
          alignment_bytes(p.b.data), alignment_bytes(p.out.data)};
}

// Milliseconds of one run of each algorithm (the median of kRuns after one untimed run) on stream s into `scratch`.
std::vector<float> time_candidates(const LtGemm& gemm, const std::vector<cublasLtMatmulAlgo_t>& algos,
                                   cublasLtHandle_t h, void* workspace, size_t bytes, cudaStream_t s, void* scratch) {
  cudaEvent_t start = nullptr, stop = nullptr;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate (matmul_bt tuning)");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate (matmul_bt tuning)");
  std::vector<float> out;
  try {
    for (const auto& algo : algos) {
      gemm.run(h, algo, workspace, bytes, s, scratch);
      std::vector<float> runs;
      for (int r = 0; r < kRuns; ++r) {
        check_cuda(cudaEventRecord(start, s), "cudaEventRecord (matmul_bt tuning)");
        gemm.run(h, algo, workspace, bytes, s, scratch);
        check_cuda(cudaEventRecord(stop, s), "cudaEventRecord (matmul_bt tuning)");
        check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize (matmul_bt tuning)");
        float ms = 0;
        check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime (matmul_bt tuning)");
        runs.push_back(ms);
      }
      std::sort(runs.begin(), runs.end());
      out.push_back(runs[runs.size() / 2]);
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return out;
}

// The algorithm for p's key: chosen by timing on the first call (c.mu held by the caller).
cublasLtMatmulAlgo_t tune(Choices& c, int device, const MatmulBTArgs& p) {
  return relaxed_capture([&] {
    cudaStream_t& s = c.streams[device];
    if (!s) check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate (matmul_bt tuning)");
    cublasLtMatmulAlgo_t best{};
    with_cublaslt(s, [&](cublasLtHandle_t h, void* workspace, size_t bytes) {
      const LtGemm gemm(p, bytes);
      const auto algos = gemm.candidates(h, kCandidates);
      if (algos.empty())
        throw std::runtime_error("matmul_bt (cuda, tuned): cuBLASLt has no algorithm for a " + p.a.describe() + " x " +
                                 p.b.describe());
      void* scratch = nullptr;
      check_cuda(cudaMallocAsync(&scratch, p.out.bytes(), s), "cudaMallocAsync (matmul_bt tuning output)");
      std::vector<float> ms;
      try {
        ms = time_candidates(gemm, algos, h, workspace, bytes, s, scratch);
      } catch (...) {
        cudaFreeAsync(scratch, s);
        throw;
      }
      check_cuda(cudaFreeAsync(scratch, s), "cudaFreeAsync (matmul_bt tuning output)");
      size_t pick = 0;
      for (size_t i = 1; i < algos.size(); ++i)
        if (ms[i] < kMargin * ms[pick]) pick = i;
      best = algos[pick];
    });
    return best;
  });
}

void gemm_tuned(const MatmulBTArgs& p, cudaStream_t stream) {
  Choices& c = choices();
  cublasLtMatmulAlgo_t algo{};
  {
    std::lock_guard lock(c.mu);
    const Key key = key_of(p);
    auto it = c.chosen.find(key);
    if (it == c.chosen.end()) {
      cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
      check_cuda(cudaStreamIsCapturing(stream, &capturing), "cudaStreamIsCapturing (matmul_bt tuned)");
      // Outside a capture: the call's stream drained first, so the timings see an idle device and whole operands.
      if (capturing == cudaStreamCaptureStatusNone) check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      it = c.chosen.emplace(key, tune(c, std::get<0>(key), p)).first;
    }
    algo = it->second;
  }
  with_cublaslt(stream, [&](cublasLtHandle_t h, void* workspace, size_t bytes) {
    LtGemm(p, bytes).run(h, algo, workspace, bytes, stream);
  });
}

}  // namespace

bool matmul_bt_tuned_supports(const void* args) {
  const auto& p = *static_cast<const MatmulBTArgs*>(args);
  for (const void* ptr : {p.a.data, p.b.data, p.out.data})
    if (alignment_bytes(ptr) < kMinAlignment) return false;
  return p.a.shape[0] >= kMinRows && (!p.bias.data || alignment_bytes(p.bias.data) >= kMinAlignment);
}

void matmul_bt_tuned_cuda(const Queue& q, const void* args) {
  gemm_tuned(*static_cast<const MatmulBTArgs*>(args), stream_of(q));
}

}  // namespace music3::ops
