#include "engine/io/wav_writer.h"

#include <sndfile.h>

#include <cmath>
#include <memory>
#include <stdexcept>

#include "engine/io/replace_file.h"

namespace music3::io {

void write_wav(const std::string& path, std::span<const float> interleaved, int channels, int sample_rate,
               WavFormat format) {
  auto refuse = [&](const std::string& what) { throw std::invalid_argument(path + ": cannot write WAV: " + what); };
  if (channels <= 0) refuse("channel count " + std::to_string(channels) + " is not positive");
  if (sample_rate <= 0) refuse("sample rate " + std::to_string(sample_rate) + " is not positive");
  const size_t ch = static_cast<size_t>(channels);
  if (interleaved.size() % ch)
    refuse(std::to_string(interleaved.size()) + " samples are not a whole number of " + std::to_string(channels) +
           "-channel frames");
  for (size_t i = 0; i < interleaved.size(); ++i)
    if (!std::isfinite(interleaved[i]))
      refuse("sample at frame " + std::to_string(i / ch) + ", channel " + std::to_string(i % ch) + " is " +
             (std::isnan(interleaved[i]) ? "NaN" : interleaved[i] > 0 ? "+inf" : "-inf"));

  SF_INFO info{};
  info.samplerate = sample_rate;
  info.channels = channels;
  info.format = SF_FORMAT_WAV | (format == WavFormat::PCM16 ? SF_FORMAT_PCM_16 : SF_FORMAT_FLOAT);
  if (!sf_format_check(&info)) refuse("libsndfile rejects this format/channel/rate combination");
  const sf_count_t frames = static_cast<sf_count_t>(interleaved.size() / ch);

  replace_file(path, [&](const std::string& temp) {
    std::unique_ptr<SNDFILE, decltype(&sf_close)> file(sf_open(temp.c_str(), SFM_WRITE, &info), &sf_close);
    if (!file) throw std::runtime_error(path + ": cannot open '" + temp + "' for writing: " + sf_strerror(nullptr));
    if (format == WavFormat::PCM16) sf_command(file.get(), SFC_SET_CLIPPING, nullptr, SF_TRUE);
    const sf_count_t written = sf_writef_float(file.get(), interleaved.data(), frames);
    if (written != frames)
      throw std::runtime_error(path + ": wrote " + std::to_string(written) + " of " + std::to_string(frames) +
                               " frames: " + sf_strerror(file.get()));
    SNDFILE* closing = file.release();
    if (const int err = sf_close(closing); err != 0)
      throw std::runtime_error(path + ": closing the WAV failed: " + sf_error_number(err));
  });
}

}  // namespace music3::io
