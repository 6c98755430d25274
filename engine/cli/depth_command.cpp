#include "engine/cli/depth_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/cli/args.h"
#include "engine/cli/device_flags.h"
#include "engine/cli/command.h"
#include "engine/core/exit_code.h"
#include "engine/core/queue.h"
#include "engine/models/music3/depth/depth_engine.h"
#include "engine/models/music3/depth/depth_frame_files.h"
#include "engine/models/music3/depth/depth_loader.h"
#include "engine/models/music3/depth/depth_synthetic.h"

namespace music3::cli {

const char* const kDepthUsage =
    "usage: music3 depth (--checkpoint DIR | --synthetic full|mid|tiny) [--device cpu|cuda] [--arm auto|host|device]\n"
    "                    [--frames N] [--seed S] [--inputs FILE] [--draws FILE] [--dump FILE] [--threads N] [--json]\n"
    "  --device: where it runs, cpu (the default) or cuda.\n";

namespace {
using depth::DepthConfig;

DepthConfig synthetic_config(const std::string& name) {
  try {
    return DepthConfig::named(name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--synthetic: ") + e.what());
  }
}


std::string codes_str(const std::vector<int32_t>& codes) {
  std::string s;
  for (size_t i = 0; i < codes.size(); ++i) {
    if (i) s += ' ';
    s += std::to_string(codes[i]);
  }
  return s;
}
}  // namespace

int run_depth_command(const std::vector<std::string>& argv) {
  Args a(argv, {"--checkpoint", "--synthetic", "--device", "--arm", "--frames", "--seed", "--inputs", "--draws", "--dump",
                "--threads"},
         {"--json"});
  if (a.has("--checkpoint") == a.has("--synthetic")) throw UsageError("give exactly one of --checkpoint DIR or --synthetic NAME");
  const uint64_t seed = a.get_u64_or("--seed", 0);
  const int threads = static_cast<int>(a.get_int_or("--threads", 0, 0, 1024));

  depth::LoadReport report;
  depth::DepthWeights weights = a.has("--checkpoint")
                                    ? depth::load_depth_checkpoint(*a.get("--checkpoint"), &report)
                                    : depth::synthetic_depth_weights(synthetic_config(*a.get("--synthetic")), seed, threads);
  const DepthConfig cfg = weights.cfg;

  depth::DepthFrameInputs inputs;
  int64_t frames = a.get_int_or("--frames", -1, 1, 1000000);
  if (auto path = a.get("--inputs")) {
    inputs = depth::read_frame_inputs(*path, cfg);
    if (frames < 0) frames = inputs.frames;
    if (frames > inputs.frames)
      throw UsageError("--frames " + std::to_string(frames) + " exceeds the " + std::to_string(inputs.frames) +
                       " frames in " + *path);
  } else {
    if (frames < 0) frames = 4;
    inputs = depth::synthetic_inputs(cfg, seed, frames);
  }
  std::vector<float> draws;
  if (auto path = a.get("--draws")) draws = depth::read_exp_draws(*path, cfg, frames);

  const Queue q = queue_from_flag(a.get_or("--device", "cpu"), threads);
  // A staged device arm owns its weights: the host side (the checkpoint's mapping) is released.
  depth::DepthEngine engine(std::move(weights), q, arm_from_flag(a.get_or("--arm", "auto")),
                            /*release_host=*/true);

  const bool json = a.has("--json");
  nlohmann::json out;
  out["arm"] = depth::arm_name(engine.arm_kind());
  out["device"] = device_type_name(q.device);
  out["config"] = cfg.describe();
  if (!report.weights_path.empty()) {
    out["checkpoint"] = {{"path", report.weights_path}, {"sha256", report.weights_sha256}, {"converted_from_f32", report.converted}};
    if (!report.converted.empty() && !json)
      std::cerr << "music3 depth: " << report.converted.size() << " tensors stored as F32 were rounded to bf16\n";
  }
  if (!json)
    std::printf("depth stage: arm %s on %s, %s, %lld frames\n", out["arm"].get<std::string>().c_str(),
                out["device"].get<std::string>().c_str(), cfg.describe().c_str(), static_cast<long long>(frames));

  std::vector<depth::FrameResult> results;
  std::vector<double> ms;
  const size_t H = static_cast<size_t>(cfg.hidden);
  const size_t per_frame_draws = static_cast<size_t>(cfg.steps()) * static_cast<size_t>(cfg.vocab);
  for (int64_t f = 0; f < frames; ++f) {
    depth::FrameInputs in;
    in.last_hidden = inputs.last_hidden.data() + size_t(f) * 2 * H;
    in.c0_embedding = inputs.c0_embedding.data() + size_t(f) * H;
    in.frame = static_cast<uint64_t>(f);
    if (!draws.empty()) {
      in.draws.kind = depth::DrawSource::Kind::Replay;
      in.draws.replay = draws.data() + size_t(f) * per_frame_draws;
    } else {
      in.draws.seed = seed;
    }
    const auto t0 = std::chrono::steady_clock::now();
    results.push_back(engine.run_frame(in));
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    out["frames"].push_back({{"frame", f}, {"codes", results.back().codes}, {"ms", ms.back()}});
    if (!json) std::printf("frame %lld: codes %s  (%.3f ms)\n", static_cast<long long>(f), codes_str(results.back().codes).c_str(), ms.back());
  }
  // The first frame carries one-time costs (first touch, kernel load); the steady state excludes it.
  std::vector<double> steady(ms.size() > 1 ? ms.begin() + 1 : ms.begin(), ms.end());
  std::sort(steady.begin(), steady.end());
  const double median = steady.empty() ? 0.0 : steady[steady.size() / 2];
  const auto& ins = engine.instruments();
  out["median_ms_per_frame"] = median;
  out["instruments"] = {{"host_forwards", ins.host_forwards},
                        {"device_forwards", ins.device_forwards},
                        {"frames", ins.frames},
                        {"staging_count", ins.staging_count},
                        {"staging_ms", ins.staging_ms},
                        {"staged_bytes", ins.staged_bytes},
                        {"resident_dtypes", dtype_mask_names(ins.resident_dtypes)},
                        {"aux_dtypes", dtype_mask_names(ins.aux_dtypes)},
                        {"nonfinite_logits", ins.nonfinite_logits},
                        {"pool_backend_allocs", ins.pool_backend_allocs}};
  if (auto path = a.get("--dump")) {
    depth::write_depth_dump(*path, cfg, results);
    out["dump"] = *path;
  }
  if (json) {
    std::cout << out.dump(2) << "\n";
  } else {
    std::printf("median ms/frame (frames after the first): %.3f\n", median);
    std::printf("instruments: %s\n", out["instruments"].dump().c_str());
  }
  return ins.nonfinite_logits ? exit_code::kNonFinite : exit_code::kOk;
}

Command depth_command() {
  return {"depth", "the RVQ depth stage: codes c1..c7 per frame from the language model's hidden", kDepthUsage,
          run_depth_command};
}

}  // namespace music3::cli
