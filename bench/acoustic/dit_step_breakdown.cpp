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
// --enable-providers opt-in ones on (an A/B of an op's providers in two runs). --marginal adds each op kind's cost
// inside the production step (its calls issued twice in the captured graph, minus the plain step). --json prints the
// same as one JSON object.
// Exit codes (engine/core/exit_code.h): 0 ok, 1 usage, 6 no such device, 70 an internal error (also a --kernel-trace
// that failed after the other parts printed).
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bench/acoustic/dit_op_costs.h"
#include "bench/support/step_breakdown.h"
#include "engine/cli/args.h"
#include "engine/core/exit_code.h"
#include "engine/models/music3/acoustic/acoustic_selector.h"
#include "engine/models/music3/acoustic/acoustic_synthetic.h"

namespace music3::bench {
namespace {

constexpr const char* kHelp =
    "usage: dit-step-breakdown [--device cuda|cpu] [--geometry full|mid|tiny] [--length L] [--steps N]\n"
    "                          [--enable-providers a,b] [--disable-providers a,b] [--marginal] [--kernel-trace] [--json]\n"
    "  Times one guided DiT step (both branches as one batch of 2) on synthetic weights: the graph replay and\n"
    "  velocities() as production runs them, then each op of the same body issued eagerly, summed per op kind.\n"
    "  --device             cuda (default) or cpu (the device arm on the CPU providers, host clock per op)\n"
    "  --geometry           full (default: 36 blocks, inner 2048), mid or tiny\n"
    "  --length             latents per window (default 689, the 200-frame window)\n"
    "  --steps              timed steps per part (default 20, after 2 untimed)\n"
    "  --enable-providers   comma-separated opt-in provider names switched on for the run\n"
    "  --disable-providers  comma-separated provider names taken out of selection for the run\n"
    "  --marginal           also each row's cost inside the production step: the step again with that row's\n"
    "                       calls issued twice, minus the plain step (one more arm per row)\n"
    "  --kernel-trace       also the production step's kernels as the GPU ran them (CUPTI; --device cuda): per\n"
    "                       kernel its busy time, the time it added to the step's span, and the idle time before it\n"
    "  --json               one JSON object instead of the table\n";

int run_main(const std::vector<std::string>& argv) {
  const cli::Args a(argv, {"--device", "--geometry", "--length", "--steps", "--enable-providers", "--disable-providers"}, {"--json", "--marginal", "--kernel-trace", "--help"});
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
  tool_progress("dit-step-breakdown", "drawing the " + geometry + " synthetic weights");
  const acoustic::DitWeights w = acoustic::synthetic_dit_weights(acoustic::dit_geometry(geometry), 0);
  const int64_t L = a.get_int_or("--length", 689, 1, 1 << 20);
  const int steps = static_cast<int>(a.get_int_or("--steps", 20, 1, 100000));
  apply_provider_flags(a.get_or("--enable-providers", ""), a.get_or("--disable-providers", ""));
  const auto x = acoustic::synthetic_normal(size_t(w.cfg.in_channels * L), 1);
  const auto cond = acoustic::synthetic_normal(size_t(w.cfg.condition_dim * L), 2);
  const Queue q = queue_by_name(device);
  const StepOn make_step = [&](const Queue& on) -> std::function<void()> {
    auto ins = std::make_shared<runtime::ArmInstruments>();  // the arm keeps a reference to it
    std::shared_ptr<acoustic::DitArm> arm = acoustic::make_dit_arm(w, on, runtime::ArmRequest::Device, *ins);
    return [&, ins, arm] { arm->velocities(x.data(), L, to_bf16(0.5f), cond.data()); };
  };
  const StepBreakdown m = measure_step(q, make_step, dit_op_labeler(w.cfg, L), steps, "dit-step-breakdown",
                                        a.has("--marginal"), kernel_trace_flag(a, device));
  const std::string what = geometry + " geometry (" + std::to_string(w.cfg.layers) + " blocks), L " +
                           std::to_string(L) + ", both branches (M " + std::to_string(2 * (L + 1)) + "), " +
                           std::to_string(m.steps) + " steps, " + device;
  if (a.has("--json")) std::cout << step_json(m, what).dump(1) << "\n";
  else print_step_table(std::cout, m, "dit-step-breakdown", what);
  return m.kernel_trace_error.empty() ? exit_code::kOk : exit_code::kSoftware;  // the tables printed either way
}

}  // namespace
}  // namespace music3::bench

int main(int argc, char** argv) {
  return music3::bench::step_tool_main(argc, argv, "dit-step-breakdown", music3::bench::kHelp,
                                       music3::bench::run_main);
}
