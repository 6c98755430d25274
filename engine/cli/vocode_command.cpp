#include "engine/cli/vocode_command.h"

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/cli/args.h"
#include "engine/cli/cli_file_inputs.h"
#include "engine/cli/command.h"
#include "engine/cli/device_flags.h"
#include "engine/core/exit_code.h"
#include "engine/core/queue.h"
#include "engine/io/audio_file.h"
#include "engine/io/safetensors.h"
#include "engine/models/music3/vocoder/vocoder_loader.h"
#include "engine/models/music3/vocoder/vocoder_selector.h"
#include "engine/models/music3/vocoder/vocoder_stitch.h"

namespace music3::cli {

const char* const kVocodeUsage =
    "usage: music3 vocode --checkpoint DIR --latents FILE --out FILE [--format wav16|wav24|wav-float|flac]\n"
    "                     [--device cpu|cuda] [--arm auto|host|device] [--threads N] [--force] [--json]\n"
    "  --device: where it runs, cpu (the default) or cuda.\n";

namespace {
int decode_and_write(const std::vector<std::string>& argv) {
  Args a(argv, {"--checkpoint", "--latents", "--out", "--format", "--device", "--arm", "--threads"}, {"--force", "--json"});
  for (const char* need : {"--checkpoint", "--latents", "--out"})
    if (!a.has(need)) throw UsageError(std::string(need) + " is required");
  const std::string out_path = *a.get("--out");
  const io::AudioFormat format =
      a.has("--format") ? io::audio_format_from_name(*a.get("--format")) : io::audio_format_from_path(out_path);
  const runtime::ArmRequest request = arm_from_flag(a.get_or("--arm", "auto"));
  const int threads = static_cast<int>(a.get_int_or("--threads", 0, 0, 1024));
  const Queue queue = queue_from_flag(a.get_or("--device", "cpu"), threads);
  vocoder::choose_vocoder_arm(queue, request);  // refuses by name before anything is loaded

  const auto t0 = std::chrono::steady_clock::now();
  vocoder::LoadReport report;
  const auto weights = vocoder::load_vocoder_checkpoint(*a.get("--checkpoint"), &report);
  io::SafetensorsFile latents(*a.get("--latents"));
  const auto arm = vocoder::make_vocoder_arm(weights, queue, request);
  std::vector<vocoder::Waveform> windows;
  std::vector<int64_t> lengths;
  for (int i = 0; latents.has("window" + std::to_string(i)); ++i) {
    int64_t length = 0;
    const auto lat = read_window_latents(latents, "window" + std::to_string(i), weights.cfg.latent_channels, &length);
    windows.push_back(arm->decode(lat.data(), length));
    lengths.push_back(length);
  }
  if (windows.empty()) throw std::runtime_error(latents.path() + ": no tensor 'window0' (windows are window0, window1, ...)");
  const auto audio = vocoder::stitch(windows);
  io::write_audio_file(out_path, audio.data, 2, audio.samples, weights.cfg.sampling_rate, format, a.has("--force"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (a.has("--json")) {
    nlohmann::json j = {{"out", out_path},           {"format", io::audio_format_name(format)},
                        {"arm", runtime::arm_name(arm->kind())},             {"windows", lengths},
                        {"samples", audio.samples},  {"sample_rate", weights.cfg.sampling_rate},
                        {"channels", 2},             {"weights_sha256", report.weights_sha256},
                        {"seconds", seconds}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << out_path << ": " << audio.samples << " stereo frames at " << weights.cfg.sampling_rate << " Hz ("
              << io::audio_format_name(format) << ") from " << windows.size() << " window(s) in " << seconds << " s\n";
  }
  return exit_code::kOk;
}

}  // namespace

int run_vocode_command(const std::vector<std::string>& argv) {
  try {
    return decode_and_write(argv);
  } catch (const io::AudioFileError& e) {  // named by its kind: unknown_format, exists, unwritable, bad_samples
    throw std::runtime_error(std::string(io::audio_error_kind_name(e.kind)) + ": " + e.what());
  }
}

Command vocode_command() {
  return {"vocode", "the vocoder: latent windows to a 44.1 kHz stereo WAV/FLAC file", kVocodeUsage, run_vocode_command};
}

}  // namespace music3::cli
