// bench-vocoder: one window (689 latents, the release's 200-frame window, unless noted) through the vocoder's
// device arm on CUDA at the full geometry (the target: <= 4 ms per window on the H200), and on the CPU
// through the host arm and the device arm on the CPU providers at the tiny geometry with 64 latents. Weights are
// seeded synthetic ones (vocoder_synthetic.h). Each iteration is one decode(): latents uploaded, waveform on the
// host. Counters: ms per window, samples per second, and the arm's GEMM FLOPs per second (2 x MACs of every
// conv and transposed conv: conv_flops_per_s, and the same in TFLOP/s as conv_tflops); the label gives that FLOP
// count per window (the floor of the work: at the full geometry about 2.2 TFLOP, so 4 ms needs ~550 TFLOP/s).
// On CUDA the full window is timed once per conv1d weight layout an enabled provider takes, in this one process:
// `.../conv:tap_major` (the cuBLAS GEMM per tap), `.../conv:out_in_tap` (cuDNN, when the build found it) and
// `.../conv:out_tap_in` (CUTLASS's implicit GEMM, when the build has its headers; cuBLAS runs the shapes it
// declines); the label names the provider that ran. The plain name is the arm as selection builds it. Each layout runs
// with the activations its arm defaults to (channels-last where the provider takes it) and, for the A/B, with
// channels-first too (`.../conv:<layout>/channels_first`) where the default is channels-last.
// `vocoder_stage_times/cuda/full/latents:689` (and `.../cpu/tiny/latents:64`; named off the `cuda/full/689` rows that
// scripts/gpu-vocoder-perf joins into its ratios): the default arm with a synchronization after every stage, 10
// windows: the mean wall time per stage (counters ms.<stage>; the first stage includes the latents' upload) and, on
// stderr, a table of each stage's time beside its GEMM FLOPs and bytes (vocoder_stage_costs.h), the rates they imply,
// and the bytes' floor at the measured device copy ceiling.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "bench/support/bench_main.h"
#include "bench/vocoder/vocoder_stage_costs.h"
#include "engine/models/music3/vocoder/vocoder_device_arm.h"
#include "engine/models/music3/vocoder/vocoder_host_arm.h"
#include "engine/models/music3/vocoder/vocoder_synthetic.h"
#include "engine/ops/registry.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::bench {
namespace {

double conv_flops(const vocoder::VocoderConfig& c, int64_t latents) {
  double macs = 0, t = double(latents);
  macs += double(c.stream_channels()) * c.input_dim * t;
  macs += double(c.input_dim) * c.hidden_dim * 7 * t;
  for (int i = 0; i < c.blocks(); ++i) {
    const double in = c.stage_width(i), out = c.stage_width(i + 1), s = c.ratios[size_t(i)];
    macs += in * out * 2 * s * t;  // transposed conv: every input sample meets all 2s taps
    t *= s;
    macs += 3 * (out * out * 7 + out * out) * t;
  }
  macs += double(c.stage_width(c.blocks())) * 7 * t;
  return 2 * 2 * macs;  // two streams, two FLOPs per MAC
}

// The conv1d provider that takes `layout` with `act` activations on q's device, or "" when none does.
std::string conv_provider(const Queue& q, ops::ConvWeightLayout layout,
                          ops::ActLayout act = ops::ActLayout::ChannelsFirst) {
  ops::Conv1dArgs probe{};
  probe.layout = layout, probe.act = act;
  const ops::Provider* p = ops::registry().find(ops::OpId::Conv1d, q.device, &probe);
  return p ? p->name : "";
}

void register_window(const std::string& name, const Queue& q, const std::string& geometry, int64_t latents, bool host,
                     std::optional<ops::ConvWeightLayout> layout = std::nullopt,
                     std::optional<ops::ActLayout> act = std::nullopt) {
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    const auto w = vocoder::synthetic_vocoder_weights(vocoder::vocoder_geometry(geometry), 0);
    const auto lat = vocoder::synthetic_latents(w.cfg, latents, 1);
    std::unique_ptr<vocoder::VocoderArm> arm;
    std::string conv;
    if (host) {
      arm = std::make_unique<vocoder::VocoderHostArm>(w, q.threads);
    } else {
      auto device = act      ? std::make_unique<vocoder::VocoderDeviceArm>(w, q, *layout, *act)
                    : layout ? std::make_unique<vocoder::VocoderDeviceArm>(w, q, *layout)
                             : std::make_unique<vocoder::VocoderDeviceArm>(w, q);
      conv = ", conv1d by " + conv_provider(q, device->conv_layout(), device->act_layout()) + ", " +
             ops::act_layout_name(device->act_layout());
      arm = std::move(device);
    }
    arm->decode(lat.data(), latents);  // warm-up: pool blocks, cuBLAS handle and heuristics
    for (auto _ : state) benchmark::DoNotOptimize(arm->decode(lat.data(), latents).samples);
    const double per_window = state.iterations() ? 1.0 : 0.0;
    state.counters["windows_per_s"] = benchmark::Counter(per_window, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["samples_per_s"] =
        benchmark::Counter(double(w.cfg.output_length(latents)), benchmark::Counter::kIsIterationInvariantRate);
    const double flops = conv_flops(w.cfg, latents);
    state.counters["conv_flops_per_s"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["conv_tflops"] = benchmark::Counter(flops * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
    char work[64];
    std::snprintf(work, sizeof(work), ", %.1f GFLOP per window", flops * 1e-9);
    state.SetLabel(geometry + ", " + std::to_string(latents) + " latents" + conv + work);
  })->Unit(benchmark::kMillisecond)->UseRealTime();
}

void register_stage_times(const std::string& name, const Queue& q, const std::string& geometry, int64_t latents,
                          double copy_Bps) {
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    using Clock = std::chrono::steady_clock;
    const auto w = vocoder::synthetic_vocoder_weights(vocoder::vocoder_geometry(geometry), 0);
    const auto lat = vocoder::synthetic_latents(w.cfg, latents, 1);
    const std::vector<StageCost> costs = stage_costs(w.cfg, latents);
    vocoder::VocoderDeviceArm arm(w, q);
    arm.decode(lat.data(), latents);  // warm-up, untimed
    std::vector<double> seconds(costs.size(), 0.0);
    size_t next = 0;
    Clock::time_point last;
    arm.set_stage_observer([&](const vocoder::Stage&) {
      q.synchronize();
      const Clock::time_point now = Clock::now();
      seconds.at(next++) += std::chrono::duration<double>(now - last).count();
      last = now;
    });
    for (auto _ : state) {
      next = 0;
      last = Clock::now();
      benchmark::DoNotOptimize(arm.decode(lat.data(), latents).samples);
    }
    const double n = double(state.iterations());
    std::fprintf(stderr, "%-26s %10s %9s %9s %9s %9s %9s\n", name.c_str(), "C_in>C_out", "ms", "GFLOP", "MB",
                 "TFLOP/s", "TB/s");
    double floor_s = 0;
    for (size_t i = 0; i < costs.size(); ++i) {
      const StageCost& c = costs[i];
      const double s = seconds[i] / n;
      state.counters["ms." + c.name] = benchmark::Counter(s * 1e3);
      floor_s += c.bytes / copy_Bps;
      char width[32];
      std::snprintf(width, sizeof(width), "%lld>%lld", static_cast<long long>(c.channels_in),
                    static_cast<long long>(c.channels_out));
      std::fprintf(stderr, "%-26s %10s %9.3f %9.2f %9.1f %9.2f %9.3f\n", c.name.c_str(), width, s * 1e3, c.flops * 1e-9,
                   c.bytes * 1e-6, c.flops / s * 1e-12, c.bytes / s * 1e-12);
    }
    std::fprintf(stderr, "bytes at the copy ceiling (%.2f TB/s): %.2f ms per window\n", copy_Bps * 1e-12,
                 floor_s * 1e3);
    state.SetLabel(geometry + ", " + std::to_string(latents) + " latents, " + ops::act_layout_name(arm.act_layout()) +
                   ", synchronized after every stage");
  })->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
}

}  // namespace
}  // namespace music3::bench

