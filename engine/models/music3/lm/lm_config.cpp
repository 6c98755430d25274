#include "engine/models/music3/lm/lm_config.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/io/component_config.h"
#include "engine/models/music3/lm/lm_ids.h"

namespace music3::lm {
namespace {

[[noreturn]] void refuse(const std::string& where, const std::string& why) {
  throw std::runtime_error(where + ": " + why);
}

double rope_theta_of(const std::string& path) {
  std::ifstream f(path);
  const nlohmann::json j = nlohmann::json::parse(f, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) refuse(path, "not a JSON object");
  const auto rp = j.find("rope_parameters");
  if (rp != j.end() && !rp->is_null()) {
    if (!rp->is_object()) refuse(path, "'rope_parameters' is not an object");
    const auto type = rp->find("rope_type");
    if (type != rp->end() && !(type->is_string() && type->get<std::string>() == "default"))
      refuse(path, "'rope_parameters.rope_type' is " + type->dump() + "; only \"default\" is supported");
    const auto theta = rp->find("rope_theta");
    if (theta != rp->end() && theta->is_number()) return theta->get<double>();
    if (theta != rp->end()) refuse(path, "'rope_parameters.rope_theta' is not a number: " + theta->dump());
  }
  const auto legacy = j.find("rope_theta");
  if (legacy != j.end() && legacy->is_number()) return legacy->get<double>();
  refuse(path, "rope theta missing: neither 'rope_parameters.rope_theta' nor 'rope_theta' is set (transformers 4.x "
               "would silently use 10000; the model needs its configured value, 1e6 for the release)");
}

}  // namespace

void LmConfig::validate(const std::string& where) const {
  auto positive = [&](const char* key, int64_t v) {
    if (v <= 0) refuse(where, std::string("'") + key + "' must be positive, got " + std::to_string(v));
  };
  positive("hidden_size", hidden);
  positive("intermediate_size", intermediate);
  positive("num_hidden_layers", layers);
  positive("num_attention_heads", heads);
  positive("num_key_value_heads", kv_heads);
  positive("head_dim", head_dim);
  if (head_dim % 2) refuse(where, "'head_dim' must be even for the half-split RoPE, got " + std::to_string(head_dim));
  if (heads % kv_heads)
    refuse(where, "'num_attention_heads' (" + std::to_string(heads) + ") is not a multiple of 'num_key_value_heads' (" +
                      std::to_string(kv_heads) + ")");
  if (vocab < kMinVocab)
    refuse(where, "'vocab_size' " + std::to_string(vocab) + " is below " + std::to_string(kMinVocab) +
                      ", which the AR loop's hard-coded ids need");
  if (!(eps > 0)) refuse(where, "'rms_norm_eps' must be positive");
  if (!(rope_theta > 1)) refuse(where, "rope theta must be > 1, got " + std::to_string(rope_theta));
}

std::string LmConfig::describe() const {
  return "vocab " + std::to_string(vocab) + ", hidden " + std::to_string(hidden) + ", intermediate " +
         std::to_string(intermediate) + ", " + std::to_string(layers) + " layers, " + std::to_string(heads) + "/" +
         std::to_string(kv_heads) + " heads x " + std::to_string(head_dim) + ", rope theta " +
         std::to_string(rope_theta);
}

LmConfig LmConfig::full() { return LmConfig{}; }

LmConfig LmConfig::from_file(const std::string& path) {
  const io::ComponentConfig c(path);
  LmConfig cfg;
  cfg.vocab = c.get_int("vocab_size");
  cfg.hidden = int(c.get_int("hidden_size"));
  cfg.intermediate = int(c.get_int("intermediate_size"));
  cfg.layers = int(c.get_int("num_hidden_layers"));
  cfg.heads = int(c.get_int("num_attention_heads"));
  cfg.kv_heads = int(c.get_int_or("num_key_value_heads", cfg.heads));
  cfg.head_dim = int(c.get_int_or("head_dim", cfg.heads > 0 ? cfg.hidden / cfg.heads : 0));
  cfg.eps = float(c.get_float("rms_norm_eps"));
  cfg.max_positions = c.get_int_or("max_position_embeddings", cfg.max_positions);
  cfg.rope_theta = rope_theta_of(path);
  if (c.has("hidden_act") && c.get_string("hidden_act") != "silu")
    refuse(path, "'hidden_act' is '" + c.get_string("hidden_act") + "'; only silu is supported");
  for (const char* key : {"attention_bias", "use_sliding_window", "tie_word_embeddings"})
    if (c.has(key) && c.get_bool(key)) refuse(path, std::string("'") + key + "' is true; the engine supports false only");
  cfg.validate(path);
  return cfg;
}

}  // namespace music3::lm
