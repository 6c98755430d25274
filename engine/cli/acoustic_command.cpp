#include "engine/cli/acoustic_command.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/cli/args.h"
#include "engine/cli/cli_file_inputs.h"
#include "engine/cli/command.h"
#include "engine/cli/device_flags.h"
#include "engine/core/exit_code.h"
#include "engine/io/safetensors.h"
#include "engine/models/music3/acoustic/acoustic_selector.h"
#include "engine/models/music3/acoustic/acoustic_stage.h"
#include "engine/models/music3/acoustic/acoustic_windows.h"
#include "engine/models/music3/acoustic/condition_encoder_loader.h"
#include "engine/models/music3/acoustic/dit_loader.h"

namespace music3::cli {

const char* const kAcousticUsage =
    "usage: music3 acoustic --checkpoint DIR --frames FILE [--steps N] [--seed S] [--noise FILE]\n"
    "                       [--device cpu|cuda] [--arm auto|host|device] [--dump FILE] [--threads N] [--json]\n"
    "  DIR holds condition_encoder/ and transformer/ (diffusers layout, stored f32, run in bf16).\n"
    "  --frames FILE: frame_hiddens BF16 [F, 8H] or [1, F, 8H] (what `music3 ar --dump` writes).\n"
    "  --steps N: Euler steps per window (default 30). --seed S: the noise generator's key (default 0).\n"
    "  --noise FILE: window<k>.noise BF16 [C, L] or [1, C, L] per window (an oracle trace or an earlier --dump)\n"
    "  instead of drawn noise. --dump FILE: window<k> BF16 [C, L] (the input of `music3 vocode --latents`) and\n"
    "  window<k>.noise.\n"
    "  --device: where it runs, cpu (the default) or cuda.\n";

namespace {

acoustic::NoiseSource noise_from(const Args& a) {
  if (!a.has("--noise")) return acoustic::NoiseSource::drawn(a.get_u64_or("--seed", 0));
  return acoustic::NoiseSource::recorded(read_noise_windows(*a.get("--noise")));
}

}  // namespace

int run_acoustic_command(const std::vector<std::string>& argv) {
  Args a(argv, {"--checkpoint", "--frames", "--steps", "--seed", "--noise", "--device", "--arm", "--dump", "--threads"},
         {"--json"});
  for (const char* need : {"--checkpoint", "--frames"})
    if (!a.has(need)) throw UsageError(std::string(need) + " is required");
  if (a.has("--noise") && a.has("--seed")) throw UsageError("--seed keys drawn noise; it has no use with --noise");
  const int steps = static_cast<int>(a.get_int_or("--steps", 30, 1, 1000));
  const int threads = static_cast<int>(a.get_int_or("--threads", 0, 0, 1024));
  const Queue queue = queue_from_flag(a.get_or("--device", "cpu"), threads);
  const runtime::ArmRequest request = arm_from_flag(a.get_or("--arm", "auto"));

  io::SafetensorsFile frames_file(*a.get("--frames"));
  int64_t frames = 0, width = 0;
  const std::vector<bf16> hiddens = read_bf16_matrix(frames_file, "frame_hiddens", &frames, &width);
  const acoustic::NoiseSource noise = noise_from(a);

  const std::string dir = *a.get("--checkpoint");
  acoustic::AcousticLoadReport enc_report, dit_report;
  const auto enc_w = acoustic::load_condition_encoder(dir, &enc_report);
  const auto dit_w = acoustic::load_dit(dir, &dit_report);
  if (enc_w.cfg.frame_width() != width)
    throw std::runtime_error("geometry: " + frames_file.path() + ": frame_hiddens rows are " + std::to_string(width) +
                             " wide, the condition encoder takes " + std::to_string(enc_w.cfg.frame_width()));
  for (int64_t start : acoustic::window_starts(frames)) {
    const int64_t n = acoustic::window_frames(start, frames);
    if (enc_w.cfg.latent_length(n) != acoustic::latent_length(n))
      throw std::runtime_error("geometry: the condition encoder's rates (" + enc_w.cfg.describe() +
                               ") give a latent length other than the release's 25 Hz -> 44.1 kHz / 512");
  }
  runtime::ArmInstruments enc_ins, dit_ins;  // outlive the arms
  const auto encoder = acoustic::make_condition_encoder_arm(enc_w, queue, request, enc_ins);
  const auto dit = acoustic::make_dit_arm(dit_w, queue, request, dit_ins);

  acoustic::AcousticOptions opts;
  opts.steps = steps;
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  if (isatty(STDERR_FILENO))
    opts.progress = [&](int64_t window, int64_t windows, int step, int total) {
      std::fprintf(stderr, "\rwindow %lld/%lld, step %d/%d, %.2f s", static_cast<long long>(window + 1),
                   static_cast<long long>(windows), step + 1, total, seconds());
    };
  const acoustic::AcousticResult r =
      acoustic::run_acoustic(*encoder, *dit, hiddens.data(), frames, width, noise, opts);
  const double wall = seconds();
  if (opts.progress) std::fprintf(stderr, "\n");

  int64_t nonfinite = 0, total_steps = 0;
  nlohmann::json windows = nlohmann::json::array();
  for (const auto& w : r.windows) {
    for (bf16 v : w.latents) nonfinite += !std::isfinite(to_f32(v));
    total_steps += steps;
    windows.push_back({{"start", w.start}, {"frames", w.frames}, {"length", w.length}, {"overlap", w.overlap}});
  }
  nlohmann::json out = {{"frames", frames},
                        {"steps", steps},
                        {"noise", noise.is_recorded() ? "recorded" : "drawn"},
                        {"windows", windows},
                        {"latent_channels", r.channels},
                        {"encoder_arm", runtime::arm_name(encoder->kind())},
                        {"dit_arm", runtime::arm_name(dit->kind())},
                        {"device", device_type_name(queue.device)},
                        {"encoder", {{"config", enc_w.cfg.describe()}, {"sha256", enc_report.weights_sha256}}},
                        {"dit", {{"config", dit_w.cfg.describe()}, {"sha256", dit_report.weights_sha256}}},
                        {"dit_forwards", dit->forwards()},
                        {"staged_bytes", enc_ins.staged_bytes + dit_ins.staged_bytes},
                        {"staging_ms", enc_ins.staging_ms + dit_ins.staging_ms},
                        {"seconds", wall},
                        {"seconds_per_step", total_steps ? wall / double(total_steps) : 0.0},
                        {"nonfinite_latents", nonfinite}};
  if (!noise.is_recorded()) out["seed"] = a.get_u64_or("--seed", 0);
  if (auto path = a.get("--dump")) {
    std::vector<std::vector<bf16>> noises;
    std::vector<io::SafetensorsEntry> entries;
    for (size_t k = 0; k < r.windows.size(); ++k) noises.push_back(noise.window_noise(int64_t(k), r.channels, r.windows[k].length));
    for (size_t k = 0; k < r.windows.size(); ++k) {
      const auto& w = r.windows[k];
      const size_t bytes = w.latents.size() * sizeof(bf16);
      entries.push_back({"window" + std::to_string(k), DType::BF16, {r.channels, w.length}, w.latents.data(), bytes});
      entries.push_back({"window" + std::to_string(k) + ".noise", DType::BF16, {r.channels, w.length},
                         noises[k].data(), bytes});
    }
    io::write_safetensors(*path, entries);
    out["dump"] = *path;
  }
  if (a.has("--json")) {
    std::cout << out.dump(1) << "\n";
  } else {
    std::printf("acoustic stage: encoder arm %s, DiT arm %s on %s; %lld frames in %zu window(s), %d steps, %s noise\n",
                out["encoder_arm"].get<std::string>().c_str(), out["dit_arm"].get<std::string>().c_str(),
                out["device"].get<std::string>().c_str(), static_cast<long long>(frames), r.windows.size(), steps,
                out["noise"].get<std::string>().c_str());
    std::printf("%.3f s, %.4f s per guided step, %lld non-finite latents\n", wall,
                out["seconds_per_step"].get<double>(), static_cast<long long>(nonfinite));
  }
  return nonfinite ? exit_code::kNonFinite : exit_code::kOk;
}

Command acoustic_command() {
  return {"acoustic", "the acoustic stage: frame hiddens to latent windows (condition encoder, DiT, Euler with CFG)",
          kAcousticUsage, run_acoustic_command};
}

}  // namespace music3::cli
