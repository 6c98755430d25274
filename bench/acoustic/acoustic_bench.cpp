// bench-acoustic: the acoustic stage on seeded synthetic weights (acoustic_synthetic.h), one 200-frame window (689
// latents), through the production arm factories (make_*_arm) and the arm interfaces the window loop drives.
//  - dit_guided_step/device/cuda/full/689: one guided Euler step's DiT call at the release geometry on the device
//    arm (velocities(): both branches as one batch of 2, x and the Fourier features uploaded, the captured graph,
//    the two velocities read back), timed with the host clock around the call, so everything is included;
//  - dit_loop_step/device/cuda/full/689: one guided step as the window loop runs it on the device arm (run_steps
//    over a window's 30 steps with the 172-latent overlap, x kept on the device; per step, everything included);
//  - acoustic_window/device/cuda/full/200: one whole window through run_acoustic (the encode, 30 steps in the
//    device arm's loop), the issue's <= 0.4 s target;
//  - condition_encoder/device/cuda/full/200: one encode on the device arm;
//  - dit_attention/cuda/full/689: ops::self_attention alone at the DiT's shape (2 (L + 1) rows, 32 heads of 64,
//    batch 2) with the rotary tables (as the arm calls it), device time per call;
//  - .../attn:<variant> (dit_attention and dit_guided_step on CUDA): the same on one self_attention provider, the
//    others of that op disabled for the run (OpRegistry::set_enabled), one per enabled CUDA provider
//    (attn:music3 = cuda.self_attention, attn:cudnn = cuda.self_attention.cudnn), so one process compares them;
//    the names without the suffix run the registry's choice;
//  - on the CPU: the host arms at the tiny geometry (the reference point) and the device arm on the CPU providers
//    (the smoke run of the device path).
// Counters: ms per call; for the DiT the FLOPs of a guided step (2 x the MACs of every GEMM, conv and attention
// product, both branches), tflops, and of_gemm_ceiling: the achieved TFLOP/s over a bf16 GEMM ceiling measured in
// this process through ops::matmul_bt at the DiT's largest GEMM (the FF input projection, M = 2 (L + 1), N = 2
// ff_inner, K = inner; context gemm_ceiling_tflops). The context also holds ops::matmul_bt's TFLOP/s at each of
// the block's other GEMM shapes (gemm_tflops_qkv, _wo, _ff_out; no bias) and dit_gemm_floor_ms: the step's block
// GEMMs (layers x the four) at those rates, the part of ms_per_step that only a faster GEMM can remove.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/support/bench_main.h"
#include "bench/support/guarded.h"
#include "engine/core/device_array.h"
#include "engine/models/music3/acoustic/acoustic_scheduler.h"
#include "engine/models/music3/acoustic/acoustic_selector.h"
#include "engine/models/music3/acoustic/acoustic_stage.h"
#include "engine/models/music3/acoustic/acoustic_synthetic.h"
#include "engine/models/music3/acoustic/acoustic_windows.h"
#include "engine/models/music3/acoustic/condition_encoder_host_arm.h"
#include "engine/models/music3/acoustic/dit_host_arm.h"
#include "engine/models/music3/acoustic/dit_host_math.h"
#include "engine/ops/ops.h"
#include "engine/ops/registry.h"
#include "engine/ops/transformer_ops.h"

namespace music3::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kFrames = 200, kLatents = 689;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double dit_step_flops(const acoustic::DitConfig& c, int64_t L) {
  const double S = double(L + 1), D = c.inner(), C2 = c.concat_channels(), C = c.in_channels, F = c.ff_inner;
  double macs = C2 * C2 * L + C2 * D * L + D * C * L + C * C * L;
  macs += c.layers * (4 * D * D * S + 2 * S * S * D + 3 * F * D * S);
  return 2 * 2 * macs;  // two branches, two FLOPs per MAC
}

// TFLOP/s of ops::matmul_bt at [M, K] x [N, K]^T on q: the median of 5 batches of 10 calls (host clock, one
// synchronize per batch) after 3 untimed calls.
double gemm_ceiling_tflops(const Queue& q, int64_t M, int64_t N, int64_t K) {
  DeviceArray a(q, DType::BF16, {M, K}), b(q, DType::BF16, {N, K}), o(q, DType::BF16, {M, N});
  a.upload(acoustic::synthetic_normal(size_t(M * K), 11));
  b.upload(acoustic::synthetic_normal(size_t(N * K), 12));
  for (int i = 0; i < 3; ++i) ops::matmul_bt(q, a, b, o);
  q.synchronize();
  std::vector<double> t;
  for (int batch = 0; batch < 5; ++batch) {
    const auto t0 = Clock::now();
    for (int i = 0; i < 10; ++i) ops::matmul_bt(q, a, b, o);
    q.synchronize();
    t.push_back(seconds_since(t0) / 10);
  }
  std::sort(t.begin(), t.end());
  return 2.0 * double(M) * double(N) * double(K) / t[2] / 1e12;
}

