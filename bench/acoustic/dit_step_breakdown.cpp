// dit-step-breakdown: where one guided DiT step's time goes (issue 12's performance target). On seeded synthetic
// weights (acoustic_synthetic.h) at --geometry and --length, through the production factory (make_dit_arm), it
//  1. runs the device arm as production does (the captured graph, replayed) and times --steps calls of
//     velocities(): the host clock around each call (bench-acoustic's ms_per_step) and the device time of the graph
//     replay alone (CUDA events around launch_graph, observed_backend.h);
//  2. runs a second device arm with graphs off, so the same frame body is issued op by op, and brackets every op
//     with CUDA events (op_timeline.h; on a CPU queue the host clock), summed per op kind (dit_op_costs.h) over the
//     36 blocks and averaged over --steps steps;
// and prints a table: per op kind the calls per step, ms per step, share of the ops' sum, us per call, the
// provider that ran it, TFLOP/s (GEMMs, attention) or TB/s and its fraction of the device copy ceiling (read +
// written, measured here); then the ops' sum, the eager span (gaps between ops included), the graph replay's device
// time (graph - sum: the launch gaps and tails the graph leaves) and the host-clock step (minus the replay: uploads,
// the read-back and the host work of velocities()). --disable-providers turns providers off for the whole run and
// --enable-providers opt-in ones on (an A/B of an op's providers in two runs). --json prints the same as one JSON object.
// Exit codes (engine/core/exit_code.h): 0 ok, 1 usage, 6 no such device, 70 an internal error.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "bench/acoustic/dit_op_costs.h"
#include "bench/support/copy_ceiling.h"
#include "bench/support/observed_backend.h"
#include "bench/support/op_timeline.h"
#include "engine/cli/args.h"
#include "engine/core/exit_code.h"
#include "engine/models/music3/acoustic/acoustic_selector.h"
#include "engine/models/music3/acoustic/acoustic_synthetic.h"
#include "engine/ops/registry.h"
#include "engine/runtime/device_pools.h"

