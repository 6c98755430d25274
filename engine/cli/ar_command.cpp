#include "engine/cli/ar_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/cli/args.h"
#include "engine/cli/cli_file_inputs.h"
#include "engine/cli/device_flags.h"
#include "engine/core/dtype.h"
#include "engine/core/exit_code.h"
#include "engine/core/queue.h"
#include "engine/io/safetensors.h"
#include "engine/models/music3/ar/ar_stage.h"
#include "engine/models/music3/depth/depth_loader.h"
#include "engine/models/music3/lm/lm_ids.h"
#include "engine/models/music3/lm/lm_loader.h"
#include "engine/models/music3/tokenizer/prompt_ids.h"

namespace music3::cli {

const char* const kArUsage =
    "usage: music3 ar --checkpoint DIR (--prompt TEXT --lyrics TEXT | --teacher FILE) [--duration S] [--seed S]\n"
    "                 [--device cpu|cuda] [--arm auto|host|device] [--dump FILE [--trace]] [--threads N] [--json]\n"
    "  DIR holds language_model/, rvq_depth_decoder/ and (for --prompt) tokenizer/.\n"
    "  --teacher FILE: an LM oracle golden (oracle_bridge/lm) or a pipeline trace (oracle_bridge/pipeline): its text\n"
    "  ids, recorded draws, tokens and codes\n"
    "  are replayed and fed back; --duration defaults to the trace's. --dump FILE writes frame_hiddens BF16 [F,8H],\n"
    "  tokens I32 [I] and codes I32 [D,8]; with --trace also the stage's intermediates, in loop order: prefill_hidden\n"
    "  BF16 [2,P,H], last_hidden BF16 [I,2,H], lm_logits BF16 [I,2,K], depth_hidden BF16 [D,7H], feedback BF16\n"
    "  [I-1,2,H] (scripts/repro-check compares them to name the first step where two runs part).\n"
    "  --device: where it runs, cpu (the default) or cuda.\n";

int run_ar_command(const std::vector<std::string>& argv) {
  Args a(argv, {"--checkpoint", "--prompt", "--lyrics", "--duration", "--seed", "--device", "--arm", "--teacher",
                "--dump", "--threads"},
         {"--json", "--trace"});
  if (!a.has("--checkpoint")) throw UsageError("--checkpoint DIR is required");
  const bool teaching = a.has("--teacher");
  if (teaching == (a.has("--prompt") || a.has("--lyrics")))
    throw UsageError("give either --prompt TEXT --lyrics TEXT or --teacher FILE");
  if (!teaching && !(a.has("--prompt") && a.has("--lyrics")))
    throw UsageError("--prompt TEXT and --lyrics TEXT are both required");
  const std::string dir = *a.get("--checkpoint");
  const uint64_t seed = a.get_u64_or("--seed", 0);
  const int threads = static_cast<int>(a.get_int_or("--threads", 0, 0, 1024));

  ArTeacherFile teacher;
  std::vector<int32_t> ids;
  int prompt = 0;
  double duration = 60.0;
  if (teaching) {
    teacher = read_ar_teacher(*a.get("--teacher"));
    ids = teacher.text_ids;
    prompt = int(teacher.prompt);
    duration = teacher.duration;
  } else {
    auto tok = tokenizer::Qwen2Tokenizer::from_folder(dir);
    tokenizer::check_template_tokens(tok);
    const tokenizer::PromptIds p = tokenizer::encode_prompt(tok, *a.get("--prompt"), *a.get("--lyrics"));
    ids = tokenizer::both_rows(p);
    prompt = int(p.cond.size());
  }
  if (auto d = a.get("--duration")) {
    try {
      duration = std::stod(*d);
    } catch (const std::exception&) {
      throw UsageError("--duration: '" + *d + "' is not a number of seconds");
    }
  }
  const int max_frames = ar::max_frames_for(duration);

  lm::LmLoadReport report;
  lm::LmWeights lm_weights = lm::load_lm_checkpoint(dir, &report);
  depth::DepthWeights depth_weights = depth::load_depth_checkpoint(dir);
  const Queue q = queue_from_flag(a.get_or("--device", "cpu"), threads);
  ar::ArStage stage(std::move(lm_weights), std::move(depth_weights), q,
                    arm_from_flag(a.get_or("--arm", "auto")));

  ar::ArOptions opts;
  opts.max_frames = max_frames;
  opts.draws.seed = seed;
  ar::ArTeacher trace_teacher;
  if (teaching) {
    opts.draws.lm_replay = teacher.lm_draws.data();
    opts.draws.lm_rows = int64_t(teacher.tokens.size());
    opts.draws.lm_vocab = teacher.vocab;
    opts.draws.depth_replay = teacher.depth_draws.data();
    opts.draws.depth_rows = teacher.depth_rows;
    trace_teacher = {teacher.tokens.data(), int64_t(teacher.tokens.size()), teacher.codes.data(), teacher.depth_rows};
    opts.teacher = &trace_teacher;
  }
  if (a.has("--trace") && !a.has("--dump")) throw UsageError("--trace needs --dump FILE (it adds to the dump)");
  ar::ArTrace trace;
  const bool json = a.has("--json");
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  if (isatty(STDERR_FILENO))
    opts.progress = [&](int64_t frames, int64_t) {
      std::fprintf(stderr, "\rframes %lld/%d, %.2f frames/s", static_cast<long long>(frames), max_frames,
                   double(frames) / seconds());
    };
  const ar::ArResult r = stage.run(ids.data(), prompt, opts, a.has("--trace") ? &trace : nullptr);
  const double wall = seconds();
  if (opts.progress) std::fprintf(stderr, "\n");

  nlohmann::json out;
  out["lm_arm"] = runtime::arm_name(stage.lm_arm_kind());
  out["depth_arm"] = runtime::arm_name(stage.depth().arm_kind());
  out["device"] = device_type_name(q.device);
  out["lm_config"] = stage.lm_config().describe();
  out["checkpoint"] = {{"index", report.index_path}, {"sha256", report.sha256}, {"shards", report.shards},
                       {"converted_from_f32", report.converted}};
  out["prompt_tokens"] = prompt;
  out["max_frames"] = max_frames;
  out["frames"] = r.frames;
  out["iterations"] = r.iterations;
  out["eos"] = r.eos;
  out["ar_loop"] = r.device_frame ? "device-resident" : "host-driven";
  out["tokens"] = r.tokens;
  out["seconds"] = wall;
  out["frames_per_second"] = wall > 0 ? double(r.frames) / wall : 0.0;
  out["nonfinite_logits"] = r.nonfinite_logits;
  out["lm_forwards"] = stage.lm_instruments().host_forwards + stage.lm_instruments().device_forwards;
  const auto& lm_ins = stage.lm_instruments();
  out["lm_instruments"] = {{"host_forwards", lm_ins.host_forwards},
                           {"device_forwards", lm_ins.device_forwards},
                           {"staging_count", lm_ins.staging_count},
                           {"staging_ms", lm_ins.staging_ms},
                           {"staged_bytes", lm_ins.staged_bytes},
                           {"resident_dtypes", dtype_mask_names(lm_ins.resident_dtypes)},
                           {"aux_dtypes", dtype_mask_names(lm_ins.aux_dtypes)},
                           {"pool_backend_allocs", lm_ins.pool_backend_allocs}};
  if (auto path = a.get("--dump")) {
    const int64_t H = stage.lm_config().hidden, D = int64_t(r.codes.size()) / 8;
    std::vector<io::SafetensorsEntry> tensors{
        {"frame_hiddens", DType::BF16, {r.frames, 8 * H}, r.frame_hiddens.data(),
         r.frame_hiddens.size() * sizeof(bf16)},
        {"tokens", DType::I32, {r.iterations}, r.tokens.data(), r.tokens.size() * 4},
        {"codes", DType::I32, {D, 8}, r.codes.data(), r.codes.size() * 4}};
    if (a.has("--trace")) {
      auto bf16_tensor = [](const char* name, Shape shape, const std::vector<bf16>& v) {
        return io::SafetensorsEntry{name, DType::BF16, shape, v.data(), v.size() * sizeof(bf16)};
      };
      const int64_t I = r.iterations, K = lm::kSampledColumns;
      tensors.push_back(bf16_tensor("prefill_hidden", {2, prompt, H}, trace.prefill_hidden));
      tensors.push_back(bf16_tensor("last_hidden", {I, 2, H}, trace.last_hidden));
      tensors.push_back(bf16_tensor("lm_logits", {I, 2, K}, trace.lm_logits));
      tensors.push_back(bf16_tensor("depth_hidden", {D, 7 * H}, trace.depth_hidden));
      tensors.push_back(bf16_tensor("feedback", {int64_t(trace.feedback.size()) / (2 * H), 2, H}, trace.feedback));
    }
    io::write_safetensors(*path, tensors);
    out["dump"] = *path;
    nlohmann::json shapes = nlohmann::json::object();  // what the file holds: name -> "[d0,d1,...]"
    for (const auto& t : tensors) shapes[t.name] = t.shape.str();
    out["dump_tensors"] = shapes;
  }
  if (json) {
    std::cout << out.dump(1) << "\n";
  } else {
    std::printf("ar stage: lm arm %s, depth arm %s on %s; %s\n", out["lm_arm"].get<std::string>().c_str(),
                out["depth_arm"].get<std::string>().c_str(), out["device"].get<std::string>().c_str(),
                stage.lm_config().describe().c_str());
    std::printf("prompt %d tokens, %lld frames emitted of %d (%lld iterations%s), %.3f s, %.2f frames/s\n", prompt,
                static_cast<long long>(r.frames), max_frames, static_cast<long long>(r.iterations),
                r.eos ? ", ended on <|audio_end|>" : "", wall, out["frames_per_second"].get<double>());
  }
  return r.nonfinite_logits ? exit_code::kNonFinite : exit_code::kOk;
}

Command ar_command() {
  return {"ar", "the AR stage: text to frame hiddens (Qwen3 language model and the depth stage)", kArUsage,
          run_ar_command};
}

}  // namespace music3::cli