// The block GEMMs of the DiT at M rows: the merged q|k|v, to_out, ff_in, ff_out as (N, K).
struct GemmShape {
  const char* name;
  int64_t n, k;
};
std::vector<GemmShape> block_gemms(const acoustic::DitConfig& c) {
  const int64_t D = c.inner(), F = c.ff_inner;
  return {{"qkv", 3 * D, D}, {"wo", D, D}, {"ff_in", 2 * F, D}, {"ff_out", D, F}};
}

// The enabled CUDA providers of self_attention, as "attn:<variant>" suffixes (the provider name past
// "cuda.self_attention", "music3" for ours) with their names.
std::vector<std::pair<std::string, std::string>> attention_providers() {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string base = "cuda.self_attention";
  for (const ops::ProviderUse& u : ops::registry().usage())
    if (u.op == ops::OpId::SelfAttention && u.device == DeviceType::CUDA && u.enabled)
      out.emplace_back("attn:" + (u.name == base ? std::string("music3") : u.name.substr(base.size() + 1)), u.name);
  return out;
}

// For one benchmark body: only `provider` of the CUDA self_attention providers enabled (none: the registry's own
// choice), the others enabled again after.
class OnlyAttentionProvider {
 public:
  explicit OnlyAttentionProvider(const std::string& provider) {
    if (provider.empty()) return;
    for (const auto& [variant, name] : attention_providers())
      if (name != provider) off_.push_back(name);
    for (const auto& name : off_) ops::registry().set_enabled(name, false);
  }
  ~OnlyAttentionProvider() {
    for (const auto& name : off_) ops::registry().set_enabled(name, true);
  }
  OnlyAttentionProvider(const OnlyAttentionProvider&) = delete;
  OnlyAttentionProvider& operator=(const OnlyAttentionProvider&) = delete;

 private:
  std::vector<std::string> off_;
};

std::string variant_suffix(const std::string& variant) { return variant.empty() ? "" : "/" + variant; }

// ops::self_attention with the rotary tables at the DiT's shape, qkv given up as the DiT gives it (QkvAfter::scratch:
// every call rotates q and k again; real tables keep their norms): device time per call (median of 5 batches of 20,
// host clock around each batch and its synchronize); counters us_per_call and tflops (q.k and p.v, both branches).
// On `provider` alone when given (its variant in the name).
void register_attention(const Queue& q, const std::string& geometry, const std::string& variant = "",
                        const std::string& provider = "") {
  const std::string name =
      "dit_attention/cuda/" + geometry + "/" + std::to_string(kLatents) + variant_suffix(variant);
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      const OnlyAttentionProvider only(provider);
      const acoustic::DitConfig c = acoustic::dit_geometry(geometry);
      const int64_t S = kLatents + 1, rows = 2 * S, D = c.inner();
      DeviceArray qkv(q, DType::BF16, {rows, 3 * D}), out(q, DType::BF16, {rows, D});
      DeviceArray cos(q, DType::BF16, {S, c.rotary_dim}), sin(q, DType::BF16, {S, c.rotary_dim});
      qkv.upload(acoustic::synthetic_normal(size_t(rows * 3 * D), 13));
      std::vector<bf16> ch, sh;
      acoustic::host::rope_tables(S, c.rotary_dim, acoustic::DitConfig::kRotaryTheta, ch, sh);
      cos.upload(ch);
      sin.upload(sh);
      const float scale = static_cast<float>(1.0 / std::sqrt(double(c.head_dim)));
      auto call = [&] { ops::self_attention(q, qkv, c.heads, 2, scale, out, cos, sin, ops::QkvAfter::scratch); };
      call();
      q.synchronize();
      double total = 0;
      int64_t calls = 0;
      for (auto _ : state) {
        const auto t0 = Clock::now();
        for (int i = 0; i < 20; ++i) call();
        q.synchronize();
        const double s = seconds_since(t0) / 20;
        state.SetIterationTime(s);
        total += s;
        ++calls;
      }
      const double per_call = total / double(calls), flops = 2.0 * 2.0 * 2.0 * double(S) * double(S) * double(D);
      state.counters["us_per_call"] = per_call * 1e6;
      state.counters["tflops"] = flops / per_call / 1e12;
      state.SetLabel(geometry + ", " + std::to_string(S) + " tokens x 2 branches, rotary tables");
    });
  })->UseManualTime()->Unit(benchmark::kMicrosecond);
}

struct DitFixture {
  acoustic::DitWeights weights;
  runtime::ArmInstruments instruments;
  std::unique_ptr<acoustic::DitArm> arm;
  std::vector<bf16> x, cond;
};