namespace music3::bench {
namespace {

constexpr const char* kHelp =
    "usage: dit-step-breakdown [--device cuda|cpu] [--geometry full|mid|tiny] [--length L] [--steps N]\n"
    "                          [--enable-providers a,b] [--disable-providers a,b] [--json]\n"
    "  Times one guided DiT step (both branches as one batch of 2) on synthetic weights: the graph replay and\n"
    "  velocities() as production runs them, then each op of the same body issued eagerly, summed per op kind.\n"
    "  --device             cuda (default) or cpu (the device arm on the CPU providers, host clock per op)\n"
    "  --geometry           full (default: 36 blocks, inner 2048), mid or tiny\n"
    "  --length             latents per window (default 689, the 200-frame window)\n"
    "  --steps              timed steps per part (default 20, after 2 untimed)\n"
    "  --enable-providers   comma-separated opt-in provider names switched on for the run\n"
    "  --disable-providers  comma-separated provider names taken out of selection for the run\n"
    "  --json               one JSON object instead of the table\n";

using Clock = std::chrono::steady_clock;

// A progress line on a terminal (stderr), overwritten by the next; nothing when stderr is not a terminal.
void progress(const std::string& what) {
  if (isatty(2)) std::cerr << "\r\033[Kdit-step-breakdown: " << what << std::flush;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Measured {
  std::vector<OpRow> rows;
  int steps = 0;
  double ops_s = 0, span_s = 0, eager_call_s = 0, graph_s = 0, graph_call_s = 0, copy_Bps = 0;
};

struct Run {
  acoustic::DitWeights w;
  std::vector<bf16> x, cond;
  int64_t L = 0;
  bf16 t = to_bf16(0.5f);
  acoustic::VelocityPair step(acoustic::DitArm& arm) const { return arm.velocities(x.data(), L, t, cond.data()); }
};

// Host seconds of `steps` calls of velocities() (after 2 untimed), `after` run after each timed call.
template <class After>
std::vector<double> timed_steps(const Run& r, acoustic::DitArm& arm, int steps, After after) {
  for (int i = 0; i < 2; ++i) r.step(arm);
  std::vector<double> call;
  for (int i = 0; i < steps; ++i) {
    const auto t0 = Clock::now();
    r.step(arm);
    call.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    after();
  }
  return call;
}

std::unique_ptr<acoustic::DitArm> arm_on(const Run& r, const Queue& q, runtime::ArmInstruments& ins) {
  return acoustic::make_dit_arm(r.w, q, runtime::ArmRequest::Device, ins);
}

Measured measure(const Queue& q, const Run& r, int steps) {
  Measured m;
  runtime::shared_device_pool(q);  // the pool keeps the real backend, not the observed ones below
  m.copy_Bps = q.device == DeviceType::CUDA ? cuda_copy_ceiling_Bps(q, size_t(1) << 30, 5)
                                            : cpu_copy_ceiling_Bps(size_t(256) << 20, 3);
  progress("graph replay, " + std::to_string(steps) + " steps");
  {  // 1. production: the captured graph
    ObservedBackend observed(*q.backend, /*graphs=*/true);
    Queue gq = q;
    gq.backend = &observed;
    runtime::ArmInstruments ins;
    const auto arm = arm_on(r, gq, ins);
    std::vector<double> replay;
    m.graph_call_s = median(timed_steps(r, *arm, steps, [&] {
      if (observed.supports_graphs()) replay.push_back(observed.last_graph_seconds());
    }));
    m.graph_s = median(replay);
  }
  progress("the same body op by op, " + std::to_string(steps) + " + " + std::to_string(steps) + " steps");
  {  // 2. the same body op by op
    ObservedBackend eager(*q.backend, /*graphs=*/false);
    Queue eq = q;
    eq.backend = &eager;
    runtime::ArmInstruments ins;
    const auto arm = arm_on(r, eq, ins);
    m.eager_call_s = median(timed_steps(r, *arm, steps, [] {}));
    OpTimeline timeline(eq, dit_op_labeler(r.w.cfg, r.L));
    for (int i = 0; i < steps; ++i) {
      timeline.begin_step();
      r.step(*arm);
      timeline.end_step();
    }
    m.rows = timeline.rows();
    m.steps = timeline.steps();
    m.span_s = timeline.span_seconds() / std::max(1, m.steps);
  }
  for (const OpRow& row : m.rows) m.ops_s += row.seconds / std::max(1, m.steps);
  if (isatty(2)) std::cerr << "\r\033[K";
  return m;
}

struct RowView {
  double calls, ms, share, us_per_call, tflops, tbps, of_copy;
};

RowView view(const OpRow& row, const Measured& m) {
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

std::string line(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

void print_table(const Measured& m, const std::string& what) {
  std::cout << "dit-step-breakdown: " << what << "\n";
  std::cout << line("copy ceiling %.3f TB/s (read + written)\n", m.copy_Bps / 1e12);
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-36s %6s %8s %7s %9s %8s %6s %7s  %s\n", "op", "calls", "ms/step", "share",
                "us/call", "TFLOP/s", "TB/s", "of copy", "provider");
  std::cout << buf;
  for (const OpRow& row : m.rows) {
    const RowView v = view(row, m);
    const bool compute = dit_op_is_compute(row);
    std::snprintf(buf, sizeof buf, "%-36s %6.0f %8.3f %6.1f%% %9.1f %8s %6.2f %6.0f%%  %s\n", row.label.c_str(),
                  v.calls, v.ms, 100 * v.share, v.us_per_call, compute ? line("%.1f", v.tflops).c_str() : "-",
                  v.tbps, 100 * v.of_copy, row.provider.c_str());
    std::cout << buf;
  }
  std::cout << line("sum of ops (eager, events around each op)       %8.3f ms\n", m.ops_s * 1e3);
  std::cout << line("eager span (first op start to last op end)      %8.3f ms  (gaps between ops %.3f ms)\n",
                    m.span_s * 1e3, (m.span_s - m.ops_s) * 1e3);
  std::cout << line("eager velocities() (host clock, median)         %8.3f ms\n", m.eager_call_s * 1e3);
  if (m.graph_s <= 0) {
    std::cout << line("graph velocities() (host clock, median)         %8.3f ms  (no graph: this backend has none)\n",
                      m.graph_call_s * 1e3);
    return;
  }
  std::cout << line("graph replay (device, events around the launch) %8.3f ms  (graph - sum of ops %+.3f ms)\n",
                    m.graph_s * 1e3, (m.graph_s - m.ops_s) * 1e3);
  std::cout << line("graph velocities() (host clock, median)         %8.3f ms  (call - replay %.3f ms: uploads, "
                    "read-back, host work)\n",
                    m.graph_call_s * 1e3, (m.graph_call_s - m.graph_s) * 1e3);
}

void print_json(const Measured& m, const std::string& what) {
  nlohmann::json j;
  j["what"] = what;
  j["copy_ceiling_TBps"] = m.copy_Bps / 1e12;
  j["steps"] = m.steps;
  for (const OpRow& row : m.rows) {
    const RowView v = view(row, m);
    nlohmann::json r = {{"op", row.label},        {"provider", row.provider},   {"calls_per_step", v.calls},
                        {"ms_per_step", v.ms},     {"share", v.share},           {"us_per_call", v.us_per_call},
                        {"tbps", v.tbps},          {"of_copy_ceiling", v.of_copy}};
    if (dit_op_is_compute(row)) r["tflops"] = v.tflops;
    j["ops"].push_back(r);
  }
  j["sum_of_ops_ms"] = m.ops_s * 1e3;
  j["eager_span_ms"] = m.span_s * 1e3;
  j["eager_call_ms"] = m.eager_call_s * 1e3;
  j["graph_replay_ms"] = m.graph_s * 1e3;
  j["graph_call_ms"] = m.graph_call_s * 1e3;
  std::cout << j.dump(1) << "\n";
}

std::vector<std::string> split_names(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string name;
  while (std::getline(in, name, ','))
    if (!name.empty()) out.push_back(name);
  return out;
}

int run_main(const std::vector<std::string>& argv) {
  const cli::Args a(argv, {"--device", "--geometry", "--length", "--steps", "--enable-providers", "--disable-providers"}, {"--json", "--help"});
  if (a.has("--help")) {
    std::cout << kHelp << exit_code::kTable;
    return exit_code::kOk;
  }
  const std::string device = a.get_or("--device", "cuda"), geometry = a.get_or("--geometry", "full");
  if (device != "cuda" && device != "cpu") throw cli::UsageError("--device must be cuda or cpu, got '" + device + "'");
  if (device == "cuda" && !cuda_device_available()) {
    std::cerr << "dit-step-breakdown: --device cuda: no CUDA device in this build or on this machine\n";
    return exit_code::kDeviceRefused;
  }
  progress("drawing the " + geometry + " synthetic weights");
  Run r;
  r.w = acoustic::synthetic_dit_weights(acoustic::dit_geometry(geometry), 0);
  r.L = a.get_int_or("--length", 689, 1, 1 << 20);
  const int steps = static_cast<int>(a.get_int_or("--steps", 20, 1, 100000));
  for (const std::string& name : split_names(a.get_or("--enable-providers", "")))
    ops::registry().set_enabled(name, true);
  for (const std::string& name : split_names(a.get_or("--disable-providers", "")))
    ops::registry().set_enabled(name, false);
  r.x = acoustic::synthetic_normal(size_t(r.w.cfg.in_channels * r.L), 1);
  r.cond = acoustic::synthetic_normal(size_t(r.w.cfg.condition_dim * r.L), 2);
  const Queue q = queue_by_name(device);
  const Measured m = measure(q, r, steps);
  const std::string what = geometry + " geometry (" + std::to_string(r.w.cfg.layers) + " blocks), L " +
                           std::to_string(r.L) + ", both branches (M " + std::to_string(2 * (r.L + 1)) + "), " +
                           std::to_string(m.steps) + " steps, " + device;
  if (a.has("--json")) print_json(m, what);
  else print_table(m, what);
  return exit_code::kOk;
}

}  // namespace
}  // namespace music3::bench

int main(int argc, char** argv) {
  try {
    return music3::bench::run_main(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const music3::cli::UsageError& e) {
    std::cerr << "dit-step-breakdown: " << e.what() << "\n" << music3::bench::kHelp;
    return music3::exit_code::kUsage;
  } catch (const std::invalid_argument& e) {
    std::cerr << "dit-step-breakdown: " << e.what() << "\n";
    return music3::exit_code::kUsage;
  } catch (const std::exception& e) {
    std::cerr << "dit-step-breakdown: " << e.what() << "\n";
    return music3::exit_code::kSoftware;
  }
}
