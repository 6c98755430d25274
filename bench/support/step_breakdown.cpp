#include "bench/support/step_breakdown.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <unistd.h>

#include "bench/support/copy_ceiling.h"
#include "bench/support/doubled_ops.h"
#include "bench/support/kernel_trace.h"
#include "bench/support/observed_backend.h"
#include "engine/cli/args.h"
#include "engine/core/exit_code.h"
#include "engine/ops/registry.h"
#include "engine/runtime/device_pools.h"

namespace music3::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Host seconds of `steps` calls of step (after 2 untimed), `after` run after each timed call.
template <class After>
std::vector<double> timed_steps(const std::function<void()>& step, int steps, After after) {
  for (int i = 0; i < 2; ++i) step();
  std::vector<double> call;
  for (int i = 0; i < steps; ++i) {
    const auto t0 = Clock::now();
    step();
    call.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    after();
  }
  return call;
}

struct ProductionTime {
  double graph_s = 0, call_s = 0;  // medians per step: the graph replays' device time, the host clock
};

// The step as production runs it (graphs on), timed: the replays' device time where the backend has graphs.
ProductionTime production_time(const Queue& q, const StepOn& make_step, int steps) {
  ObservedBackend observed(*q.backend, /*graphs=*/true);
  Queue gq = q;
  gq.backend = &observed;
  const auto step = make_step(gq);
  std::vector<double> replay;
  ProductionTime t;
  t.call_s = median_or_zero(timed_steps(step, steps, [&] {
    if (observed.supports_graphs()) replay.push_back(observed.take_graph_seconds());
  }));
  t.graph_s = median_or_zero(replay);
  return t;
}

// The production statistic the marginal costs compare: the replays' device time, or the host clock without graphs.
double production_seconds(const ProductionTime& t) { return t.graph_s > 0 ? t.graph_s : t.call_s; }

struct RowView {
  double calls, ms, share, us_per_call, tflops, tbps, of_copy;
};

RowView view(const OpRow& row, const StepBreakdown& m) {
  const double n = std::max(1, m.steps), s = row.seconds / n;
  RowView v{};
  v.calls = double(row.calls) / n;
  v.ms = s * 1e3;
  v.share = m.ops_s > 0 ? s / m.ops_s : 0;
  v.us_per_call = row.calls ? row.seconds / double(row.calls) * 1e6 : 0;
  if (row.seconds > 0) {
    v.tflops = row.flops / row.seconds / 1e12;
    v.tbps = row.bytes / row.seconds / 1e12;
    v.of_copy = m.copy_Bps > 0 ? row.bytes / row.seconds / m.copy_Bps : 0;
  }
  return v;
}

std::string line(const char* fmt, double a, double b = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

}  // namespace

void tool_progress(const std::string& tool, const std::string& what) {
  if (isatty(2)) std::cerr << "\r\033[K" << tool << ": " << what << std::flush;
}