// The synthetic weights of `geometry`, the arm the selector makes for `request`, and one window's x and condition.
std::unique_ptr<DitFixture> make_dit_fixture(const Queue& q, runtime::ArmRequest request, const std::string& geometry) {
  auto f = std::make_unique<DitFixture>();
  f->weights = acoustic::synthetic_dit_weights(acoustic::dit_geometry(geometry), 0);
  f->arm = acoustic::make_dit_arm(f->weights, q, request, f->instruments);
  f->x = acoustic::synthetic_normal(size_t(f->weights.cfg.in_channels * kLatents), 1);
  f->cond = acoustic::synthetic_normal(size_t(f->weights.cfg.condition_dim * kLatents), 2);
  return f;
}

// ms_per_step, tflops and (given a ceiling) of_gemm_ceiling of a guided step that took `per_step` seconds.
void step_counters(benchmark::State& state, const acoustic::DitConfig& cfg, double per_step, double ceiling_tflops) {
  const double flops = dit_step_flops(cfg, kLatents);
  state.counters["ms_per_step"] = per_step * 1e3;
  state.counters["step_flops"] = flops;
  state.counters["tflops"] = flops / per_step / 1e12;
  if (ceiling_tflops > 0) state.counters["of_gemm_ceiling"] = flops / per_step / 1e12 / ceiling_tflops;
}

// The device arm's graph is captured at the first call inside the body, so `provider` (when given) is what it runs.
void register_dit(const Queue& q, const std::string& dev, runtime::ArmRequest request, const std::string& geometry,
                  double ceiling_tflops, const std::string& variant = "", const std::string& provider = "") {
  const std::string arm_name = request == runtime::ArmRequest::Host ? "host" : "device";
  const std::string name = "dit_guided_step/" + arm_name + "/" + dev + "/" + geometry + "/" +
                           std::to_string(kLatents) + variant_suffix(variant);
  auto slot = std::make_shared<std::unique_ptr<DitFixture>>();
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      const OnlyAttentionProvider only(provider);
      if (!*slot) *slot = make_dit_fixture(q, request, geometry);
      DitFixture& f = **slot;
      const bf16 t = to_bf16(0.5f);
      f.arm->velocities(f.x.data(), kLatents, t, f.cond.data());  // warm-up: capture, cuBLAS handles, condition
      double total = 0;
      int64_t steps = 0;
      for (auto _ : state) {
        const auto t0 = Clock::now();
        benchmark::DoNotOptimize(f.arm->velocities(f.x.data(), kLatents, t, f.cond.data()).conditional.data());
        const double s = seconds_since(t0);
        state.SetIterationTime(s);
        total += s;
        ++steps;
      }
      step_counters(state, f.weights.cfg, total / double(steps), ceiling_tflops);
      state.SetLabel(geometry + ", " + std::to_string(kLatents) + " latents, both branches");
    });
  })->UseManualTime()->Unit(benchmark::kMillisecond);
}

// One window's 30 guided steps as the window loop runs them on the device arm (run_steps: x kept on the device, the
// release's 172-latent overlap re-noised every step, guidance and Euler by guided_euler), per step: everything a
// step costs in the loop, the per-window uploads and the read-back shared out over the steps.
void register_dit_loop(const Queue& q, const std::string& geometry, double ceiling_tflops) {
  const std::string name = "dit_loop_step/device/cuda/" + geometry + "/" + std::to_string(kLatents);
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      const int kSteps = acoustic::AcousticOptions{}.steps;
      constexpr int64_t kOverlap = acoustic::kOverlapLatents;
      const std::unique_ptr<DitFixture> fixture = make_dit_fixture(q, runtime::ArmRequest::Device, geometry);
      DitFixture& f = *fixture;
      const int64_t C = f.weights.cfg.in_channels;
      const auto noise = acoustic::synthetic_normal(size_t(C * kOverlap), 3);
      const auto carried = acoustic::synthetic_normal(size_t(C * kOverlap), 4);
      const std::vector<float> sigmas = acoustic::flow_sigmas(kSteps);
      const acoustic::WindowSteps w{kLatents, f.cond.data(), &sigmas, kOverlap, noise.data(), carried.data(), kOverlap, {}};
      std::vector<bf16> x = f.x;
      if (!f.arm->run_steps(x.data(), w)) throw std::runtime_error("the device arm has no loop of its own");  // warm-up
      double total = 0;
      int64_t windows = 0;
      for (auto _ : state) {
        x = f.x;
        const auto t0 = Clock::now();
        f.arm->run_steps(x.data(), w);
        const double s = seconds_since(t0);
        state.SetIterationTime(s);
        total += s;
        ++windows;
      }
      step_counters(state, f.weights.cfg, total / double(windows * kSteps), ceiling_tflops);
      state.SetLabel(geometry + ", " + std::to_string(kLatents) + " latents, both branches, " + std::to_string(kSteps) +
                     " steps per window, overlap " + std::to_string(kOverlap));
    });
  })->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
}

