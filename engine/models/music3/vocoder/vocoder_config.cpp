#include "engine/models/music3/vocoder/vocoder_config.h"

#include <stdexcept>

#include "engine/io/component_config.h"

namespace music3::vocoder {

int transposed_padding(int stride) { return (stride + 1) / 2; }

VocoderConfig VocoderConfig::full() { return VocoderConfig{}; }

int64_t VocoderConfig::hop() const {
  int64_t h = 1;
  for (int r : ratios) h *= r;
  return h;
}

int64_t VocoderConfig::output_length(int64_t latents) const {
  int64_t n = latents;
  for (int s : ratios) n = n * s + s - 2 * transposed_padding(s);
  return n;
}

VocoderConfig VocoderConfig::from_component_config(const io::ComponentConfig& c) {
  if (c.class_name() != "MiniMaxMusic3Vocoder")
    throw std::runtime_error(c.path() + ": _class_name is '" + c.class_name() + "', expected 'MiniMaxMusic3Vocoder'");
  VocoderConfig v;
  auto field = [&](const char* key, int fallback) {
    const int64_t x = c.get_int_or(key, fallback);
    if (x <= 0 || x > (1 << 20)) throw std::runtime_error(c.path() + ": " + key + " = " + std::to_string(x) + " is out of range");
    return static_cast<int>(x);
  };
  v.latent_channels = field("latent_channels", v.latent_channels);
  v.input_dim = field("decoder_input_dim", v.input_dim);
  v.hidden_dim = field("decoder_hidden_dim", v.hidden_dim);
  v.sampling_rate = field("sampling_rate", v.sampling_rate);
  if (c.has("upsampling_ratios")) {
    v.ratios.clear();
    for (int64_t r : c.get_int_list("upsampling_ratios")) {
      if (r < 1 || r > 64)
        throw std::runtime_error(c.path() + ": upsampling_ratios holds " + std::to_string(r) + ", outside [1, 64]");
      v.ratios.push_back(static_cast<int>(r));
    }
  }
  v.validate();
  return v;
}

void VocoderConfig::validate() const {
  auto fail = [&](const std::string& what) { throw std::runtime_error("vocoder config " + describe() + ": " + what); };
  if (latent_channels % 2) fail("latent_channels must be even (two stereo streams of equal width)");
  if (ratios.empty() || ratios.size() > 8) fail("upsampling_ratios must hold 1 to 8 strides");
  for (int r : ratios)
    if (r < 1) fail("every upsampling ratio must be at least 1");
  if ((hidden_dim >> blocks()) == 0 || hidden_dim % (1 << blocks()))
    fail("decoder_hidden_dim must halve exactly once per up-block");
}

std::string VocoderConfig::describe() const {
  std::string r;
  for (size_t i = 0; i < ratios.size(); ++i) {
    if (i) r += ",";
    r += std::to_string(ratios[i]);
  }
  return "{latent_channels " + std::to_string(latent_channels) + ", decoder_input_dim " + std::to_string(input_dim) +
         ", decoder_hidden_dim " + std::to_string(hidden_dim) + ", upsampling_ratios [" + r + "]}";
}

}  // namespace music3::vocoder
