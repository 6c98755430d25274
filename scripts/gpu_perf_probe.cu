// The GEMV half of scripts/gpu-perf-probe (built there with nvcc, never by CMake).
// Linked with the engine's ops and core libraries (build/lib).
// Times engine/ops/cuda/gemv_bt.cuh's fast kernel over tile and ring-size variants, and
// cuBLAS, at the depth stage's shapes [N, K] x M, each launch on another copy of the
// weights (the copies together several times the L2) inside a captured graph of 20
// launches, median of 7 replays (the LM's decode shapes at M = 2 beside them); and the device copy ceiling (a 1 GiB device-to-device
// copy, bytes read + written). Checks that every variant's output equals the
// production configuration's bit for bit (the order is fixed by K alone), and the
// production output against an f64 reference on sampled outputs. Then times, through
// the op entry points in a graph, each fused op against the unfused ops it replaces
// (outputs compared bit for bit): add_rms_norm and kv_append_attention. Prints one row per (shape, M, variant) and the
// summary tables last.
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/queue.h"
#include "engine/ops/cuda/gemv_bt.cuh"
#include "engine/ops/ops.h"

using namespace music3;
using namespace music3::ops;

namespace {

void ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

__global__ void fill_random(bf16* p, int64_t n, uint64_t seed, float scale) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    uint64_t z = (static_cast<uint64_t>(i) + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const float u = static_cast<float>(z >> 40) / static_cast<float>(1 << 24) - 0.5f;  // [-0.5, 0.5)
    p[i] = to_bf16(u * scale);
  }
}

using Launch = std::function<void(const bf16* w, cudaStream_t s)>;

// Median per-launch microseconds: a graph of `reps` launches over rotating copies, replayed 7 times.
double time_us(const Launch& launch, const std::vector<const bf16*>& copies, cudaStream_t s) {
  constexpr int kReps = 20;
  for (int i = 0; i < 3; ++i) launch(copies[i % copies.size()], s);
  ok(cudaStreamSynchronize(s), "warm-up");
  cudaGraph_t g;
  ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
  for (int i = 0; i < kReps; ++i) launch(copies[i % copies.size()], s);
  ok(cudaStreamEndCapture(s, &g), "end capture");
  cudaGraphExec_t exec;
  ok(cudaGraphInstantiate(&exec, g, 0), "instantiate");
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> t;
  ok(cudaGraphLaunch(exec, s), "graph warm-up");
  for (int i = 0; i < 7; ++i) {
    cudaEventRecord(a, s);
    ok(cudaGraphLaunch(exec, s), "graph launch");
    cudaEventRecord(b, s);
    ok(cudaEventSynchronize(b), "sync");
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000.0 / kReps);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <int R, int J, int TILE, int STAGES>
Launch fast(const bf16* a, bf16* out, int rows, int64_t n, int64_t k, bool pdl) {
  constexpr auto kernel = gemv::gemv_fast_kernel<R, J, TILE, STAGES, false, gemv::PlainRows>;
  constexpr int shared = STAGES * gemv::kStageBytes<TILE, J>;
  const int resident = gemv::resident_blocks<kernel, shared>();
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>(n, int64_t{multiprocessors()} * resident)), 1);
  const gemv::PlainRows src{a, k};
  return [=](const bf16* w, cudaStream_t s) {
    if (pdl) {
      launch_pdl("probe", kernel, grid, dim3(gemv::kThreads), shared, s, src, w, out, rows, n, k);
    } else {
      kernel<<<grid, gemv::kThreads, shared, s>>>(src, w, out, rows, n, k);
      ok(cudaGetLastError(), "launch");
    }
  };
}

struct Variant {
  std::string name;
  Launch launch;
  bool production;
};

// TILE rows per tile and a ring of RING_KB KiB per block (STAGES = ring / stage, at least 2).
template <int R, int J, int TILE, int RING_KB>
void add_variant(std::vector<Variant>& v, const bf16* a, bf16* out, int rows, int64_t n, int64_t k) {
  constexpr int kStage = gemv::kStageBytes<TILE, J>;
  constexpr int STAGES = RING_KB * 1024 / kStage < 2 ? 2 : RING_KB * 1024 / kStage;
  if constexpr (TILE * R <= 32 && STAGES * kStage <= 200 * 1024) {
    constexpr int kProdTile = gemv::kTileRows<R, J>;
    const bool prod_shape = TILE == kProdTile && STAGES == gemv::kStages<R, kProdTile, J>;
    const std::string name = "tile" + std::to_string(TILE) + " x" + std::to_string(STAGES) + " (" +
                             std::to_string(STAGES * kStage / 1024) + " KiB)";
    v.push_back({name + " pdl", fast<R, J, TILE, STAGES>(a, out, rows, n, k, true), prod_shape});
    if (prod_shape) v.push_back({name, fast<R, J, TILE, STAGES>(a, out, rows, n, k, false), false});
  }
}

