// The A/B run's record: reports/bench/depth/<date>-<name>.{json,md,svg} (the samples also stream,
// as the run goes, to <date>-<name>.samples.jsonl: ab_run.h).
// Contract: the JSON (schema "music3-ab/1") holds everything the Markdown shows plus
// every raw sample, so the statistics can be recomputed from it; the Markdown links the
// SVG by file name (they are written side by side). write_ab_report() creates the
// directory and throws naming the path when a file cannot be written.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/ab/ab_run.h"
#include "bench/ab/gate_evidence.h"

namespace music3::bench {

struct ReportContext {
  std::string name, date, started_utc, finished_utc, command_line;
  std::string git_rev;               // the source the timed binaries were built from
  nlohmann::json revisions;          // two-build mode: what each arm's build is
  nlohmann::json gpu_start, gpu_end, cpu;
  std::vector<GateEvidence> gate_evidence;
};

struct ReportPaths {
  std::string json, md, svg;
};

nlohmann::json ab_report_json(const AbResult& r, const ReportContext& ctx);
std::string ab_report_markdown(const AbResult& r, const ReportContext& ctx, const std::string& svg_name);
ReportPaths write_ab_report(const AbResult& r, const ReportContext& ctx, const std::string& out_dir);

}  // namespace music3::bench
