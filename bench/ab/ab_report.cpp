#include "bench/ab/ab_report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "bench/ab/svg_plot.h"

namespace music3::bench {
namespace {

constexpr const char* kRule =
    "REFUSED unless the gates passed on every timed binary of ours; else SAME when the bootstrap CI of the median "
    "B/A ratio holds 1, or |ratio - 1| is within the noise band (the smaller of the two arms' A/A split bands), or "
    "the two-sided Mann-Whitney p >= alpha; else FASTER (B/A < 1: B is faster) or SLOWER";

std::string f(double v, int digits = 4) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string g(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

nlohmann::json arm_json(const ArmRun& a) {
  const auto [lo, hi] = std::minmax_element(a.rep_ms.begin(), a.rep_ms.end());
  return {{"spec", a.spec},
          {"description", a.description},
          {"median_ms_per_frame", median(a.rep_ms)},
          {"rep_min_ms", *lo},
          {"rep_max_ms", *hi},
          {"rep_ms", a.rep_ms},
          {"frame_ms", a.frame_ms},
          {"aa_split", {{"median_ratio", a.noise.median_ratio}, {"ci", {a.noise.ci.lo, a.noise.ci.hi}}, {"band", a.noise.band}}},
          {"gated_binary", a.gated_binary},
          {"binary_sha256", a.binary_sha256},
          {"gates", {{"passed", a.gates.passed}, {"detail", a.gates.detail}}}};
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!(out << text)) throw std::runtime_error("A/B report: cannot write " + path);
}

}  // namespace

nlohmann::json ab_report_json(const AbResult& r, const ReportContext& c) {
  nlohmann::json gates = nlohmann::json::array();
  for (const auto& rec : c.gate_evidence) {
    nlohmann::json j = to_json(rec);
    j["source"] = rec.source;
    gates.push_back(j);
  }
  return {{"schema", "music3-ab/1"},
          {"name", c.name},
          {"date", c.date},
          {"started", c.started_utc},
          {"finished", c.finished_utc},
          {"command", c.command_line},
          {"verdict", verdict_name(r.verdict.verdict)},
          {"verdict_reason", r.verdict.reason},
          {"ratio_b_over_a", r.ratio},
          {"ratio_ci", {r.ratio_ci.lo, r.ratio_ci.hi}},
          {"ratios", r.ratios},
          {"mann_whitney", {{"u_a", r.mann_whitney.u_a}, {"u_b", r.mann_whitney.u_b},
                            {"p_two_sided", r.mann_whitney.p_two_sided}, {"exact", r.mann_whitney.exact}}},
          {"noise_band", r.noise_band},
          {"gates_passed", r.gates_passed},
          {"gates_detail", r.gates_detail},
          {"method", {{"order", "one discarded repetition of each arm, then paired and interleaved: A B A B ..."},
                      {"reps", r.options.reps},
                      {"frames_per_rep", r.options.frames},
                      {"warmup_frames_per_rep", r.options.warmup},
                      {"rep_statistic", "median ms/frame of the rep's timed frames"},
                      {"bootstrap", {{"resamples", r.options.bootstrap.resamples},
                                     {"seed", r.options.bootstrap.seed},
                                     {"level", r.options.bootstrap.level},
                                     {"rng", "splitmix64, index = (draw * n) >> 64"}}},
                      {"alpha", r.options.alpha},
                      {"rule", kRule}}},
          {"arms", {{"A", arm_json(r.a)}, {"B", arm_json(r.b)}}},
          {"machine", {{"gpu_start", c.gpu_start}, {"gpu_end", c.gpu_end}, {"cpu", c.cpu}}},
          {"git_rev", c.git_rev},
          {"revisions", c.revisions},
          {"gate_records", gates}};
}

std::string ab_report_markdown(const AbResult& r, const ReportContext& c, const std::string& svg_name) {
  std::ostringstream m;
  m << "# A/B: " << c.name << " (" << c.date << ")\n\n";
  m << "**Verdict (B against A): " << verdict_name(r.verdict.verdict) << "** — B/A = " << f(r.ratio) << " (95% CI " << f(r.ratio_ci.lo)
    << "–" << f(r.ratio_ci.hi) << ")";
  if (r.ratio > 0) m << ", A/B = " << f(1 / r.ratio, 3) << "×";
  m << ".\n\n" << r.verdict.reason << ".\n\n";
  m << "| arm | spec | median ms/frame | rep min–max | A/A split band | binary sha256 | gates |\n";
  m << "|---|---|---|---|---|---|---|\n";
  for (const ArmRun* a : {&r.a, &r.b}) {
    const auto [lo, hi] = std::minmax_element(a->rep_ms.begin(), a->rep_ms.end());
    m << "| " << a->label << " | `" << a->spec << "` | " << f(median(a->rep_ms)) << " | " << f(*lo) << "–" << f(*hi)
      << " | ±" << f(a->noise.band * 100, 2) << "% | " << (a->binary_sha256.empty() ? "—" : "`" + a->binary_sha256 + "`")
      << " | " << (a->gates.passed ? "pass" : "**no**") << ": " << a->gates.detail << " |\n";
  }
  m << "\nMann-Whitney U: U_A = " << g(r.mann_whitney.u_a) << ", U_B = " << g(r.mann_whitney.u_b)
    << ", two-sided p = " << g(r.mann_whitney.p_two_sided) << (r.mann_whitney.exact ? " (exact)" : " (normal approx.)")
    << ". Noise band (smaller A/A split band): ±" << f(r.noise_band * 100, 2) << "%.\n\n";
  m << "![per-frame samples](" << svg_name << ")\n\n";
  m << "## Recipe\n\n";
  m << "- command: `" << c.command_line << "`\n";
  m << "- started " << c.started_utc << ", finished " << c.finished_utc << "\n";
  m << "- method: one discarded repetition of each arm, then paired and interleaved (A B A B …), " << r.options.reps << " repetitions, each the median of "
    << r.options.frames << " timed frames after " << r.options.warmup << " warm-up frames; bootstrap "
    << r.options.bootstrap.resamples << " resamples (splitmix64 seed " << r.options.bootstrap.seed << ", level "
    << r.options.bootstrap.level << "); alpha " << r.options.alpha << "\n";
  m << "- rule: " << kRule << "\n";
  m << "- git: `" << c.git_rev << "`";
  if (!c.revisions.is_null()) m << "; builds: `" << c.revisions.dump() << "`";
  m << "\n- GPU at start: `" << c.gpu_start.dump() << "`\n- GPU at end: `" << c.gpu_end.dump() << "`\n";
  m << "- CPU: `" << c.cpu.dump() << "`\n";
  for (const auto& rec : c.gate_evidence)
    m << "- gate record (" << rec.source << "): `" << rec.command << "` exited " << rec.exit_code << ", "
      << rec.tests_total << " tests, " << rec.tests_failed << " failed, " << rec.tests_skipped << " skipped → "
      << (rec.passed ? "passed" : "FAILED") << " (" << rec.when << ", rev " << rec.git_rev << ")\n";
  for (const ArmRun* a : {&r.a, &r.b}) m << "- arm " << a->label << ": `" << a->description.dump() << "`\n";
  m << "\n## Raw samples (median ms/frame per repetition)\n\n| rep | A | B | B/A |\n|---|---|---|---|\n";
  for (size_t i = 0; i < r.ratios.size(); ++i)
    m << "| " << i + 1 << " | " << f(r.a.rep_ms[i]) << " | " << f(r.b.rep_ms[i]) << " | " << f(r.ratios[i]) << " |\n";
  m << "\nEvery timed frame is in the JSON beside this file.\n";
  return m.str();
}

ReportPaths write_ab_report(const AbResult& r, const ReportContext& c, const std::string& out_dir) {
  std::filesystem::create_directories(out_dir);
  const std::string stem = out_dir + "/" + c.date + "-" + c.name;
  ReportPaths p{stem + ".json", stem + ".md", stem + ".svg"};
  write_text(p.json, ab_report_json(r, c).dump(2) + "\n");
  const std::string svg_name = std::filesystem::path(p.svg).filename().string();
  write_text(p.md, ab_report_markdown(r, c, svg_name));
  write_text(p.svg, samples_svg(c.name + ": ms per frame, A = " + r.a.spec + ", B = " + r.b.spec,
                                {{"A " + r.a.spec, "#1f77b4", r.a.frame_ms, r.a.rep_ms},
                                 {"B " + r.b.spec, "#d62728", r.b.frame_ms, r.b.rep_ms}}));
  return p;
}

}  // namespace music3::bench