void register_encoder(const Queue& q, const std::string& dev, runtime::ArmRequest request,
                      const std::string& geometry) {
  const std::string arm_name = request == runtime::ArmRequest::Host ? "host" : "device";
  const std::string name = "condition_encoder/" + arm_name + "/" + dev + "/" + geometry + "/" + std::to_string(kFrames);
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      const auto w = acoustic::synthetic_condition_encoder_weights(acoustic::condition_encoder_geometry(geometry), 0);
      const auto in = acoustic::synthetic_normal(size_t(w.cfg.frame_width() * kFrames), 3);
      runtime::ArmInstruments ins;
      const auto arm = acoustic::make_condition_encoder_arm(w, q, request, ins);
      const int64_t L = w.cfg.latent_length(kFrames);
      for (auto _ : state) benchmark::DoNotOptimize(arm->encode(in.data(), kFrames, L).data());
      state.SetLabel(geometry + ", " + std::to_string(kFrames) + " frames -> " + std::to_string(L) + " latents");
    });
  })->Unit(benchmark::kMillisecond)->UseRealTime();
}

// One whole window (encode + 30 guided steps) through the production loop on the device arms.
void register_window(const Queue& q, const std::string& dev, const std::string& geometry) {
  const std::string name = "acoustic_window/device/" + dev + "/" + geometry + "/" + std::to_string(kFrames);
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      const auto enc_w = acoustic::synthetic_condition_encoder_weights(acoustic::condition_encoder_geometry(geometry), 0);
      const auto dit_w = acoustic::synthetic_dit_weights(acoustic::dit_geometry(geometry), 0);
      const auto frames = acoustic::synthetic_normal(size_t(enc_w.cfg.frame_width() * kFrames), 3);
      runtime::ArmInstruments enc_ins, dit_ins;
      const auto enc = acoustic::make_condition_encoder_arm(enc_w, q, runtime::ArmRequest::Device, enc_ins);
      const auto dit = acoustic::make_dit_arm(dit_w, q, runtime::ArmRequest::Device, dit_ins);
      const auto noise = acoustic::NoiseSource::drawn(0);
      const acoustic::AcousticOptions o;
      acoustic::run_acoustic(*enc, *dit, frames.data(), kFrames, enc_w.cfg.frame_width(), noise, o);  // warm-up
      for (auto _ : state)
        benchmark::DoNotOptimize(
            acoustic::run_acoustic(*enc, *dit, frames.data(), kFrames, enc_w.cfg.frame_width(), noise, o).channels);
      state.SetLabel(geometry + ", " + std::to_string(o.steps) + " steps, both branches, encode included");
    });
  })->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
}

}  // namespace
}  // namespace music3::bench

int main(int argc, char** argv) {
  using namespace music3;
  using namespace music3::bench;
  return run_bench_main(argc, argv, "bench-acoustic", [](const Ceilings& c) {
    if (c.has_cuda) {
      const acoustic::DitConfig full = acoustic::dit_geometry("full");
      const int64_t M = 2 * (kLatents + 1);
      double ceiling = 0, floor_s = 0;
      for (const GemmShape& g : block_gemms(full)) {
        const double tflops = gemm_ceiling_tflops(c.gpu, M, g.n, g.k);
        if (std::string(g.name) == "ff_in") ceiling = tflops;  // the largest GEMM: the ceiling
        else benchmark::AddCustomContext(std::string("gemm_tflops_") + g.name, fixed(tflops, 1));
        floor_s += full.layers * 2.0 * double(M) * double(g.n) * double(g.k) / (tflops * 1e12);
      }
      benchmark::AddCustomContext("gemm_ceiling_tflops", fixed(ceiling, 1));
      benchmark::AddCustomContext("dit_gemm_floor_ms", fixed(floor_s * 1e3, 2));
      register_attention(c.gpu, "full");
      register_dit(c.gpu, "cuda", runtime::ArmRequest::Device, "full", ceiling);
      for (const auto& [variant, provider] : attention_providers()) {
        register_attention(c.gpu, "full", variant, provider);
        register_dit(c.gpu, "cuda", runtime::ArmRequest::Device, "full", ceiling, variant, provider);
      }
      register_dit_loop(c.gpu, "full", ceiling);
      register_encoder(c.gpu, "cuda", runtime::ArmRequest::Device, "full");
      register_window(c.gpu, "cuda", "full");
    }
    register_encoder(c.cpu, "cpu", runtime::ArmRequest::Host, "tiny");
    register_dit(c.cpu, "cpu", runtime::ArmRequest::Host, "tiny", 0);
    register_dit(c.cpu, "cpu", runtime::ArmRequest::Device, "tiny", 0);
  });
}