template <int R, int J>
void add_fast_variants(std::vector<Variant>& v, const bf16* a, bf16* out, int rows, int64_t n, int64_t k) {
  add_variant<R, J, 1, 96>(v, a, out, rows, n, k);
  add_variant<R, J, 1, 192>(v, a, out, rows, n, k);
  add_variant<R, J, 2, 64>(v, a, out, rows, n, k);
  add_variant<R, J, 2, 96>(v, a, out, rows, n, k);
  add_variant<R, J, 2, 192>(v, a, out, rows, n, k);
  add_variant<R, J, 4, 64>(v, a, out, rows, n, k);
  add_variant<R, J, 4, 96>(v, a, out, rows, n, k);
  add_variant<R, J, 4, 192>(v, a, out, rows, n, k);
  add_variant<R, J, 8, 96>(v, a, out, rows, n, k);
  add_variant<R, J, 8, 192>(v, a, out, rows, n, k);
}

template <int R>
void add_variants(std::vector<Variant>& v, const bf16* a, bf16* out, int rows, int64_t n, int64_t k) {
  const int j = static_cast<int>((k / 8 + 255) / 256);
  if (j == 2) add_fast_variants<R, 2>(v, a, out, rows, n, k);
  if (j == 3) add_fast_variants<R, 3>(v, a, out, rows, n, k);
  if constexpr (R <= 2)
    if (j == 6) add_fast_variants<R, 6>(v, a, out, rows, n, k);
}

std::vector<uint16_t> download(const bf16* p, size_t n) {
  std::vector<uint16_t> h(n);
  ok(cudaMemcpy(h.data(), p, n * 2, cudaMemcpyDeviceToHost), "download");
  return h;
}

