#include "gates/lib/gate_record.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "gates/lib/gate_env.h"

namespace music3::gates {

namespace {
bool id_part(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// The component of a `<component>.<gate>` name; throws for any other shape.
std::string component_of(const std::string& gate) {
  const size_t dot = gate.find('.');
  if (dot == std::string::npos || !id_part(gate.substr(0, dot)) || !id_part(gate.substr(dot + 1)))
    throw std::invalid_argument("gate record: gate name '" + gate + "' is not <component>.<gate>");
  return gate.substr(0, dot);
}
}  // namespace

void record(const std::string& gate, const std::string& case_name, const std::string& metric, double value,
            double bound, BoundKind kind) {
  const std::string component = component_of(gate);
  const char* dir = std::getenv("MUSIC3_GATE_RECORD_DIR");
  if (!dir || !*dir) return;
  static std::mutex mu;
  std::lock_guard lock(mu);
  std::ofstream f(std::string(dir) + "/records.jsonl", std::ios::app);
  nlohmann::json j = {{"gate", gate}, {"component", component}, {"device", gate_device_name()}, {"case", case_name}, {"metric", metric},
                      {"value", value}};
  if (kind == BoundKind::ReportOnly) {
    j["kind"] = "report";
  } else {
    const bool upper = kind == BoundKind::Upper;
    j["bound"] = bound;
    j["kind"] = upper ? "<=" : ">=";
    j["margin"] = upper ? bound - value : value - bound;
    j["pass"] = upper ? value <= bound : value >= bound;
  }
  f << j.dump() << "\n";
}

void check_ulp(const std::string& gate, const std::string& case_name, const std::string& metric, const UlpStats& s,
               const UlpBounds& b) {
  const std::string what = gate + " " + case_name + " " + metric + ": " + s.summary();
  std::printf("[stats] %s\n", what.c_str());  // every case's numbers land in the log, green or red
  EXPECT_EQ(s.nonzero_refs + s.zero_refs + s.nonfinite, s.compared) << what;
  EXPECT_EQ(s.nonfinite, 0u) << what;
  EXPECT_LE(s.median, b.median) << what;
  EXPECT_LE(s.mean, b.mean) << what;
  EXPECT_LE(s.p999, b.p999) << what;
  EXPECT_LE(s.max_conditioned, b.max_conditioned) << what;
  EXPECT_LE(s.zero_max, b.zero_max) << what;
  record(gate, case_name, metric + ".median", s.median, b.median);
  record(gate, case_name, metric + ".mean", s.mean, b.mean);
  record(gate, case_name, metric + ".p99.9", s.p999, b.p999);
  record(gate, case_name, metric + ".max_cond", s.max_conditioned, b.max_conditioned);
  record(gate, case_name, metric + ".worst", s.worst, 0, BoundKind::ReportOnly);
  record(gate, case_name, metric + ".nonfinite", static_cast<double>(s.nonfinite), 0);
  record(gate, case_name, metric + ".zero_max", s.zero_max, b.zero_max);
  record(gate, case_name, metric + ".zero_bucket", static_cast<double>(s.zero_refs), 0, BoundKind::ReportOnly);
}

void check_ulp_rows(const std::string& gate, const std::string& case_name, const std::string& metric,
                    const std::vector<UlpStats>& rows, const std::vector<std::string>& row_names, const UlpBounds& b) {
  ASSERT_EQ(rows.size(), row_names.size()) << gate << " " << case_name << " " << metric << ": row names";
  for (size_t i = 0; i < rows.size(); ++i) check_ulp(gate, case_name, metric + "." + row_names[i], rows[i], b);
}

void check_ulp_cfg(const std::string& gate, const std::string& case_name, const std::string& metric,
                   const std::vector<bf16>& candidate, const std::vector<bf16>& reference, size_t width,
                   const UlpBounds& b) {
  ASSERT_EQ(candidate.size(), reference.size()) << gate << " " << case_name << " " << metric;
  check_ulp_rows(gate, case_name, metric,
                 ulp_stats_rows(candidate.data(), reference.data(), reference.size(), 2, width), {"cond", "uncond"},
                 b);
}

}  // namespace music3::gates
