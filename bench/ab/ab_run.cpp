#include "bench/ab/ab_run.h"

#include <cstdio>
#include <ostream>
#include <stdexcept>

#include "engine/io/sha256.h"

namespace music3::bench {
namespace {

ArmRun prepare(Arm& arm, const std::string& label, const std::string& spec, const std::vector<GateEvidence>& gates) {
  ArmRun r;
  r.label = label;
  r.spec = spec;
  r.gated_binary = arm.gated_binary();
  if (!r.gated_binary.empty()) {
    r.binary_sha256 = io::sha256_file(r.gated_binary);
    r.gates = gate_status_for(gates, r.binary_sha256);
  } else {
    r.gates = {true, "a reference peer: no gates of ours apply"};
  }
  return r;
}

}  // namespace

AbResult analyse_ab(ArmRun a, ArmRun b, const AbOptions& o) {
  AbResult r;
  r.options = o;
  r.ratios = paired_ratios(a.rep_ms, b.rep_ms);
  r.ratio = median(r.ratios);
  r.ratio_ci = bootstrap_median_ci(r.ratios, o.bootstrap);
  r.mann_whitney = mann_whitney_u(a.rep_ms, b.rep_ms);
  a.noise = split_noise(a.rep_ms, o.bootstrap);
  b.noise = split_noise(b.rep_ms, o.bootstrap);
  r.noise_band = std::min(a.noise.band, b.noise.band);
  const bool any_gated = !a.gated_binary.empty() || !b.gated_binary.empty();
  r.gates_passed = any_gated && a.gates.passed && b.gates.passed;
  r.gates_detail = any_gated ? "A: " + a.gates.detail + "; B: " + b.gates.detail
                             : "neither arm is a binary of ours: nothing was gated";
  r.verdict = decide({r.ratio, r.ratio_ci, r.noise_band, r.mann_whitney.p_two_sided, r.gates_passed, o.alpha});
  if (!r.gates_passed) r.verdict.reason += ": " + r.gates_detail;
  r.a = std::move(a);
  r.b = std::move(b);
  return r;
}

AbResult run_ab(Arm& a, const std::string& spec_a, Arm& b, const std::string& spec_b, const AbOptions& o,
                const std::vector<GateEvidence>& gates, std::ostream& progress, std::ostream* samples) {
  if (o.reps < 9) throw std::invalid_argument("A/B run: " + std::to_string(o.reps) + " repetitions; at least 9 are needed");
  if (o.frames < 1 || o.warmup < 0) throw std::invalid_argument("A/B run: frames must be >= 1 and warmup >= 0");
  ArmRun ra = prepare(a, "A", spec_a, gates), rb = prepare(b, "B", spec_b, gates);
  if (samples)
    *samples << nlohmann::json{{"schema", "music3-ab-samples/1"}, {"a", spec_a},      {"b", spec_b},
                               {"reps", o.reps},                 {"frames", o.frames}, {"warmup", o.warmup}}
                    .dump()
             << "\n"
             << std::flush;
  a.run_repetition(o.warmup, o.frames);  // one discarded repetition each: one-time costs stay out
  b.run_repetition(o.warmup, o.frames);
  for (int rep = 0; rep < o.reps; ++rep) {
    for (auto [arm, run] : {std::pair<Arm*, ArmRun*>{&a, &ra}, {&b, &rb}}) {
      run->frame_ms.push_back(arm->run_repetition(o.warmup, o.frames));
      run->rep_ms.push_back(median(run->frame_ms.back()));
      if (samples)
        *samples << nlohmann::json{{"rep", rep},
                                   {"arm", run == &ra ? "A" : "B"},
                                   {"spec", run == &ra ? spec_a : spec_b},
                                   {"frame_ms", run->frame_ms.back()},
                                   {"median_ms", run->rep_ms.back()}}
                        .dump()
                 << "\n"
                 << std::flush;
    }
    char line[160];
    std::snprintf(line, sizeof line, "rep %2d/%d: A %.4f ms/frame  B %.4f ms/frame  B/A %.4f\n", rep + 1, o.reps,
                  ra.rep_ms.back(), rb.rep_ms.back(), rb.rep_ms.back() / ra.rep_ms.back());
    progress << line << std::flush;
  }
  ra.description = a.describe();
  rb.description = b.describe();
  return analyse_ab(std::move(ra), std::move(rb), o);
}

}  // namespace music3::bench
