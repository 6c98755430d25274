// Where a step's device time goes kernel by kernel, from the kernels' own start and end times (kernel_trace.h records
// them as the GPU ran them: overlapping under PDL or across streams), for the breakdown tools' --kernel-trace.
// Per step the kernels are taken in start order and each is charged
//   - its idle-before: how long the GPU ran no kernel of the step before it started (start - the latest end so far,
//     when positive; the first kernel of a step has none),
//   - its exposed time: how far it moved that latest end (end - max(start, latest end so far), when positive): a
//     kernel that ran entirely under an earlier one is exposed 0 however long it took,
// so that the step's span (first start to last end) is the sum of every kernel's exposed and idle-before time, and
// the idle time is what no kernel covered: launch gaps and dependency waits that PDL did not hide.
// Contract: summarize_kernels() takes the records of `steps` steps that each ran the same kernels in the same
// order (a captured graph's replays); it refuses (std::invalid_argument, naming both counts) records whose count is
// not a multiple of `steps`, and a record that ends before it starts. Pure functions: thread-safe.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace music3::bench {

struct KernelRecord {
  std::string name;  // demangled
  uint64_t start_ns = 0, end_ns = 0;
};

// One kernel name's share of a step, per step (means over the steps).
struct KernelRow {
  std::string name;
  int calls = 0;  // per step
  double busy_us = 0, exposed_us = 0, idle_before_us = 0;
};

struct KernelTimeline {
  int steps = 0, kernels_per_step = 0;
  double span_us = 0, busy_us = 0, exposed_us = 0, idle_us = 0;  // per step; span = exposed + idle
  std::vector<KernelRow> rows;  // by exposed time, largest first
};

KernelTimeline summarize_kernels(std::vector<KernelRecord> records, int steps);

// The records of `count` whole periods of a loop whose every iteration runs one kernel whose short name contains
// `anchor` (the AR loop's lm_sample_kernel): in start order, from the (skip + 1)-th anchor up to, not including, the
// (skip + count + 1)-th. Refuses (std::invalid_argument, naming the anchor and the counts) fewer anchors than that.
std::vector<KernelRecord> whole_periods(std::vector<KernelRecord> records, const std::string& anchor, int skip,
                                        int count);
void print_kernel_timeline(std::ostream& out, const KernelTimeline& t);
nlohmann::json kernel_timeline_json(const KernelTimeline& t);

// A demangled kernel name without its parameter list and the project's namespaces, for a table row.
std::string short_kernel_name(const std::string& demangled);

}  // namespace music3::bench
