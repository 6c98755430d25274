// ar-frame-breakdown: where one AR frame goes beyond the LM step and the depth frame (issue 11's AR-frame target).
// The measurement is ar_frame_measure.h's: the AR stage as production runs it (host clock per frame), then observed
// (every graph replay and every op outside a graph bracketed by events). It prints per frame the production frame,
// the GPU work the observed run saw (the replays and each op's row), and their difference: what the frame spends
// outside that work (copies, host waits and launches); and the observed run's own frame, slower since each replay's
// time is read before the next launch.
// Exit codes (engine/core/exit_code.h): 0 ok, 1 usage, 6 no such device, 70 an internal error (also a --kernel-trace
// that failed after the table printed).
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/ar/ar_frame_measure.h"
#include "bench/support/step_breakdown.h"
#include "engine/cli/args.h"
#include "engine/core/exit_code.h"

namespace music3::bench {
namespace {

constexpr const char* kHelp =
    "usage: ar-frame-breakdown [--device cuda|cpu] [--geometry full|small] [--frames N] [--enable-providers a,b]\n"
    "                          [--disable-providers a,b] [--kernel-trace] [--json]\n"
    "  Runs the AR stage on synthetic weights twice: as production runs it (host clock per frame), then with every\n"
    "  graph replay and every op outside a graph bracketed by events; prints per frame the production time, the\n"
    "  GPU work seen, and the rest (copies, host waits and launches).\n"
    "  --device             cuda (default) or cpu (the device arms on the CPU providers, host clock per op)\n"
    "  --geometry           full (default: the release geometry) or small\n"
    "  --frames             frames per run (default 48; the first 3 iterations are not counted)\n"
    "  --enable-providers   comma-separated opt-in provider names switched on for the run\n"
    "  --disable-providers  comma-separated provider names taken out of selection for the run\n"
    "  --kernel-trace       also a third run under CUPTI (--device cuda; the weights drawn again): per kernel of\n"
    "                       the frames after the warm-up its busy time, the time it added to the frame's span,\n"
    "                       and the idle time before it\n"
    "  --json               one JSON object instead of the table\n";

nlohmann::json to_json(const FrameBreakdown& b, const std::string& what) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& r : b.ops)
    ops.push_back({{"op", r.label}, {"provider", r.provider}, {"calls_per_frame", double(r.calls) / b.frames},
                   {"ms_per_frame", r.seconds * 1e3 / b.frames}});
  return {{"what", what},
          {"ar_loop", b.device_frame ? "device-resident" : "host-driven"},
          {"frames", b.frames},
          {"production_ms_per_frame", b.production_ms},
          {"observed_ms_per_frame", b.observed_ms},
          {"graph_replays_ms_per_frame", b.graphs_ms},
          {"ops_outside_graphs", ops},
          {"gpu_work_ms_per_frame", b.graphs_ms + b.ops_ms()},
          {"rest_ms_per_frame", b.rest_ms()},
          {"kernel_trace", b.kernels ? kernel_timeline_json(*b.kernels) : nlohmann::json()},
          {"kernel_trace_error", b.kernel_trace_error}};
}

void print_table(const FrameBreakdown& b, const std::string& what) {
  std::cout << "ar-frame-breakdown: " << what << ", AR loop " << (b.device_frame ? "device-resident" : "host-driven")
            << ", " << b.frames << " frames observed\n"
            << std::fixed << std::setprecision(3);
  const auto row = [](const std::string& name, double ms, const std::string& note = "") {
    std::cout << "  " << std::left << std::setw(44) << name << std::right << std::setw(9) << ms << " ms" << note
              << "\n";
  };
  row("production frame (host clock, median)", b.production_ms);
  row("graph replays (LM decode, head, depth body)", b.graphs_ms);
  for (const auto& r : b.ops) {
    std::ostringstream note;
    note << "  (" << std::setprecision(2) << double(r.calls) / b.frames << " calls, " << r.provider << ")";
    row("  " + r.label, r.seconds * 1e3 / b.frames, note.str());
  }
  row("GPU work seen", b.graphs_ms + b.ops_ms());
  row("rest: copies, host waits and launches", b.rest_ms());
  row("observed frame (replays read one by one)", b.observed_ms);
  if (b.kernels) print_kernel_timeline(std::cout, *b.kernels);
  if (!b.kernel_trace_error.empty()) std::cout << "kernel trace failed: " << b.kernel_trace_error << "\n";
}

int run_main(const std::vector<std::string>& argv) {
  const cli::Args a(argv, {"--device", "--geometry", "--frames", "--enable-providers", "--disable-providers"},
                    {"--json", "--kernel-trace", "--help"});
  if (a.has("--help")) {
    std::cout << kHelp << exit_code::kTable;
    return exit_code::kOk;
  }
  const auto target = tool_target(a, "ar-frame-breakdown");
  if (!target) return exit_code::kDeviceRefused;
  const std::string& device = target->device;
  const std::string& geometry = target->geometry;
  const int frames = static_cast<int>(a.get_int_or("--frames", 48, kArFrameWarmup + 2, 1500));
  apply_provider_flags(a.get_or("--enable-providers", ""), a.get_or("--disable-providers", ""));
  const FrameBreakdown b = measure_ar_frame(queue_by_name(device), geometry, frames, kernel_trace_flag(a, device));
  const std::string what = geometry + " geometry, " + device + ", " + std::to_string(frames) + " frames per run";
  if (a.has("--json")) std::cout << to_json(b, what).dump(1) << "\n";
  else print_table(b, what);
  return b.kernel_trace_error.empty() ? exit_code::kOk : exit_code::kSoftware;  // the table printed either way
}

}  // namespace
}  // namespace music3::bench

int main(int argc, char** argv) {
  return music3::bench::step_tool_main(argc, argv, "ar-frame-breakdown", music3::bench::kHelp,
                                       music3::bench::run_main);
}
