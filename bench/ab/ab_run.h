// One A/B run: one discarded repetition of each arm, then paired and interleaved
// repetitions (A then B, `reps` times), each the median ms/frame of `frames` timed
// frames after `warmup` untimed ones; then the statistics of bench/stats/ab_stats.h and
// the verdict.
// Contract: run_ab() refuses fewer than 9 repetitions (std::invalid_argument). The
// verdict is REFUSED unless at least one arm is a gated binary and every gated arm's
// binary sha256 has a passing gate record (gate_evidence.h). analyse_ab() is the pure
// part: the same samples always give the same numbers. With a `samples` stream, run_ab()
// writes one JSON line when it starts ({"schema": "music3-ab-samples/1", "a", "b",
// "reps", "frames", "warmup"}) and one per arm and repetition as it is measured
// ({"rep", "arm", "spec", "frame_ms", "median_ms"}), flushed each time, so a run that is
// cut short still leaves every sample it took. Thread-safety: one run per thread.
#pragma once
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/ab/arm.h"
#include "bench/ab/gate_evidence.h"
#include "bench/stats/ab_stats.h"

namespace music3::bench {

struct AbOptions {
  int reps = 15;
  int frames = 20;
  int warmup = 3;
  BootstrapOptions bootstrap;
  double alpha = 0.05;
};

struct ArmRun {
  std::string label, spec;
  nlohmann::json description;
  std::string gated_binary, binary_sha256;  // empty for a reference peer
  GateStatus gates;
  std::vector<double> rep_ms;                 // median ms/frame of each repetition
  std::vector<std::vector<double>> frame_ms;  // every timed frame, by repetition
  SplitNoise noise;
};

struct AbResult {
  AbOptions options;
  ArmRun a, b;
  std::vector<double> ratios;  // B/A, repetition by repetition
  double ratio = 1;            // their median
  Interval ratio_ci;
  MannWhitney mann_whitney;
  double noise_band = 0;  // the smaller of the two arms' A/A split bands
  bool gates_passed = false;
  std::string gates_detail;
  VerdictResult verdict;
};

AbResult analyse_ab(ArmRun a, ArmRun b, const AbOptions& options);
AbResult run_ab(Arm& a, const std::string& spec_a, Arm& b, const std::string& spec_b, const AbOptions& options,
                const std::vector<GateEvidence>& gates, std::ostream& progress, std::ostream* samples = nullptr);

}  // namespace music3::bench