StepBreakdown measure_step(const Queue& q, const StepOn& make_step, const OpLabeler& labeler, int steps,
                           const std::string& tool, bool marginal, bool kernel_trace) {
  StepBreakdown m;
  runtime::shared_device_pool(q);  // the pool keeps the real backend, not the observed ones below
#ifdef MUSIC3_WITH_CUDA
  m.copy_Bps = q.device == DeviceType::CUDA ? cuda_copy_ceiling_Bps(q, size_t(1) << 30, 5)
                                            : cpu_copy_ceiling_Bps(size_t(256) << 20, 3);
#else
  m.copy_Bps = cpu_copy_ceiling_Bps(size_t(256) << 20, 3);  // a build without CUDA has only CPU queues
#endif
  tool_progress(tool, "graph replay, " + std::to_string(steps) + " steps");
  const ProductionTime plain = production_time(q, make_step, steps);  // 1. production: the captured graphs
  m.graph_s = plain.graph_s;
  m.graph_call_s = plain.call_s;
  tool_progress(tool, "the same body op by op, " + std::to_string(steps) + " + " + std::to_string(steps) + " steps");
  {  // 2. the same body op by op
    ObservedBackend eager(*q.backend, /*graphs=*/false);
    Queue eq = q;
    eq.backend = &eager;
    const auto step = make_step(eq);
    m.eager_call_s = median_or_zero(timed_steps(step, steps, [] {}));
    OpTimeline timeline(eq, labeler);
    for (int i = 0; i < steps; ++i) {
      timeline.begin_step();
      step();
      timeline.end_step();
    }
    m.rows = timeline.rows();
    m.steps = timeline.steps();
    m.span_s = timeline.span_seconds() / std::max(1, m.steps);
  }
  for (const OpRow& row : m.rows) m.ops_s += row.seconds / std::max(1, m.steps);
  if (marginal) {  // 3. per row, production again with that row's calls doubled; then the plain step once more
    const double base = production_seconds(plain);
    for (size_t i = 0; i < m.rows.size(); ++i) {
      tool_progress(tool, "marginal cost of '" + m.rows[i].label + "' (" + std::to_string(i + 1) + " of " +
                              std::to_string(m.rows.size()) + ")");
      DoubledOps doubled(labeler, m.rows[i].label);
      const ProductionTime t = production_time(q, make_step, steps);
      if (doubled.doubled() == 0) throw std::logic_error("marginal cost: no call of '" + m.rows[i].label + "' was doubled");
      m.marginal_s.push_back(production_seconds(t) - base);
    }
    m.again_s = production_seconds(production_time(q, make_step, steps));
  }
  if (kernel_trace) {  // 4. the production step's kernels as the GPU ran them: the arm built and warmed up under CUPTI
    tool_progress(tool, "kernel trace, " + std::to_string(steps) + " steps");
    std::function<void()> step;
    try {  // a trace that fails costs its own part only: the parts above are already measured
      const auto records = trace_kernels(
          [&] {
            step = make_step(q);
            for (int i = 0; i < 2; ++i) step();
          },
          [&] {
            for (int i = 0; i < steps; ++i) step();
          });
      m.kernels = summarize_kernels(records, steps);
    } catch (const std::exception& e) {
      m.kernel_trace_error = e.what();
    }
  }
  if (isatty(2)) std::cerr << "\r\033[K";
  return m;
}

void print_step_table(std::ostream& out, const StepBreakdown& m, const std::string& tool, const std::string& what) {
  const bool marginal = !m.marginal_s.empty();
  out << tool << ": " << what << "\n";
  out << line("copy ceiling %.3f TB/s (read + written)\n", m.copy_Bps / 1e12);
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-36s %6s %8s %7s %9s %8s %6s %7s %s %s\n", "op", "calls", "ms/step", "share",
                "us/call", "TFLOP/s", "TB/s", "of copy", marginal ? " marginal ms/step  us/call" : "", " provider");
  out << buf;
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const OpRow& row = m.rows[i];
    const RowView v = view(row, m);
    const std::string extra =
        marginal ? line(" %16.3f", m.marginal_s[i] * 1e3) + line(" %8.1f", v.calls > 0 ? m.marginal_s[i] / v.calls * 1e6 : 0)
                 : "";
    std::snprintf(buf, sizeof buf, "%-36s %6.0f %8.3f %6.1f%% %9.1f %8s %6.2f %6.0f%% %s  %s\n", row.label.c_str(),
                  v.calls, v.ms, 100 * v.share, v.us_per_call,
                  op_is_compute(row) ? line("%.1f", v.tflops).c_str() : "-", v.tbps, 100 * v.of_copy, extra.c_str(),
                  row.provider.c_str());
    out << buf;
  }
  out << line("sum of ops (eager, events around each op)       %8.3f ms\n", m.ops_s * 1e3);
  out << line("eager span (first op start to last op end)      %8.3f ms  (gaps between ops %.3f ms)\n",
              m.span_s * 1e3, (m.span_s - m.ops_s) * 1e3);
  out << line("eager step (host clock, median)                 %8.3f ms\n", m.eager_call_s * 1e3);
  if (m.graph_s <= 0) {
    out << line("graph step (host clock, median)                 %8.3f ms  (no graph: this backend has none)\n",
                m.graph_call_s * 1e3);
  } else {
    out << line("graph replays (device, events around launches)  %8.3f ms  (graph - sum of ops %+.3f ms)\n",
                m.graph_s * 1e3, (m.graph_s - m.ops_s) * 1e3);
    out << line("graph step (host clock, median)                 %8.3f ms  (step - replays %.3f ms: uploads, "
                "read-backs, host work)\n",
                m.graph_call_s * 1e3, (m.graph_call_s - m.graph_s) * 1e3);
  }
  if (marginal) {
    const double base = m.graph_s > 0 ? m.graph_s : m.graph_call_s;
    out << line("marginal: each row's calls doubled in the production step; the plain step %.3f ms before, ", base * 1e3)
        << line("%.3f ms after (drift %+.3f ms)\n", m.again_s * 1e3, (m.again_s - base) * 1e3);
  }
  if (m.kernels) print_kernel_timeline(out, *m.kernels);
  if (!m.kernel_trace_error.empty()) out << "kernel trace failed: " << m.kernel_trace_error << "\n";
}

