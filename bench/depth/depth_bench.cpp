// bench-depth: the depth stage one frame at a time through DepthEngine::run_frame (the
// production path: projection, the 7 calls, heads, CFG, top-k and the draw, inputs
// uploaded and codes read back), and the host arm's storage control.
//  - depth/cuda/full/device: the device arm at the full geometry (hidden 4096, 4 layers,
//    ffn 6144, batch 2, 7 calls) from seeded synthetic weights (CUDA device present).
//  - depth/cpu/mid/host: the host arm at the mid geometry (hidden 1024, heads 4, ffn 1536).
//  - host_sweep/cpu/mid/{arm,uncached}/bf16_vs_f32: host::linear over one call's linears
//    (M = 2 rows against each layer's q, k, v, o, gate, up, down) with bf16 storage,
//    against the same values in f32 containers (bench/support/host_f32_linear.h), the two
//    timed in alternating order within every iteration; reports both and f32_over_bf16.
//    "arm" re-sweeps one call's weights (the arm's working set); "uncached" rotates past
//    the last-level cache (the bandwidth-bound regime the storage choice is about).
//  - copy_ceiling/{cpu,cuda}: the ceilings every fraction is taken against, measured at
//    start in this process (CPU 512 MiB parallel copy, CUDA 2 GiB device-to-device).
// Frames are timed with the host clock around run_frame, which returns only after the
// codes are on the host: everything is included. Counters: ms_per_frame,
// bytes_per_frame (bench/depth/depth_geometry.h), TBps or GBps, of_ceiling, floor_ms.
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "bench/support/bench_main.h"
#include "bench/depth/depth_geometry.h"
#include "bench/support/guarded.h"
#include "bench/support/host_f32_linear.h"
#include "bench/support/uniform_bf16.h"
#include "bench/support/timed_batches.h"
#include "engine/models/music3/depth/depth_engine.h"
#include "engine/runtime/host_math.h"
#include "engine/models/music3/depth/depth_synthetic.h"

namespace {
using namespace music3;
using namespace music3::bench;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kWeightSeed = 0;
constexpr int kInputFrames = 8;  // distinct synthetic inputs, cycled

struct StageFixture {
  std::unique_ptr<depth::DepthEngine> engine;
  std::vector<bf16> last_hidden, c0;  // kInputFrames x [2,H] and x [H]
  uint64_t next_frame = 0;

  depth::FrameInputs inputs() {
    const size_t H = static_cast<size_t>(engine->config().hidden), slot = size_t(next_frame % kInputFrames);
    depth::FrameInputs in;
    in.last_hidden = last_hidden.data() + slot * 2 * H;
    in.c0_embedding = c0.data() + slot * H;
    in.frame = next_frame++;
    in.draws.seed = kWeightSeed;
    return in;
  }
};

StageFixture make_stage(const std::string& geometry, const Queue& q, depth::ArmRequest request) {
  const depth::DepthConfig cfg = depth_geometry(geometry);
  StageFixture f;
  f.engine = std::make_unique<depth::DepthEngine>(depth::synthetic_depth_weights(cfg, kWeightSeed), q, request);
  const size_t H = static_cast<size_t>(cfg.hidden);
  f.last_hidden.resize(kInputFrames * 2 * H);
  f.c0.resize(kInputFrames * H);
  for (int i = 0; i < kInputFrames; ++i)
    depth::synthetic_frame_inputs(cfg, kWeightSeed, uint64_t(i), f.last_hidden.data() + size_t(i) * 2 * H,
                                  f.c0.data() + size_t(i) * H);
  return f;
}

void register_stage(const Queue& q, const std::string& dev, const std::string& geometry, depth::ArmRequest request,
                    double ceiling) {
  const std::string arm = request == depth::ArmRequest::Host ? "host" : "device";
  const depth::ArmKind expected = request == depth::ArmRequest::Host ? depth::ArmKind::Host : depth::ArmKind::Device;
  const FrameBytes bytes = frame_bytes(depth_geometry(geometry));
  auto slot = std::make_shared<std::unique_ptr<StageFixture>>();
  const std::string name = "depth/" + dev + "/" + geometry + "/" + arm;
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      if (!*slot) *slot = std::make_unique<StageFixture>(make_stage(geometry, q, request));
      StageFixture& f = **slot;
      if (f.engine->arm_kind() != expected)
        throw std::runtime_error(name + ": the selector chose the " + depth::arm_name(f.engine->arm_kind()) + " arm");
      f.engine->run_frame(f.inputs());  // warm-up: graph capture, first touch
      double total = 0;
      int64_t frames = 0;
      for (auto _ : state) {
        const auto t0 = Clock::now();
        benchmark::DoNotOptimize(f.engine->run_frame(f.inputs()));
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        state.SetIterationTime(s);
        total += s;
        ++frames;
      }
      set_bandwidth_counters(state, q, total, double(frames), bytes.per_frame, ceiling);
      state.counters["ms_per_frame"] = total / double(frames) * 1e3;
      state.counters["bytes_per_frame"] = bytes.per_frame;
      state.counters["floor_ms"] = bytes.per_frame / ceiling * 1e3;
    });
  })->UseManualTime();
}

// One call's linears of the mid geometry, bf16 and f32-container copies of the same
// values, repeated `sets` times at distinct addresses.
struct SweepFixture {
  struct Matrix {
    int N, K;
    const bf16* w;
    const float* w32;
  };
  std::vector<bf16> w16;   // sets x one call's weights
  std::vector<float> w32;  // the same values
  std::vector<Matrix> matrices;
  std::vector<bf16> x, y;
  std::vector<float> x32, y32;
  double bf16_bytes = 0, f32_bytes = 0;  // per sweep over every set
};

