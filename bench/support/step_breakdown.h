// Where one step of a model arm goes, for the *-step-breakdown tools (dit-step-breakdown, lm-step-breakdown): the
// arm made twice on backends that wrap the queue's own (observed_backend.h),
//  1. as production runs it (graphs on): the host clock around each step and the device time of its graph replays;
//  2. with graphs off, so the same body is issued op by op, every op bracketed by events (op_timeline.h) and summed
//     per label of `labeler`;
//  3. (marginal, optional) per label, part 1 again with that label's calls issued twice (doubled_ops.h): the step's
//     growth is that label's marginal cost in production (per step, and per call), what fusing it away saves at
//     most, since the eager per-op times of part 2 include each op's launch and drain; then part 1 once more, so the
//     drift between the two plain runs bounds the noise;
//  4. (kernel trace, optional, CUDA) the production step once more under CUPTI (kernel_trace.h): every kernel's start
//     and end as the GPU ran it, so what PDL overlapped and the idle time between kernels show (kernel_timeline.h);
// and the table or JSON that prints it: per label the calls per step, ms per step, share of the ops' sum, us per
// call, the provider, TFLOP/s (rows with FLOPs) or TB/s and its fraction of the copy ceiling measured here, and the
// marginal cost when measured; then the ops' sum, the eager span (gaps between ops included), the graph replays'
// device time and the host-clock step. The marginal costs compare the replays' device time, or the host clock on a
// backend without graphs.
// Contract: make_step(queue) builds an arm on that queue and returns the callable that runs one step on it; two
// untimed steps precede the timed ones of each part. A backend without graphs leaves graph_s at 0.
// Thread-safety: one thread (the op observer is process-wide while a step is open).
#pragma once
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/support/kernel_timeline.h"
#include "bench/support/op_timeline.h"
#include "engine/cli/args.h"
#include "engine/core/queue.h"

namespace music3::bench {

struct StepBreakdown {
  std::vector<OpRow> rows;
  int steps = 0;
  double ops_s = 0, span_s = 0, eager_call_s = 0, graph_s = 0, graph_call_s = 0, copy_Bps = 0;  // per step
  std::vector<double> marginal_s;  // per row (empty: not measured): the production step's growth with it doubled
  double again_s = 0;              // the plain production step measured after the doubled ones
  std::optional<KernelTimeline> kernels;  // part 4, when asked for
  std::string kernel_trace_error;          // part 4 asked for and failed: why (the other parts stand)
};

using StepOn = std::function<std::function<void()>(const Queue&)>;

// A progress line on a terminal (stderr), "tool: what", overwritten by the next; nothing when stderr is not one.
void tool_progress(const std::string& tool, const std::string& what);

// `tool` names the progress lines; `marginal` adds part 3 (one more arm per row), `kernel_trace` part 4.
StepBreakdown measure_step(const Queue& q, const StepOn& make_step, const OpLabeler& labeler, int steps,
                           const std::string& tool, bool marginal = false, bool kernel_trace = false);
void print_step_table(std::ostream& out, const StepBreakdown& m, const std::string& tool, const std::string& what);
nlohmann::json step_json(const StepBreakdown& m, const std::string& what);

// The upper middle of v (its median for an odd count); 0 for none.
double median_or_zero(std::vector<double> v);

// The --device (cuda or cpu) and --geometry (full or small) of a breakdown tool, checked: a value outside those is a
// cli::UsageError naming the flag; nullopt, with the reason on stderr, when --device cuda finds no CUDA device.
struct ToolTarget {
  std::string device, geometry;
};
std::optional<ToolTarget> tool_target(const cli::Args& a, const std::string& tool);

// The tools' --kernel-trace: whether it was given, checked: a cli::UsageError naming the flag unless the device is
// cuda and this build has CUPTI (kernel_trace_built()).
bool kernel_trace_flag(const cli::Args& a, const std::string& device);

// The tools' --enable-providers / --disable-providers: comma-separated provider names switched on (opt-in ones)
// or taken out of selection for the whole run.
void apply_provider_flags(const std::string& enable, const std::string& disable);

// main() of a *-step-breakdown tool: runs `run` on the arguments and maps what escapes it to the exit-code table
// (engine/core/exit_code.h): cli::UsageError (printed with `help`) and std::invalid_argument to usage, anything
// else to an internal error, each message prefixed by `tool`.
int step_tool_main(int argc, char** argv, const std::string& tool, const char* help,
                   const std::function<int(const std::vector<std::string>&)>& run);

}  // namespace music3::bench
