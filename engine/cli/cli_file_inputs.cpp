#include "engine/cli/cli_file_inputs.h"

#include <cstring>
#include <stdexcept>

#include "engine/cli/args.h"
#include "engine/core/dtype.h"
#include "engine/io/safetensors_metadata.h"
#include "engine/models/music3/lm/lm_ids.h"

namespace music3::cli {

namespace {

// The tensor's elements copied out byte-wise: a file's data section need not be aligned for T (the header length is
// not required to be a multiple of 8), so the mapping is never read through a T*.
template <class T>
std::vector<T> copy_elements(const Tensor& t) {
  std::vector<T> v(size_t(t.numel()));
  if (t.bytes()) std::memcpy(v.data(), t.data, t.bytes());
  return v;
}

template <class T>
std::vector<T> take(const io::SafetensorsFile& f, const std::string& name, DType dt, int rank) {
  const Tensor t = f.tensor(name);
  if (t.dtype != dt || t.shape.rank != rank)
    throw UsageError("--teacher " + f.path() + ": tensor '" + name + "' is " + t.describe() + ", expected " +
                     std::string(dtype_name(dt)) + " of rank " + std::to_string(rank));
  return copy_elements<T>(t);
}

}  // namespace

std::vector<bf16> read_bf16_matrix(const io::SafetensorsFile& f, const std::string& name, int64_t* rows, int64_t* cols) {
  const Tensor t = f.tensor(name);
  const bool batched = t.shape.rank == 3 && t.shape[0] == 1;
  if (t.dtype != DType::BF16 || !(batched || t.shape.rank == 2))
    throw std::runtime_error(f.path() + ": tensor '" + name + "' is " + t.describe() +
                             ", expected BF16 [rows, cols] or [1, rows, cols]");
  *rows = t.shape[batched ? 1 : 0];
  *cols = t.shape[batched ? 2 : 1];
  f.check_finite(name);
  return copy_elements<bf16>(t);
}

std::vector<std::vector<bf16>> read_noise_windows(const std::string& path) {
  io::SafetensorsFile f(path);
  std::vector<std::vector<bf16>> windows;
  for (int k = 0; f.has("window" + std::to_string(k) + ".noise"); ++k) {
    int64_t rows = 0, cols = 0;
    windows.push_back(read_bf16_matrix(f, "window" + std::to_string(k) + ".noise", &rows, &cols));
  }
  if (windows.empty()) throw std::runtime_error(f.path() + ": no tensor 'window0.noise' (--noise holds window<k>.noise)");
  return windows;
}

std::vector<bf16> read_window_latents(const io::SafetensorsFile& f, const std::string& name, int channels, int64_t* length) {
  const Tensor t = f.tensor(name);
  const bool batched = t.shape.rank == 3 && t.shape[0] == 1;
  if (!(batched || t.shape.rank == 2) || t.shape[batched ? 1 : 0] != channels)
    throw std::runtime_error(f.path() + ": tensor '" + name + "' has shape " + t.shape.str() + ", expected [1," +
                             std::to_string(channels) + ",L] or [" + std::to_string(channels) + ",L]");
  *length = t.shape[batched ? 2 : 1];
  std::vector<bf16> out;
  if (t.dtype == DType::BF16) {
    out = copy_elements<bf16>(t);
  } else if (t.dtype == DType::F32) {
    for (float x : copy_elements<float>(t)) out.push_back(to_bf16(x));
  } else {
    throw std::runtime_error(f.path() + ": tensor '" + name + "' has dtype " + std::string(dtype_name(t.dtype)) +
                             ", expected BF16 or F32");
  }
  f.check_finite(name);
  return out;
}

ArTeacherFile read_ar_teacher(const std::string& path) {
  io::SafetensorsFile f(path);
  ArTeacherFile t;
  t.text_ids = take<int32_t>(f, "text_ids", DType::I32, 2);
  t.tokens = take<int32_t>(f, "tokens", DType::I32, 1);
  t.codes = take<int32_t>(f, "codes", DType::I32, 2);
  int64_t draw_rows = 0;
  if (f.has("lm_exp_draws")) {
    t.lm_draws = take<float>(f, "lm_exp_draws", DType::F32, 2);
    t.vocab = f.tensor("lm_exp_draws").shape[1];
    draw_rows = f.tensor("lm_exp_draws").shape[0];
  } else {  // a pipeline trace (oracle_bridge/pipeline) holds the draws at the sampled columns only
    const std::vector<float> sliced = take<float>(f, "lm_exp_draws_sliced", DType::F32, 2);
    if (f.tensor("lm_exp_draws_sliced").shape[1] != lm::kSampledColumns)
      throw UsageError("--teacher " + path + ": lm_exp_draws_sliced is not [iterations, 16385]");
    draw_rows = f.tensor("lm_exp_draws_sliced").shape[0];
    t.vocab = lm::kMinVocab;
    t.lm_draws.assign(size_t(draw_rows * t.vocab), 1.0f);
    for (int64_t it = 0; it < draw_rows; ++it)
      for (int col = 0; col < lm::kSampledColumns; ++col)
        t.lm_draws[size_t(it * t.vocab + lm::column_id(col))] = sliced[size_t(it * lm::kSampledColumns + col)];
  }
  t.depth_draws = take<float>(f, "depth_exp_draws", DType::F32, 3);
  t.prompt = f.tensor("text_ids").shape[1];
  t.depth_rows = f.tensor("depth_exp_draws").shape[0];
  if (f.tensor("text_ids").shape[0] != 2 || f.tensor("codes").shape[1] != 8 || draw_rows != int64_t(t.tokens.size()) ||
      f.tensor("codes").shape[0] != t.depth_rows)
    throw UsageError("--teacher " + path + ": text_ids, tokens, codes and draws disagree in shape");
  if (f.metadata().count("audio_duration")) t.duration = io::metadata_real(f, "audio_duration");
  return t;
}

}  // namespace music3::cli
