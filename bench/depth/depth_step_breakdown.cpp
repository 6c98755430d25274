// depth-step-breakdown: where one depth frame goes (seven forward calls of both CFG rows with their heads, samplers and
// code embeddings: the depth stage's share of the AR frame). On seeded synthetic weights (depth_synthetic.h) at
// --geometry, through the production engine (DepthEngine, device arm), it times --steps frames twice
// (step_breakdown.h): the captured graph replayed as production runs it (host clock around run_frame, device time of
// the replays), then op by op with events around each op, summed per role (depth_op_costs.h). --marginal adds each
// role's cost inside the production frame (its calls issued twice in the captured graph, minus the plain frame).
// Exit codes (engine/core/exit_code.h): 0 ok, 1 usage, 6 no such device, 70 an internal error (also a --kernel-trace
// that failed after the other parts printed).
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bench/depth/depth_geometry.h"
#include "bench/depth/depth_op_costs.h"
#include "bench/support/step_breakdown.h"
#include "engine/cli/args.h"
#include "engine/core/exit_code.h"
#include "engine/models/music3/depth/depth_engine.h"
#include "engine/models/music3/depth/depth_synthetic.h"

namespace music3::bench {
namespace {

constexpr const char* kHelp =
    "usage: depth-step-breakdown [--device cuda|cpu] [--geometry full|mid|tiny] [--steps N]\n"
    "                            [--enable-providers a,b] [--disable-providers a,b] [--marginal] [--kernel-trace] [--json]\n"
    "  Times one depth frame (seven forward calls of both CFG rows, heads, samplers, code embeddings) on synthetic\n"
    "  weights: the graph replays and the frame as production runs them, then each op of the same body issued\n"
    "  eagerly, summed per role.\n"
    "  --device             cuda (default) or cpu (the device arm on the CPU providers, host clock per op)\n"
    "  --geometry           full (default: the release), mid or tiny\n"
    "  --steps              timed frames per part (default 20, after 2 untimed)\n"
    "  --enable-providers   comma-separated opt-in provider names switched on for the run\n"
    "  --disable-providers  comma-separated provider names taken out of selection for the run\n"
    "  --marginal           also each role's cost inside the production frame: the frame again with that role's\n"
    "                       calls issued twice, minus the plain frame (one more engine per role)\n"
    "  --kernel-trace       also the production step's kernels as the GPU ran them (CUPTI; --device cuda): per\n"
    "                       kernel its busy time, the time it added to the step's span, and the idle time before it\n"
    "  --json               one JSON object instead of the table\n";

constexpr uint64_t kSeed = 0;

int run_main(const std::vector<std::string>& argv) {
  const cli::Args a(argv, {"--device", "--geometry", "--steps", "--enable-providers", "--disable-providers"},
                    {"--json", "--marginal", "--kernel-trace", "--help"});
  if (a.has("--help")) {
    std::cout << kHelp << exit_code::kTable;
    return exit_code::kOk;
  }
  const std::string device = a.get_or("--device", "cuda"), geometry = a.get_or("--geometry", "full");
  if (device != "cuda" && device != "cpu") throw cli::UsageError("--device must be cuda or cpu, got '" + device + "'");
  if (device == "cuda" && !cuda_device_available()) {
    std::cerr << "depth-step-breakdown: --device cuda: no CUDA device in this build or on this machine\n";
    return exit_code::kDeviceRefused;
  }
  const int steps = static_cast<int>(a.get_int_or("--steps", 20, 1, 1000));
  apply_provider_flags(a.get_or("--enable-providers", ""), a.get_or("--disable-providers", ""));
  const depth::DepthConfig cfg = depth_geometry(geometry);  // refuses an unknown name (usage)
  tool_progress("depth-step-breakdown", "drawing the " + geometry + " synthetic weights");
  const depth::DepthWeights weights = depth::synthetic_depth_weights(cfg, kSeed);  // drawn once, copied per engine
  const size_t H = size_t(cfg.hidden);
  std::vector<bf16> last_hidden(2 * H), c0(H);
  depth::synthetic_frame_inputs(cfg, kSeed, 0, last_hidden.data(), c0.data());
  auto labels = std::make_shared<DepthOpLabels>(cfg);
  const Queue q = queue_by_name(device);
  const StepOn make_step = [&](const Queue& on) -> std::function<void()> {
    labels->forget_buffers();  // the new engine's buffers may reuse an earlier one's addresses
    auto engine = std::make_shared<depth::DepthEngine>(weights, on, depth::ArmRequest::Device);
    if (engine->arm_kind() != depth::ArmKind::Device) throw std::runtime_error("the selector chose the host arm");
    auto frame = std::make_shared<uint64_t>(0);
    return [&, engine, frame] {
      depth::FrameInputs in;
      in.last_hidden = last_hidden.data();
      in.c0_embedding = c0.data();
      in.frame = (*frame)++;
      in.draws.seed = kSeed;
      engine->run_frame(in);
    };
  };
  const StepBreakdown m = measure_step(q, make_step, depth_op_labeler(labels), steps, "depth-step-breakdown",
                                       a.has("--marginal"), kernel_trace_flag(a, device));
  const std::string what = geometry + " geometry (" + std::to_string(cfg.layers) + " layers, hidden " +
                           std::to_string(cfg.hidden) + "), both CFG rows, " + std::to_string(cfg.steps()) +
                           " calls per frame, " + std::to_string(m.steps) + " frames, " + device;
  if (a.has("--json")) std::cout << step_json(m, what).dump(1) << "\n";
  else print_step_table(std::cout, m, "depth-step-breakdown", what);
  return m.kernel_trace_error.empty() ? exit_code::kOk : exit_code::kSoftware;  // the tables printed either way
}

}  // namespace
}  // namespace music3::bench

int main(int argc, char** argv) {
  return music3::bench::step_tool_main(argc, argv, "depth-step-breakdown", music3::bench::kHelp,
                                       music3::bench::run_main);
}
