// Gate records: every bounded statistic a gate checks, with its bound and margin,
// appended as one JSON line to $MUSIC3_GATE_RECORD_DIR/records.jsonl when that
// variable is set (reports/render_gate_report.py turns them into the gate report).
// Contract: a gate is named `<component>.<gate>` (lowercase letters, digits and '_' in
// each part; record() throws std::invalid_argument otherwise), so a statistic's id is
// `<component>.<gate>.<metric>`; each record carries the gate, its component, the
// device, the case and the metric. check_ulp() both asserts (GoogleTest EXPECT) and
// records, so the report shows exactly what was gated, never a restatement.
// Thread-safety: record() and check_ulp() are thread-safe.
#pragma once
#include <string>

#include "gates/lib/ulp_stats.h"

namespace music3::gates {

// Bounds on the robust statistics. Each is placed between the correct arm's worst
// over all seeds and the tightest defect it must catch (both written at the call site).
struct UlpBounds {
  double median;
  double mean;
  double p999;
  double max_conditioned;
};

enum class BoundKind { Upper, Lower, ReportOnly };
void record(const std::string& gate, const std::string& case_name, const std::string& metric, double value,
            double bound, BoundKind kind = BoundKind::Upper);
void check_ulp(const std::string& gate, const std::string& case_name, const std::string& metric, const UlpStats& s,
               const UlpBounds& b);

}  // namespace music3::gates