float f32_of(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

int main() {
  cudaStream_t s;
  ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  cudaDeviceProp prop;
  ok(cudaGetDeviceProperties(&prop, 0), "props");
  std::printf("device %s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);

  // Copy ceiling.
  const size_t copy_bytes = size_t{1} << 30;
  void *src, *dst;
  ok(cudaMalloc(&src, copy_bytes), "malloc");
  ok(cudaMalloc(&dst, copy_bytes), "malloc");
  cudaMemsetAsync(src, 1, copy_bytes, s);
  std::vector<double> ct;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int i = 0; i < 9; ++i) {
    cudaEventRecord(e0, s);
    cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice, s);
    cudaEventRecord(e1, s);
    ok(cudaEventSynchronize(e1), "copy");
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    ct.push_back(2.0 * copy_bytes / (ms * 1e-3) / 1e12);
  }
  std::sort(ct.begin(), ct.end());
  const double ceiling = ct[ct.size() / 2];
  cudaFree(src);
  cudaFree(dst);
  std::printf("copy ceiling: %.3f TB/s (1 GiB D2D, read + write, median of 9)\n", ceiling);

  cublasHandle_t blas;
  cublasCreate(&blas);
  cublasSetStream(blas, s);
  void* workspace;
  ok(cudaMalloc(&workspace, 32 << 20), "workspace");
  cublasSetWorkspace(blas, workspace, 32 << 20);

  const size_t pool_bytes = size_t{640} << 20;
  bf16* pool;
  ok(cudaMalloc(&pool, pool_bytes), "pool");
  fill_random<<<4096, 256, 0, s>>>(pool, static_cast<int64_t>(pool_bytes / 2), 11, 0.1f);
  bf16 *a, *out, *ref_out;
  ok(cudaMalloc(&a, 4 * 12288 * 2), "a");
  ok(cudaMalloc(&out, 4 * 24576 * 2), "out");
  ok(cudaMalloc(&ref_out, 4 * 24576 * 2), "ref_out");
  fill_random<<<64, 256, 0, s>>>(a, 4 * 12288, 22, 4.0f);
  ok(cudaStreamSynchronize(s), "fill");

  struct GemvShape {
    int64_t n, k;
    const char* what;
    bool lm;  // the LM decode step's shapes: M = 2 alone
  };
  const GemvShape shapes[] = {{12288, 4096, "qkv/gate_up", false}, {4096, 4096, "wo/projection", false},
                              {4096, 6144, "down", false},         {1024, 4096, "head", false},
                              {6144, 4096, "lm qkv", true},        {24576, 4096, "lm gate_up", true},
                              {4096, 12288, "lm down", true},      {16385, 4096, "lm head", true}};
  std::vector<std::string> summary;
  int failures = 0;
  for (const GemvShape& sh : shapes) {
    const size_t bytes = static_cast<size_t>(sh.n * sh.k) * 2;
    std::vector<const bf16*> copies;
    for (size_t off = 0; off + bytes <= pool_bytes && copies.size() < 64; off += bytes) copies.push_back(pool + off / 2);
    for (int m : {1, 2, 4}) {
      if (sh.lm && m != 2) continue;
      std::vector<Variant> v;
      if (m == 1) add_variants<1>(v, a, out, m, sh.n, sh.k);
      if (m == 2) add_variants<2>(v, a, out, m, sh.n, sh.k);
      if (m == 4) add_variants<4>(v, a, out, m, sh.n, sh.k);
      const size_t outs = static_cast<size_t>(m * sh.n);
      // Production output on copy 0, and its f64 check on sampled outputs.
      const Variant* prod = nullptr;
      for (const auto& x : v)
        if (x.production) prod = &x;
      if (!prod) {
        std::printf("no production variant for N=%lld K=%lld M=%d\n", (long long)sh.n, (long long)sh.k, m);
        ++failures;
        continue;
      }
      cudaMemset(out, 0xFF, outs * 2);
      prod->launch(copies[0], s);
      ok(cudaStreamSynchronize(s), "production run");
      const auto want = download(out, outs);
      ok(cudaMemcpy(ref_out, out, outs * 2, cudaMemcpyDeviceToDevice), "keep");
      const auto wh = download(copies[0], static_cast<size_t>(sh.n * sh.k));
      const auto ah = download(a, static_cast<size_t>(m * sh.k));
      double worst = 0;
      for (int64_t i = 0; i < 64; ++i) {
        const int64_t row = (i * 7919) % sh.n, mm = i % m;
        double acc = 0;
        for (int64_t kk = 0; kk < sh.k; ++kk) acc += double(f32_of(ah[mm * sh.k + kk])) * f32_of(wh[row * sh.k + kk]);
        const double got = f32_of(want[mm * sh.n + row]);
        worst = std::max(worst, std::fabs(got - acc) / std::max(std::fabs(acc), 1e-3));
      }
      if (!(worst < 1e-2)) {
        std::printf("FAIL production vs f64: N=%lld K=%lld M=%d rel %.3g\n", (long long)sh.n, (long long)sh.k, m, worst);
        ++failures;
      }
      double prod_us = 0, best_us = 1e9;
      std::string best;
      for (const auto& x : v) {
        cudaMemset(out, 0xFF, outs * 2);
        x.launch(copies[0], s);
        ok(cudaStreamSynchronize(s), x.name.c_str());
        const bool same = download(out, outs) == want;
        if (!same) ++failures;
        const double us = time_us(x.launch, copies, s);
        const double tbps = bytes / (us * 1e-6) / 1e12;
        std::printf("N=%-6lld K=%-5lld M=%d %-28s %8.2f us %6.3f TB/s %5.1f%%%s%s\n", (long long)sh.n, (long long)sh.k, m,
                    x.name.c_str(), us, tbps, 100 * tbps / ceiling, x.production ? "  <- production" : "",
                    same ? "" : "  BITS DIFFER");
        if (x.production) prod_us = us;
        if (us < best_us) best_us = us, best = x.name;
      }
      // cuBLAS, same rotation.
      const float alpha = 1.0f, beta = 0.0f;
      const Launch blas_launch = [&](const bf16* w, cudaStream_t) {
        cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, int(sh.n), m, int(sh.k), &alpha, w, CUDA_R_16BF, int(sh.k), a,
                     CUDA_R_16BF, int(sh.k), &beta, out, CUDA_R_16BF, int(sh.n), CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT);
      };
      const double blas_us = time_us(blas_launch, copies, s);
      const double ptb = bytes / (prod_us * 1e-6) / 1e12;
      char line[256];
      std::snprintf(line, sizeof line, "| %-13s | [%5lld,%4lld] | %d | %7.2f | %5.3f | %5.1f%% | %7.2f | %7.2f %-26s |",
                    sh.what, (long long)sh.n, (long long)sh.k, m, prod_us, ptb, 100 * ptb / ceiling, blas_us, best_us,
                    best.c_str());
      summary.push_back(line);
    }
  }
  // Fused ops against the unfused ops they replace, through the entry points, in graphs.
  const Queue q = cuda_queue(0);
  const cudaStream_t qs = static_cast<cudaStream_t>(q.stream);
  auto view = [](void* p, music3::Shape sh) { return Tensor{p, DType::BF16, sh, DeviceType::CUDA}; };
  auto scratch = [&](size_t elems, uint64_t seed, float scale) {
    bf16* p;
    ok(cudaMalloc(&p, elems * 2), "scratch");
    fill_random<<<256, 256, 0, qs>>>(p, static_cast<int64_t>(elems), seed, scale);
    return p;
  };
  std::vector<std::string> ab;
  auto compare = [&](const std::string& what, const Launch& fused, const Launch& unfused,
                     const std::vector<const bf16*>& copies, const bf16* result, size_t result_elems) {
    fused(copies[0], qs);
    ok(cudaStreamSynchronize(qs), what.c_str());
    const auto f = download(result, result_elems);
    unfused(copies[0], qs);
    ok(cudaStreamSynchronize(qs), what.c_str());
    const bool same = download(result, result_elems) == f;
    if (!same) ++failures;
    const double fu = time_us(fused, copies, qs), un = time_us(unfused, copies, qs);
    char line[200];
    std::snprintf(line, sizeof line, "| %-44s | %8.2f | %8.2f | %s |", what.c_str(), fu, un, same ? "equal" : "DIFFER");
    ab.push_back(line);
  };
  {
    const int64_t H = 4096;
    const std::vector<const bf16*> none{nullptr};
    bf16* x = scratch(4 * H, 34, 2.0f);
    bf16* r = scratch(4 * H, 35, 1.0f);
    bf16* w = scratch(H, 36, 1.0f);
    bf16* hb = scratch(4 * H, 37, 1.0f);
    bf16* ab_out = scratch(4 * H, 38, 1.0f);
    const Tensor xv = view(x, {2, H}), rv = view(r, {2, H}), wv = view(w, {H}), hv = view(hb, {2, H}),
                 outv = view(ab_out, {2, H});
    compare("add_rms_norm, 2 x 4096: fused | add + rms_norm",
            [&](const bf16*, cudaStream_t) { ops::add_rms_norm(q, xv, rv, wv, 1e-6f, hv, outv); },
            [&](const bf16*, cudaStream_t) {
              ops::add(q, xv, rv, hv);
              ops::rms_norm(q, hv, wv, 1e-6f, outv);
            },
            none, ab_out, size_t(2 * H));
    const int64_t tmax = 16;
    bf16* qkv = scratch(2 * 3 * H, 39, 1.0f);
    bf16* kc = scratch(2 * tmax * H, 40, 1.0f);
    bf16* vc = scratch(2 * tmax * H, 41, 1.0f);
    bf16* qo = scratch(2 * H, 42, 1.0f);
    bf16* att = scratch(2 * H, 43, 1.0f);
    const Tensor qkvv = view(qkv, {2, 3 * H}), kcv = view(kc, {2, tmax, H}), vcv = view(vc, {2, tmax, H}),
                 qov = view(qo, {2, H}), attv = view(att, {2, H});
    const float sc = 1.0f / 16.0f;
    compare("kv_append_attention, pos 6: fused | append + attention",
            [&](const bf16*, cudaStream_t) { ops::kv_append_attention(q, qkvv, kcv, vcv, 6, 16, sc, attv); },
            [&](const bf16*, cudaStream_t) {
              ops::kv_append(q, qkvv, qov, kcv, vcv, 6);
              ops::attention_decode(q, qov, kcv, vcv, 7, 16, sc, attv);
            },
            none, att, size_t(2 * H));
  }

  std::printf("\ncopy ceiling %.3f TB/s; production = kTileRows<R,J> x kStages<R,TILE,J> (kRingBytes<R,J>), occupancy grid, PDL\n", ceiling);
  std::printf("| shape         | [N, K]       | M | prod us | TB/s  | ceil   | cuBLAS  | best variant                       |\n");
  for (const auto& l : summary) std::printf("%s\n", l.c_str());
  std::printf("\n| fused op vs unfused ops (graph of 20, median of 7) | fused us | unfused us | bits |\n");
  for (const auto& l : ab) std::printf("%s\n", l.c_str());
  std::printf("bit/f64 check failures: %d\n", failures);
  return failures ? 1 : 0;
}