int main(int argc, char** argv) {
  using namespace music3::bench;
  return run_bench_main(argc, argv, "bench-vocoder", [](const Ceilings& c) {
    if (c.has_cuda) {
      register_window("vocoder_window/device/cuda/full/689", c.gpu, "full", 689, false);
      using music3::ops::ActLayout;
      for (const auto layout : music3::ops::kConvWeightLayouts) {
        if (conv_provider(c.gpu, layout).empty() && conv_provider(c.gpu, layout, ActLayout::ChannelsLast).empty())
          continue;
        const std::string name =
            std::string("vocoder_window/device/cuda/full/689/conv:") + music3::ops::conv_weight_layout_name(layout);
        register_window(name, c.gpu, "full", 689, false, layout);
        if (!conv_provider(c.gpu, layout, ActLayout::ChannelsLast).empty() && !conv_provider(c.gpu, layout).empty())
          register_window(name + "/channels_first", c.gpu, "full", 689, false, layout, ActLayout::ChannelsFirst);
      }
      register_stage_times("vocoder_stage_times/cuda/full/latents:689", c.gpu, "full", 689, c.gpu_Bps);
      register_window("vocoder_window/device/cuda/mid/689", c.gpu, "mid", 689, false);
    }
    register_window("vocoder_window/host/cpu/tiny/64", c.cpu, "tiny", 64, true);
    register_window("vocoder_window/device/cpu/tiny/64", c.cpu, "tiny", 64, false);
    register_stage_times("vocoder_stage_times/cpu/tiny/latents:64", c.cpu, "tiny", 64, c.cpu_Bps);
  });
}
