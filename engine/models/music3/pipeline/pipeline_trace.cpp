#include "engine/models/music3/pipeline/pipeline_trace.h"

#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/io/safetensors_metadata.h"
#include "engine/models/music3/lm/lm_ids.h"

namespace music3::pipeline {

namespace {

// Counts in the trace metadata (steps, frames, iterations, windows) fit an int with room for the +1 of sigmas.
constexpr int64_t kMaxCount = 1 << 30;

template <class T>
std::vector<T> take(const io::SafetensorsFile& f, const std::string& name, DType dtype, const Shape& shape) {
  const Tensor t = f.require(name, dtype, shape);
  std::vector<T> v(size_t(t.numel()));
  if (t.bytes()) std::memcpy(v.data(), t.data, t.bytes());
  return v;
}

std::vector<int64_t> meta_list(const io::SafetensorsFile& f, const std::string& key) {
  const auto j = nlohmann::json::parse(io::metadata_text(f, key), nullptr, false);
  if (!j.is_array()) throw std::runtime_error(f.path() + ": trace metadata '" + key + "' is not a JSON list");
  std::vector<int64_t> v;
  for (const auto& x : j) {
    if (!x.is_number_integer()) throw std::runtime_error(f.path() + ": trace metadata '" + key + "' holds a non-integer");
    v.push_back(x.get<int64_t>());
  }
  return v;
}

}  // namespace

PipelineTrace read_pipeline_trace(const std::string& path) {
  auto file = std::make_shared<io::SafetensorsFile>(path);
  const io::SafetensorsFile& f = *file;
  PipelineTrace t;
  t.path = path;
  t.file = file;
  t.case_name = io::metadata_text(f, "case");
  t.geometry = io::metadata_text(f, "geometry");
  t.prompt = io::metadata_text(f, "prompt");
  t.lyrics = io::metadata_text(f, "lyrics");
  t.audio_duration = io::metadata_real(f, "audio_duration");
  t.steps = int(io::metadata_int(f, "steps", 1, kMaxCount));
  t.max_frames = int(io::metadata_int(f, "max_frames", 0, kMaxCount));
  t.iterations = io::metadata_int(f, "iterations", 0, kMaxCount);
  t.frames = io::metadata_int(f, "frames", 0, kMaxCount);
  t.eos = io::metadata_int(f, "eos", 0, 1) != 0;
  t.depth_frames = t.iterations - (t.eos ? 1 : 0);
  t.prompt_length = f.tensor("text_ids").shape[1];
  t.frame_width = f.tensor("frame_hiddens").shape[1];
  t.audio_vocab = f.tensor("depth_exp_draws").shape[2];
  const int64_t K = lm::kSampledColumns, I = t.iterations, D = t.depth_frames, A = t.audio_vocab;
  t.text_ids = take<int32_t>(f, "text_ids", DType::I32, Shape{2, t.prompt_length});
  t.tokens = take<int32_t>(f, "tokens", DType::I32, Shape{I});
  t.codes = take<int32_t>(f, "codes", DType::I32, Shape{D, 8});
  t.lm_draws_sliced = take<float>(f, "lm_exp_draws_sliced", DType::F32, Shape{I, K});
  t.depth_draws = take<float>(f, "depth_exp_draws", DType::F32, Shape{D, 7, A});
  t.guided = take<float>(f, "guided", DType::F32, Shape{I, K});
  t.depth_guided = take<float>(f, "depth_guided", DType::F32, Shape{D, 7, A});
  t.lm_logits = take<bf16>(f, "lm_logits", DType::BF16, Shape{I, 2, K});
  t.frame_hiddens = take<bf16>(f, "frame_hiddens", DType::BF16, Shape{t.frames, t.frame_width});
  const std::vector<int64_t> starts = meta_list(f, "chunk_starts"), lengths = meta_list(f, "latent_lengths");
  if (starts.size() != lengths.size() || int64_t(starts.size()) != io::metadata_int(f, "windows", 0, kMaxCount) || starts.empty())
    throw std::runtime_error(path + ": trace metadata windows, chunk_starts and latent_lengths disagree");
  t.latent_channels = f.tensor("window0").shape[0];
  const int64_t C = t.latent_channels;
  for (size_t k = 0; k < starts.size(); ++k) {
    const std::string s = std::to_string(k);
    TraceWindow w;
    w.start_frame = starts[k];
    w.latent_length = lengths[k];
    const int64_t L = w.latent_length;
    const int64_t cond_channels = f.tensor("cond.k" + s).shape[1];
    w.condition = take<bf16>(f, "cond.k" + s, DType::BF16, Shape{L, cond_channels});
    w.noise = take<bf16>(f, "noise.k" + s, DType::BF16, Shape{C, L});
    w.sigmas = take<float>(f, "sigmas.k" + s, DType::F32, Shape{int64_t(t.steps) + 1});
    w.latents = take<bf16>(f, "window" + s, DType::BF16, Shape{C, L});
    const int64_t samples = f.tensor("waveform.k" + s).shape[1];
    w.waveform = take<bf16>(f, "waveform.k" + s, DType::BF16, Shape{2, samples});
    t.windows.push_back(std::move(w));
  }
  t.samples = f.tensor("audio").shape[1];
  t.audio = take<float>(f, "audio", DType::F32, Shape{2, t.samples});
  return t;
}

std::vector<bf16> PipelineTrace::step(int64_t window, int step, const std::string& what) const {
  const std::string name = "step.k" + std::to_string(window) + ".s" + std::to_string(step) + "." + what;
  return take<bf16>(*file, name, DType::BF16, Shape{latent_channels, windows.at(size_t(window)).latent_length});
}

std::vector<float> PipelineTrace::lm_draws_full_vocab(int64_t vocab) const {
  if (vocab < lm::kMinVocab) throw std::invalid_argument("lm_draws_full_vocab: vocabulary " + std::to_string(vocab) +
                                                         " is smaller than the sampled ids");
  std::vector<float> full(size_t(iterations * vocab), 1.0f);
  for (int64_t it = 0; it < iterations; ++it)
    for (int col = 0; col < lm::kSampledColumns; ++col)
      full[size_t(it * vocab + lm::column_id(col))] = lm_draws_sliced[size_t(it * lm::kSampledColumns + col)];
  return full;
}

}  // namespace music3::pipeline
