// bench-ops: Google Benchmark benches of the depth stage's ops at its shapes. Each
// reports bytes per call (every input read once, every output written once), TB/s
// (GB/s on the CPU) and its fraction of the copy ceiling measured at start, in the same
// process, on the same device.
//  - CUDA (when a device is present), the full geometry: MatmulBT [2,4096]x[12288,4096]
//    (qkv), [2,4096]x[4096,4096] (o), [2,4096]x[12288,4096] (gate_up), [2,6144]x[4096,6144]
//    (down); attention_decode B=2, 16 heads x 256 over 8 positions; rms_norm [2,4096];
//    and the ceiling itself, a 2 GiB device-to-device copy. Timed with CUDA events as
//    manual time.
//  - CPU, the mid geometry's shapes (a quarter of the widths), and a 512 MiB copy.
// MatmulBT weights rotate over copies (rotation_copies: past 4x the last-level cache) so
// no call finds its weights cached; activations stay put, as they do within a frame.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bench/support/bench_main.h"
#include "bench/support/copy_ceiling.h"
#include "bench/depth/depth_geometry.h"
#include "bench/support/guarded.h"
#include "bench/support/queue_timer.h"
#include "engine/core/device_array.h"
#include "bench/support/uniform_bf16.h"
#include "bench/support/timed_batches.h"
#include "engine/core/backend.h"
#include "engine/ops/ops.h"

namespace {
using namespace music3;
using namespace music3::bench;

constexpr int kSmallOpCallsPerBatch = 64;
constexpr size_t kCopyTileBytes = size_t(64) << 20;

struct MatmulShape {
  std::string role;
  int64_t M, K, N;
};

// Fixtures are built on a bench's first run and kept: Google Benchmark runs a bench
// function several times while it sizes the iteration count.
template <class Fixture>
using Lazy = std::shared_ptr<std::unique_ptr<Fixture>>;

template <class Fixture, class Make>
Fixture& lazy_get(const Lazy<Fixture>& slot, Make make) {
  if (!*slot) *slot = std::make_unique<Fixture>(make());
  return **slot;
}

DeviceArray random_buffer(const Queue& q, int64_t count, uint64_t seed, int copies = 1) {
  const auto host = uniform_bf16(static_cast<size_t>(count), seed);
  const size_t bytes = host.size() * sizeof(bf16);
  DeviceArray buf(q, bytes * static_cast<size_t>(copies));
  for (int c = 0; c < copies; ++c) buf.upload(host.data(), bytes, bytes * static_cast<size_t>(c));
  q.synchronize();
  return buf;
}

struct MatmulFixture {
  int copies;
  DeviceArray weights, act, out;
};

void register_matmul(const Queue& q, const std::string& dev, const MatmulShape& s, double ceiling) {
  const double bytes = 2.0 * double(s.N * s.K + s.M * s.K + s.M * s.N);
  const double weight_bytes = 2.0 * double(s.N * s.K);
  const int copies = rotation_copies(q, weight_bytes);
  auto slot = std::make_shared<std::unique_ptr<MatmulFixture>>();
  const std::string name = "ops/" + dev + "/matmul_bt/" + s.role + "/M" + std::to_string(s.M) + "_K" +
                           std::to_string(s.K) + "_N" + std::to_string(s.N);
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      auto& f = lazy_get(slot, [&] {
        return MatmulFixture{copies, random_buffer(q, s.N * s.K, 1, copies), random_buffer(q, s.M * s.K, 2),
                             DeviceArray(q, size_t(s.M * s.N) * sizeof(bf16))};
      });
      const Tensor a = f.act.view(DType::BF16, {s.M, s.K}), out = f.out.view(DType::BF16, {s.M, s.N});
      const size_t stride = size_t(s.N * s.K) * sizeof(bf16);
      state.counters["weight_copies"] = f.copies;
      run_timed_batches(state, q, f.copies, bytes, ceiling, [&] {
        for (int c = 0; c < f.copies; ++c)
          ops::matmul_bt(q, a, f.weights.view(DType::BF16, {s.N, s.K}, stride * size_t(c)), out);
      });
    });
  })->UseManualTime();
}

struct AttentionFixture {
  DeviceArray query, k, v, out;
};

