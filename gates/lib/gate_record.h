// Gate records: every bounded statistic a gate checks, with its bound and margin,
// appended as one JSON line to $MUSIC3_GATE_RECORD_DIR/records.jsonl when that
// variable is set (reports/render_gate_report.py turns them into the gate report).
// Contract: a gate is named `<component>.<gate>` (lowercase letters, digits and '_' in
// each part; record() throws std::invalid_argument otherwise), so a statistic's id is
// `<component>.<gate>.<metric>`; each record carries the gate, its component, the
// device, the case and the metric. check_ulp() both asserts (GoogleTest EXPECT) and
// records, so the report shows exactly what was gated, never a restatement.
// check_ulp_rows() gates each row of a tensor on its own (ulp_stats_rows), as
// `<metric>.<row name>`: a CFG tensor's conditional and unconditional rows are never
// pooled, so a defect confined to one row meets the bounds undiluted.
// Thread-safety: record() and check_ulp() are thread-safe.
#pragma once
#include <string>
#include <vector>

#include "gates/lib/ulp_stats.h"

namespace music3::gates {

// Bounds on the robust statistics. Each is placed between the correct arm's worst
// over all seeds and the tightest defect it must catch (both written at the call site).
struct UlpBounds {
  double median;
  double mean;
  double p999;
  double max_conditioned;
  double zero_max;  // the zero bucket (exact-zero references): max |c| in ULPs of the tensor's RMS
};

enum class BoundKind { Upper, Lower, ReportOnly };
void record(const std::string& gate, const std::string& case_name, const std::string& metric, double value,
            double bound, BoundKind kind = BoundKind::Upper);
void check_ulp(const std::string& gate, const std::string& case_name, const std::string& metric, const UlpStats& s,
               const UlpBounds& b);
void check_ulp_rows(const std::string& gate, const std::string& case_name, const std::string& metric,
                    const std::vector<UlpStats>& rows, const std::vector<std::string>& row_names, const UlpBounds& b);
// A CFG tensor [..., 2, width]: rows "cond" then "uncond" (the engine's order), gated each on its own.
void check_ulp_cfg(const std::string& gate, const std::string& case_name, const std::string& metric,
                   const std::vector<bf16>& candidate, const std::vector<bf16>& reference, size_t width,
                   const UlpBounds& b);

}  // namespace music3::gates
