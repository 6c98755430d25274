// lm-step-breakdown: where one LM decode step goes (issue 11's performance target: the decode step of both CFG
// rows plus the sliced head, as the AR loop calls it). On seeded synthetic weights (lm_bench_weights.h) at
// --geometry, through the production selector (select_lm_arm, device arm), after a prefill of --kv positions per row,
// it times --steps steps of decode() + head() twice (step_breakdown.h): with the captured graphs replayed as
// production runs them (host clock around the step, device time of the replays), then op by op with events around
// each op, summed per role (lm_op_costs.h: the four layer GEMMs, the head, the norms, qk_norm_rope, the attention
// over the K/V prefix, silu_and_mul). The K/V prefix grows by one position per step (2 + 2 steps past --kv in all),
// in a cache of --capacity positions per row (the AR loop reserves prompt + max_frames: the decode attention's grid
// follows the capacity, not the prefix). --marginal adds each role's cost inside the production step (its calls
// issued twice in the captured graph, minus the plain step: step_breakdown.h), what fusing it away can save at most.
// Exit codes (engine/core/exit_code.h): 0 ok, 1 usage, 6 no such device, 70 an internal error (also a --kernel-trace
// that failed after the other parts printed).
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bench/lm/lm_bench_weights.h"
#include "bench/lm/lm_op_costs.h"
#include "bench/support/step_breakdown.h"
#include "bench/support/uniform_bf16.h"
#include "engine/cli/args.h"
#include "engine/core/exit_code.h"
#include "engine/models/music3/lm/lm_ids.h"
#include "engine/models/music3/lm/lm_selector.h"

namespace music3::bench {
namespace {

constexpr const char* kHelp =
    "usage: lm-step-breakdown [--device cuda|cpu] [--geometry full|small] [--kv N] [--steps N] [--capacity N]\n"
    "                         [--enable-providers a,b] [--disable-providers a,b] [--marginal] [--kernel-trace] [--json]\n"
    "  Times one LM decode step of both CFG rows plus the sliced head on synthetic weights: the graph replays\n"
    "  and the step as production runs them, then each op of the same body issued eagerly, summed per role.\n"
    "  --device             cuda (default) or cpu (the device arm on the CPU providers, host clock per op)\n"
    "  --geometry           full (default: hidden 4096, 36 layers, 32/8 heads of 128) or small\n"
    "  --kv                 positions prefilled per row before the timed steps (default 300)\n"
    "  --steps              timed steps per part (default 20, after 2 untimed)\n"
    "  --capacity           K/V positions reserved per row (default and least: kv + 2 steps + 4; a 60 s song's\n"
    "                       AR loop reserves prompt + 1,500, e.g. 1800)\n"
    "  --enable-providers   comma-separated opt-in provider names switched on for the run\n"
    "  --disable-providers  comma-separated provider names taken out of selection for the run\n"
    "  --marginal           also each row's cost inside the production step: the step again with that row's\n"
    "                       calls issued twice, minus the plain step (one more arm per row)\n"
    "  --kernel-trace       also the production step's kernels as the GPU ran them (CUPTI; --device cuda): per\n"
    "                       kernel its busy time, the time it added to the step's span, and the idle time before it\n"
    "  --json               one JSON object instead of the table\n";

constexpr uint64_t kWeightSeed = 0;

// The arm and the host buffers one step reads and writes.
struct LmStep {
  runtime::ArmInstruments instruments;  // the arm keeps a reference to it
  std::unique_ptr<lm::LmArm> arm;
  std::vector<bf16> embeds, last, logits;
  void operator()() {
    arm->decode(embeds.data(), last.data());
    arm->head(last.data(), logits.data());
  }
};

int run_main(const std::vector<std::string>& argv) {
  const cli::Args a(argv, {"--device", "--geometry", "--kv", "--steps", "--capacity", "--enable-providers",
                           "--disable-providers"},
                    {"--json", "--marginal", "--kernel-trace", "--help"});
  if (a.has("--help")) {
    std::cout << kHelp << exit_code::kTable;
    return exit_code::kOk;
  }
  const auto target = tool_target(a, "lm-step-breakdown");
  if (!target) return exit_code::kDeviceRefused;
  const std::string& device = target->device;
  const std::string& geometry = target->geometry;
  const int kv = static_cast<int>(a.get_int_or("--kv", 300, 1, 9000));
  const int steps = static_cast<int>(a.get_int_or("--steps", 20, 1, 1000));
  const int least = kv + 2 * steps + 4, most = lm::kMaxPromptTokens + lm::kMaxFrames;
  const int capacity = static_cast<int>(a.get_int_or("--capacity", least, least, most));
  apply_provider_flags(a.get_or("--enable-providers", ""), a.get_or("--disable-providers", ""));
  tool_progress("lm-step-breakdown", "drawing the " + geometry + " synthetic weights");
  const lm::LmConfig cfg = lm_bench_geometry(geometry);
  const lm::LmWeights w = synthetic_lm_weights(cfg, kWeightSeed);
  const size_t H = size_t(cfg.hidden);
  const std::vector<bf16> prompt = uniform_bf16(2 * size_t(kv) * H, kWeightSeed + 10);
  const Queue q = queue_by_name(device);
  const StepOn make_step = [&](const Queue& on) -> std::function<void()> {
    auto s = std::make_shared<LmStep>();
    lm::select_lm_arm(on, runtime::ArmRequest::Device, w, s->instruments, &s->arm);
    if (s->arm->kind() != runtime::ArmKind::Device) throw std::runtime_error("the selector chose the host arm");
    s->embeds = uniform_bf16(2 * H, kWeightSeed + 11);
    s->last.resize(2 * H);
    s->logits.resize(2 * size_t(lm::kSampledColumns));
    s->arm->prefill(prompt.data(), kv, capacity, s->last.data(), nullptr);
    return [s] { (*s)(); };
  };
  const StepBreakdown m = measure_step(q, make_step, lm_op_labeler(cfg, kv), steps, "lm-step-breakdown",
                                        a.has("--marginal"), kernel_trace_flag(a, device));
  const std::string what = geometry + " geometry (" + std::to_string(cfg.layers) + " layers, hidden " +
                           std::to_string(cfg.hidden) + "), both CFG rows, K/V " + std::to_string(kv) + "+ of " +
                           std::to_string(capacity) + ", " + std::to_string(m.steps) + " steps, " + device;
  if (a.has("--json")) std::cout << step_json(m, what).dump(1) << "\n";
  else print_step_table(std::cout, m, "lm-step-breakdown", what);
  return m.kernel_trace_error.empty() ? exit_code::kOk : exit_code::kSoftware;  // the tables printed either way
}

}  // namespace
}  // namespace music3::bench

int main(int argc, char** argv) {
  return music3::bench::step_tool_main(argc, argv, "lm-step-breakdown", music3::bench::kHelp,
                                       music3::bench::run_main);
}