nlohmann::json step_json(const StepBreakdown& m, const std::string& what) {
  nlohmann::json j;
  j["what"] = what;
  j["copy_ceiling_TBps"] = m.copy_Bps / 1e12;
  j["steps"] = m.steps;
  j["ops"] = nlohmann::json::array();
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const OpRow& row = m.rows[i];
    const RowView v = view(row, m);
    nlohmann::json r = {{"op", row.label},        {"provider", row.provider},   {"calls_per_step", v.calls},
                        {"ms_per_step", v.ms},     {"share", v.share},           {"us_per_call", v.us_per_call},
                        {"tbps", v.tbps},          {"of_copy_ceiling", v.of_copy}};
    if (op_is_compute(row)) r["tflops"] = v.tflops;
    if (!m.marginal_s.empty()) {
      r["marginal_ms_per_step"] = m.marginal_s[i] * 1e3;
      r["marginal_us_per_call"] = v.calls > 0 ? m.marginal_s[i] / v.calls * 1e6 : 0.0;
    }
    j["ops"].push_back(r);
  }
  j["sum_of_ops_ms"] = m.ops_s * 1e3;
  j["eager_span_ms"] = m.span_s * 1e3;
  j["eager_call_ms"] = m.eager_call_s * 1e3;
  j["graph_replay_ms"] = m.graph_s * 1e3;
  j["graph_call_ms"] = m.graph_call_s * 1e3;
  if (!m.marginal_s.empty()) j["plain_again_ms"] = m.again_s * 1e3;
  if (m.kernels) j["kernel_trace"] = kernel_timeline_json(*m.kernels);
  if (!m.kernel_trace_error.empty()) j["kernel_trace_error"] = m.kernel_trace_error;
  return j;
}

double median_or_zero(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::optional<ToolTarget> tool_target(const cli::Args& a, const std::string& tool) {
  ToolTarget t{a.get_or("--device", "cuda"), a.get_or("--geometry", "full")};
  if (t.device != "cuda" && t.device != "cpu")
    throw cli::UsageError("--device must be cuda or cpu, got '" + t.device + "'");
  if (t.geometry != "full" && t.geometry != "small")
    throw cli::UsageError("--geometry must be full or small, got '" + t.geometry + "'");
  if (t.device == "cuda" && !cuda_device_available()) {
    std::cerr << tool << ": --device cuda: no CUDA device in this build or on this machine\n";
    return std::nullopt;
  }
  return t;
}

bool kernel_trace_flag(const cli::Args& a, const std::string& device) {
  if (!a.has("--kernel-trace")) return false;
  if (device != "cuda") throw cli::UsageError("--kernel-trace traces CUDA kernels: it needs --device cuda");
  if (!kernel_trace_built())
    throw cli::UsageError("--kernel-trace: this build has no CUPTI (CUDA::cupti was not found when it was configured)");
  return true;
}

void apply_provider_flags(const std::string& enable, const std::string& disable) {
  for (const auto& [names, on] : {std::pair{enable, true}, std::pair{disable, false}}) {
    std::stringstream in(names);
    std::string name;
    while (std::getline(in, name, ','))
      if (!name.empty()) ops::registry().set_enabled(name, on);
  }
}

int step_tool_main(int argc, char** argv, const std::string& tool, const char* help,
                   const std::function<int(const std::vector<std::string>&)>& run) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const cli::UsageError& e) {
    std::cerr << tool << ": " << e.what() << "\n" << help;
    return exit_code::kUsage;
  } catch (const std::invalid_argument& e) {
    std::cerr << tool << ": " << e.what() << "\n";
    return exit_code::kUsage;
  } catch (const std::exception& e) {
    std::cerr << tool << ": " << e.what() << "\n";
    return exit_code::kSoftware;
  }
}

}  // namespace music3::bench
