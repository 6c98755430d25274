#include "gates/lm/lm_oracle.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/io/safetensors.h"
#include "engine/models/music3/lm/lm_ids.h"
#include "gates/lib/oracle_paths.h"

namespace music3::gates {
namespace {

const nlohmann::json& lm_manifest() { return oracle_manifest("lm"); }

template <class T>
std::vector<T> take(const io::SafetensorsFile& f, const std::string& name, DType dt, const Shape& shape) {
  const Tensor t = f.require(name, dt, shape);
  std::vector<T> v(static_cast<size_t>(t.numel()));
  if (t.bytes()) std::memcpy(v.data(), t.data, t.bytes());
  return v;
}

int64_t meta_int(const io::SafetensorsFile& f, const std::string& key) {
  auto it = f.metadata().find(key);
  if (it == f.metadata().end()) throw std::runtime_error(f.path() + ": no metadata '" + key + "'");
  return std::stoll(it->second);
}

}  // namespace

std::string lm_oracle_dir() {
  const char* v = std::getenv("MUSIC3_LM_ORACLE_DIR");
  return v && *v ? v : MUSIC3_DEFAULT_LM_ORACLE_DIR;
}

std::vector<LmCase> lm_cases() {
  std::vector<LmCase> cases;
  for (const auto& g : lm_manifest().at("geometries").items())
    for (const auto& s : lm_manifest().at("seeds")) cases.push_back({g.key(), s.get<int>()});
  return cases;
}

std::string lm_checkpoint_dir(const LmCase& c) {
  return lm_oracle_dir() + "/checkpoints/" + c.geometry + "/seed" + std::to_string(c.seed);
}

std::vector<float> LmGolden::sliced_draws(int64_t iteration) const {
  std::vector<float> out(lm::kSampledColumns);
  for (int col = 0; col < lm::kSampledColumns; ++col)
    out[size_t(col)] = lm_exp_draws[size_t(iteration * vocab + lm::column_id(col))];
  return out;
}

LmGolden read_lm_golden(const LmCase& c) {
  const std::string path = lm_oracle_dir() + "/goldens/" + c.geometry + "/seed" + std::to_string(c.seed) +
                           ".safetensors";
  io::SafetensorsFile f(path);
  LmGolden g;
  g.iterations = meta_int(f, "iterations");
  g.frames = meta_int(f, "frames");
  g.max_frames = int(meta_int(f, "max_frames"));
  g.eos = meta_int(f, "eos") != 0;
  g.audio_duration = std::stod(f.metadata().at("audio_duration"));
  g.depth_frames = g.iterations - (g.eos ? 1 : 0);
  const Tensor ids = f.tensor("text_ids"), ph = f.tensor("prefill_hidden"), dd = f.tensor("depth_exp_draws"),
               fb = f.tensor("feedback"), lx = f.tensor("lm_exp_draws");
  g.prompt = ids.shape[1];
  g.hidden = ph.shape[2];
  g.vocab = lx.shape[1];
  g.audio_vocab = dd.shape[2];
  const int64_t I = g.iterations, D = g.depth_frames, H = g.hidden, K = lm::kSampledColumns, P = g.prompt;
  g.text_ids = take<int32_t>(f, "text_ids", DType::I32, {2, P});
  g.lm_exp_draws = take<float>(f, "lm_exp_draws", DType::F32, {I, g.vocab});
  g.depth_exp_draws = take<float>(f, "depth_exp_draws", DType::F32, {D, 7, g.audio_vocab});
  g.prefill_hidden = take<bf16>(f, "prefill_hidden", DType::BF16, {2, P, H});
  g.last_hidden = take<bf16>(f, "last_hidden", DType::BF16, {I, 2, H});
  g.feedback = take<bf16>(f, "feedback", DType::BF16, {fb.shape[0], 2, H});
  g.lm_logits = take<bf16>(f, "lm_logits", DType::BF16, {I, 2, K});
  g.guided = take<float>(f, "guided", DType::F32, {I, K});
  g.lm_probs = take<float>(f, "lm_probs", DType::F32, {I, K});
  g.tokens = take<int32_t>(f, "tokens", DType::I32, {I});
  g.codes = take<int32_t>(f, "codes", DType::I32, {D, 8});
  g.depth_hidden = take<bf16>(f, "depth_hidden", DType::BF16, {D, 7 * H});
  g.depth_guided = take<float>(f, "depth_guided", DType::F32, {D, 7, g.audio_vocab});
  g.frame_hiddens = take<bf16>(f, "frame_hiddens", DType::BF16, {g.frames, 8 * H});
  return g;
}

}  // namespace music3::gates