SweepFixture make_sweep(const depth::DepthConfig& c, int sets) {
  SweepFixture f;
  const int H = c.hidden, I = c.intermediate, M = 2;
  std::vector<std::pair<int, int>> shapes;  // (N, K) of q, k, v, o, gate, up, down per layer
  for (int layer = 0; layer < c.layers; ++layer)
    for (auto nk : {std::pair{H, H}, {H, H}, {H, H}, {H, H}, {I, H}, {I, H}, {H, I}}) shapes.push_back(nk);
  size_t per_set = 0;
  for (auto [N, K] : shapes) per_set += size_t(N) * size_t(K);
  const auto one_set = uniform_bf16(per_set, 100, 0.05f);
  f.w16.reserve(per_set * size_t(sets));
  for (int s = 0; s < sets; ++s) f.w16.insert(f.w16.end(), one_set.begin(), one_set.end());
  f.w32.reserve(f.w16.size());
  for (bf16 v : f.w16) f.w32.push_back(to_f32(v));
  size_t offset = 0;
  for (int s = 0; s < sets; ++s)
    for (auto [N, K] : shapes) {
      f.matrices.push_back({N, K, f.w16.data() + offset, f.w32.data() + offset});
      offset += size_t(N) * size_t(K);
      f.bf16_bytes += 2.0 * (double(N) * K + double(M) * K + double(M) * N);
      f.f32_bytes += 4.0 * (double(N) * K + double(M) * K + double(M) * N);
    }
  const size_t widest = size_t(std::max(H, I));
  f.x = uniform_bf16(size_t(M) * widest, 101);
  for (bf16 v : f.x) f.x32.push_back(to_f32(v));
  f.y.resize(size_t(M) * widest);
  f.y32.resize(size_t(M) * widest);
  // The control must compute the same function: compare the down projection bit for bit.
  const auto& m = f.matrices.back();
  runtime::host::linear(f.x.data(), M, m.w, m.N, m.K, f.y.data(), 0);
  linear_f32_container(f.x32.data(), M, m.w32, m.N, m.K, f.y32.data(), 0);
  for (size_t i = 0; i < size_t(M) * size_t(m.N); ++i)
    if (to_f32(f.y[i]) != f.y32[i])
      throw std::runtime_error("host sweep: the f32-container control differs from host::linear at output " +
                               std::to_string(i));
  return f;
}

// regime "arm": one call's weights, swept again and again, as the arm's 7 calls per frame
// sweep them (whatever of them the caches hold, they hold for the arm too); regime
// "uncached": rotation_copies() sets, so no sweep finds its weights in the last-level cache.
void register_sweep(const Queue& cpu, const std::string& regime, double ceiling) {
  auto slot = std::make_shared<std::unique_ptr<SweepFixture>>();
  const std::string name = "host_sweep/cpu/mid/" + regime + "/bf16_vs_f32";
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      if (!*slot) {
        const depth::DepthConfig mid = depth_geometry("mid");
        const double one_set_f32 = 2.0 * frame_bytes(mid).layer_weights;  // bf16 bytes x 2
        *slot = std::make_unique<SweepFixture>(make_sweep(mid, regime == "arm" ? 1 : rotation_copies(cpu, one_set_f32)));
      }
      SweepFixture& f = **slot;
      auto sweep_bf16 = [&] {
        for (const auto& m : f.matrices) runtime::host::linear(f.x.data(), 2, m.w, m.N, m.K, f.y.data(), 0);
      };
      auto sweep_f32 = [&] {
        for (const auto& m : f.matrices) linear_f32_container(f.x32.data(), 2, m.w32, m.N, m.K, f.y32.data(), 0);
      };
      auto timed = [](auto&& fn) {
        const auto t0 = Clock::now();
        fn();
        return std::chrono::duration<double>(Clock::now() - t0).count();
      };
      sweep_bf16();
      sweep_f32();
      double t16 = 0, t32 = 0;
      int64_t iters = 0;
      for (auto _ : state) {
        double a, b;
        if (iters % 2 == 0) {
          a = timed(sweep_bf16);
          b = timed(sweep_f32);
        } else {
          b = timed(sweep_f32);
          a = timed(sweep_bf16);
        }
        state.SetIterationTime(a + b);
        t16 += a;
        t32 += b;
        ++iters;
      }
      const double n = double(iters);
      state.counters["bf16_ms"] = t16 / n * 1e3;
      state.counters["f32_ms"] = t32 / n * 1e3;
      state.counters["f32_over_bf16"] = t32 / t16;
      state.counters["bf16_GBps"] = f.bf16_bytes * n / t16 / 1e9;
      state.counters["f32_GBps"] = f.f32_bytes * n / t32 / 1e9;
      state.counters["bf16_of_ceiling"] = f.bf16_bytes * n / t16 / ceiling;
      state.counters["bf16_bytes"] = f.bf16_bytes;
    });
  })->UseManualTime();
}

}  // namespace

int main(int argc, char** argv) {
  return run_bench_main(argc, argv, "bench-depth", [](const Ceilings& c) {
    if (c.has_cuda) {
      const FrameBytes full = frame_bytes(depth_geometry("full"));
      benchmark::AddCustomContext("full_bytes_per_frame", fixed(full.per_frame, 0));
      benchmark::AddCustomContext("full_floor_ms_per_frame", fixed(full.per_frame / c.gpu_Bps * 1e3, 4));
      register_stage(c.gpu, "cuda", "full", depth::ArmRequest::Device, c.gpu_Bps);
    }
    register_stage(c.cpu, "cpu", "mid", depth::ArmRequest::Host, c.cpu_Bps);
    register_sweep(c.cpu, "arm", c.cpu_Bps);
    register_sweep(c.cpu, "uncached", c.cpu_Bps);
  });
}