void register_attention(const Queue& q, const std::string& dev, const depth::DepthConfig& c, int length,
                        double ceiling) {
  const int64_t B = 2, H = c.hidden, T = length;
  const double bytes = 2.0 * double(B * H + 2 * B * T * H + B * H);
  auto slot = std::make_shared<std::unique_ptr<AttentionFixture>>();
  const std::string name = "ops/" + dev + "/attention_decode/B2_" + std::to_string(c.heads) + "x" +
                           std::to_string(c.head_dim()) + "_len" + std::to_string(length);
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      auto& f = lazy_get(slot, [&] {
        return AttentionFixture{random_buffer(q, B * H, 3), random_buffer(q, B * T * H, 4),
                                random_buffer(q, B * T * H, 5), DeviceArray(q, size_t(B * H) * sizeof(bf16))};
      });
      const Tensor query = f.query.view(DType::BF16, {B, H}), out = f.out.view(DType::BF16, {B, H});
      const Tensor k = f.k.view(DType::BF16, {B, T, H}), v = f.v.view(DType::BF16, {B, T, H});
      const float scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim()));
      run_timed_batches(state, q, kSmallOpCallsPerBatch, bytes, ceiling, [&] {
        for (int i = 0; i < kSmallOpCallsPerBatch; ++i)
          ops::attention_decode(q, query, k, v, length, c.heads, scale, out);
      });
    });
  })->UseManualTime();
}

struct NormFixture {
  DeviceArray x, w, out;
};

void register_rms_norm(const Queue& q, const std::string& dev, const depth::DepthConfig& c, double ceiling) {
  const int64_t M = 2, H = c.hidden;
  const double bytes = 2.0 * double(M * H + H + M * H);
  auto slot = std::make_shared<std::unique_ptr<NormFixture>>();
  const std::string name = "ops/" + dev + "/rms_norm/" + std::to_string(M) + "x" + std::to_string(H);
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      auto& f = lazy_get(slot, [&] {
        return NormFixture{random_buffer(q, M * H, 6), random_buffer(q, H, 7),
                           DeviceArray(q, size_t(M * H) * sizeof(bf16))};
      });
      const Tensor x = f.x.view(DType::BF16, {M, H}), w = f.w.view(DType::BF16, {H});
      const Tensor out = f.out.view(DType::BF16, {M, H});
      run_timed_batches(state, q, kSmallOpCallsPerBatch, bytes, ceiling, [&] {
        for (int i = 0; i < kSmallOpCallsPerBatch; ++i) ops::rms_norm(q, x, w, c.eps, out);
      });
    });
  })->UseManualTime();
}

struct CopyFixture {
  DeviceArray src, dst;
};

// The ceiling as a bench of its own, timed like the ops: a device-to-device copy on
// CUDA, the parallel host copy on the CPU.
void register_copy(const Queue& q, const std::string& dev, size_t buffer_bytes, double ceiling) {
  auto slot = std::make_shared<std::unique_ptr<CopyFixture>>();
  const std::string name = "ops/" + dev + "/copy_ceiling/" + std::to_string(buffer_bytes >> 20) + "MiB";
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      auto& f = lazy_get(slot, [&] {
        const size_t tile = std::min(buffer_bytes, kCopyTileBytes);  // random tiles: cheap to draw, not zeros
        return CopyFixture{random_buffer(q, int64_t(tile / sizeof(bf16)), 8, int(buffer_bytes / tile)),
                           DeviceArray(q, buffer_bytes)};
      });
      run_timed_batches(state, q, 1, 2.0 * double(buffer_bytes), ceiling, [&] {
        if (q.is_cpu())
          parallel_host_copy(f.dst.data(), f.src.data(), buffer_bytes);
        else
          q.backend->copy(f.dst.data(), f.src.data(), buffer_bytes, CopyKind::DeviceToDevice, q.stream);
      });
    });
  })->UseManualTime();
}

void register_device(const Queue& q, const std::string& dev, const depth::DepthConfig& c, double ceiling,
                     size_t copy_bytes) {
  const int64_t H = c.hidden, I = c.intermediate;
  for (const MatmulShape& s : {MatmulShape{"qkv", 2, H, 3 * H}, MatmulShape{"o", 2, H, H},
                               MatmulShape{"gate_up", 2, H, 2 * I}, MatmulShape{"down", 2, I, H}})
    register_matmul(q, dev, s, ceiling);
  register_attention(q, dev, c, c.codebooks, ceiling);
  register_rms_norm(q, dev, c, ceiling);
  register_copy(q, dev, copy_bytes, ceiling);
}

}  // namespace

int main(int argc, char** argv) {
  return run_bench_main(argc, argv, "bench-ops", [](const Ceilings& c) {
    register_device(c.cpu, "cpu", depth_geometry("mid"), c.cpu_Bps, kCpuCeilingBytes);
    if (c.has_cuda) register_device(c.gpu, "cuda", depth_geometry("full"), c.gpu_Bps, kCudaCeilingBytes);
  });
}
