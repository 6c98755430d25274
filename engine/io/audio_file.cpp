#include "engine/io/audio_file.h"

#include <sndfile.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <memory>
#include <vector>

#include "engine/io/replace_file.h"

namespace music3::io {
namespace fs = std::filesystem;

const char* audio_error_kind_name(AudioFileError::Kind k) {
  switch (k) {
    case AudioFileError::Kind::UnknownFormat: return "unknown_format";
    case AudioFileError::Kind::Exists: return "exists";
    case AudioFileError::Kind::Unwritable: return "unwritable";
    case AudioFileError::Kind::BadSamples: return "bad_samples";
  }
  return "unknown";
}

AudioFormat audio_format_from_name(const std::string& name) {
  if (name == "wav16") return AudioFormat::Wav16;
  if (name == "wav24") return AudioFormat::Wav24;
  if (name == "wav-float") return AudioFormat::WavFloat;
  if (name == "flac") return AudioFormat::Flac;
  throw AudioFileError(AudioFileError::Kind::UnknownFormat,
                       "unknown audio format '" + name + "' (expected wav16, wav24, wav-float or flac)");
}

AudioFormat audio_format_from_path(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext == ".wav") return AudioFormat::Wav16;
  if (ext == ".flac") return AudioFormat::Flac;
  throw AudioFileError(AudioFileError::Kind::UnknownFormat,
                       path + ": the extension '" + ext + "' names no audio format (use .wav or .flac, or --format)");
}

const char* audio_format_name(AudioFormat f) {
  switch (f) {
    case AudioFormat::Wav16: return "wav16";
    case AudioFormat::Wav24: return "wav24";
    case AudioFormat::WavFloat: return "wav-float";
    case AudioFormat::Flac: return "flac";
  }
  return "unknown";
}

namespace {
int sndfile_format(AudioFormat f) {
  switch (f) {
    case AudioFormat::Wav16: return SF_FORMAT_WAV | SF_FORMAT_PCM_16;
    case AudioFormat::Wav24: return SF_FORMAT_WAV | SF_FORMAT_PCM_24;
    case AudioFormat::WavFloat: return SF_FORMAT_WAV | SF_FORMAT_FLOAT;
    case AudioFormat::Flac: return SF_FORMAT_FLAC | SF_FORMAT_PCM_24;
  }
  return 0;
}
}  // namespace

void write_audio_file(const std::string& path, std::span<const float> planar, int channels, int64_t frames,
                      int sample_rate, AudioFormat format, bool force) {
  using Kind = AudioFileError::Kind;
  auto refuse = [&](Kind k, const std::string& what) { throw AudioFileError(k, path + ": " + what); };
  if (channels <= 0 || frames < 0 || planar.size() != static_cast<size_t>(channels) * static_cast<size_t>(frames))
    refuse(Kind::BadSamples, std::to_string(planar.size()) + " samples are not " + std::to_string(channels) + " x " +
                                 std::to_string(frames));
  if (sample_rate <= 0) refuse(Kind::BadSamples, "sample rate " + std::to_string(sample_rate) + " is not positive");
  const size_t ch = static_cast<size_t>(channels), n = static_cast<size_t>(frames);
  std::vector<float> interleaved(planar.size());
  for (size_t c = 0; c < ch; ++c)
    for (size_t t = 0; t < n; ++t) {
      const float v = planar[c * n + t];
      if (!std::isfinite(v))
        refuse(Kind::BadSamples, "sample at frame " + std::to_string(t) + ", channel " + std::to_string(c) + " is not finite");
      interleaved[t * ch + c] = v;
    }
  if (!force && fs::exists(path)) refuse(Kind::Exists, "exists (pass --force to replace it)");
  SF_INFO info{};
  info.samplerate = sample_rate;
  info.channels = channels;
  info.format = sndfile_format(format);
  if (!sf_format_check(&info)) refuse(Kind::BadSamples, "libsndfile rejects this format/channel/rate combination");
  try {
    replace_file(path, [&](const std::string& temp) {
      std::unique_ptr<SNDFILE, decltype(&sf_close)> file(sf_open(temp.c_str(), SFM_WRITE, &info), &sf_close);
      if (!file) throw std::runtime_error("cannot open '" + temp + "' for writing: " + sf_strerror(nullptr));
      if (format != AudioFormat::WavFloat) sf_command(file.get(), SFC_SET_CLIPPING, nullptr, SF_TRUE);
      sf_command(file.get(), SFC_SET_ADD_PEAK_CHUNK, nullptr, SF_FALSE);  // its timestamp would vary the bytes
      const sf_count_t written = sf_writef_float(file.get(), interleaved.data(), static_cast<sf_count_t>(n));
      if (written != static_cast<sf_count_t>(n))
        throw std::runtime_error("wrote " + std::to_string(written) + " of " + std::to_string(n) + " frames: " +
                                 sf_strerror(file.get()));
      if (const int err = sf_close(file.release()); err != 0)
        throw std::runtime_error(std::string("closing failed: ") + sf_error_number(err));
    });
  } catch (const AudioFileError&) {
    throw;
  } catch (const std::exception& e) {
    refuse(Kind::Unwritable, e.what());
  }
}

}  // namespace music3::io
