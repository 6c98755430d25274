#include "bench/ab/generate_in_process_arm.h"

#include <chrono>
#include <stdexcept>

#include "engine/cli/device_flags.h"
#include "engine/models/music3/ar/ar_loop.h"
#include "engine/models/music3/pipeline/stage_arms.h"
#include "engine/runtime/device_pools.h"

namespace music3::bench {
namespace {

// bench/pipeline/diffusers_pipeline_peer.py's PROMPT and LYRICS.
const char* const kPrompt = "a bright synth pop song with warm female vocals";
const char* const kLyrics = "[verse]\nhello world\n[chorus]\nsing with me";

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

InProcessGenerateArm::InProcessGenerateArm(const std::string& spec, const std::string& arms, const std::string& device,
                                           const std::string& checkpoint, double duration, int steps,
                                           const ArmContext& ctx)
    : spec_(spec), checkpoint_(checkpoint), duration_(duration), steps_(steps), seed_(ctx.seed) {
  if (steps < 1) throw std::invalid_argument("arm '" + spec + "': STEPS must be at least 1");
  ar::max_frames_for(duration);  // refuses a bad duration by name
  pipeline::StageArms stage_arms;
  try {
    stage_arms = pipeline::parse_stage_arms(arms);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("arm '" + spec + "': " + e.what());
  }
  const auto t0 = std::chrono::steady_clock::now();
  models_ = std::make_unique<pipeline::PipelineModels>(checkpoint, cli::queue_from_flag(device, ctx.threads),
                                                       stage_arms);
  load_seconds_ = seconds_since(t0);
}

double InProcessGenerateArm::run_one_song() {
  pipeline::GenerateRequest request{kPrompt, kLyrics, duration_, steps_, seed_};
  request.ignore_eos = true;
  const auto t0 = std::chrono::steady_clock::now();
  const pipeline::GenerateResult g = pipeline::run_generate(*models_, request);
  const double ms = 1e3 * seconds_since(t0);
  if (g.ar.frames != g.max_frames)
    throw std::runtime_error("arm '" + spec_ + "': a song ran " + std::to_string(g.ar.frames) + " of " +
                             std::to_string(g.max_frames) + " frames");
  last_song_ = {{"ms", ms},
                {"frames", g.ar.frames},
                {"windows", g.acoustic.windows.size()},
                {"windows_during_ar", g.windows_during_ar},
                {"samples", g.audio.samples},
                {"seconds",
                 {{"text", g.seconds.text},
                  {"ar", g.seconds.ar},
                  {"acoustic", g.seconds.acoustic},
                  {"vocoder", g.seconds.vocoder},
                  {"first_window", g.seconds.first_window},
                  {"after_ar", g.seconds.after_ar}}}};
  return ms;
}

std::vector<double> InProcessGenerateArm::run_repetition(int warmup, int frames) {
  return timed_frames(warmup, frames, [this] { return run_one_song(); });
}

nlohmann::json InProcessGenerateArm::describe() const {
  const Queue& q = models_->queue();
  const DevicePool* pool = q.is_cpu() ? nullptr : runtime::shared_device_pool(q);
  nlohmann::json pool_bytes = nullptr;
  if (pool) pool_bytes = pool->stats().bytes_live + pool->stats().bytes_cached;
  return {{"kind", "in-process music3 generate (--ignore-eos), one song per timed frame"},
          {"checkpoint", checkpoint_},
          {"duration", duration_},
          {"max_frames", ar::max_frames_for(duration_)},
          {"steps", steps_},
          {"seed", seed_},
          {"arms", models_->describe_arms()},
          {"load_seconds", load_seconds_},
          {"device_pool_bytes", pool_bytes},
          {"last_song", last_song_}};
}

}  // namespace music3::bench
