#include "engine/models/music3/depth/depth_config.h"

#include <stdexcept>

#include "engine/io/component_config.h"

namespace music3::depth {

DepthConfig DepthConfig::full() { return DepthConfig{}; }

DepthConfig DepthConfig::named(const std::string& name) {
  DepthConfig c = full();
  if (name == "full") return c;
  if (name == "mid") {
    c.hidden = 1024;
    c.heads = 4;
    c.intermediate = 1536;
    return c;
  }
  if (name == "tiny") {
    c.hidden = 64;
    c.layers = 2;
    c.heads = 4;
    c.intermediate = 128;
    c.vocab = 128;
    return c;
  }
  throw std::invalid_argument("unknown depth geometry '" + name + "' (expected full, mid or tiny)");
}

DepthConfig DepthConfig::from_component_config(const io::ComponentConfig& c) {
  if (c.class_name() != "MiniMaxMusic3RVQDepthDecoder")
    throw std::runtime_error("depth config: _class_name is '" + c.class_name() +
                             "', expected 'MiniMaxMusic3RVQDepthDecoder'");
  DepthConfig d;
  auto field = [&](const char* key, int fallback) {
    const int64_t v = c.get_int_or(key, fallback);
    if (v <= 0 || v > (1 << 20)) throw std::runtime_error(c.path() + ": " + key + " = " + std::to_string(v) + " is out of range");
    return static_cast<int>(v);
  };
  d.hidden = field("hidden_size", d.hidden);
  d.layers = field("num_layers", d.layers);
  d.heads = field("num_attention_heads", d.heads);
  d.intermediate = field("intermediate_size", d.intermediate);
  d.vocab = field("audio_vocab_size", d.vocab);
  d.codebooks = field("num_codebooks", d.codebooks);
  d.max_positions = field("max_position_embeddings", d.max_positions);
  d.validate();
  return d;
}

void DepthConfig::validate() const {
  auto fail = [&](const std::string& what) { throw std::runtime_error("depth config " + describe() + ": " + what); };
  if (hidden <= 0 || layers <= 0 || heads <= 0 || intermediate <= 0 || vocab <= 0) fail("sizes must be positive");
  if (hidden % heads) fail("hidden_size is not divisible by num_attention_heads");
  if (codebooks < 2) fail("num_codebooks must be at least 2");
  if (max_positions < codebooks) fail("max_position_embeddings is smaller than num_codebooks");
  if (hidden % 8) fail("hidden_size must be a multiple of 8 (16-byte rows)");
  if (intermediate % 8) fail("intermediate_size must be a multiple of 8 (16-byte rows)");
  if (vocab > 4096) fail("audio_vocab_size above 4096 is not supported by the sampler");
  if (top_k > vocab) fail("top_k exceeds audio_vocab_size");
}

int64_t DepthConfig::parameter_count() const {
  int64_t h = hidden, i = intermediate;
  int64_t layer = 4 * h * h + 3 * h * i + 2 * h;
  return int64_t(steps()) * vocab * h + h * h + int64_t(max_positions) * h + layers * layer + h +
         int64_t(steps()) * vocab * h;
}

std::string DepthConfig::describe() const {
  return "{hidden " + std::to_string(hidden) + ", layers " + std::to_string(layers) + ", heads " +
         std::to_string(heads) + ", intermediate " + std::to_string(intermediate) + ", vocab " +
         std::to_string(vocab) + ", codebooks " + std::to_string(codebooks) + "}";
}

}  // namespace music3::depth
