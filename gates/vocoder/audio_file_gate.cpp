// Gate vocoder.audio_file: the engine's stitched buffer written as WAV 16/24-bit PCM, WAV float and FLAC reads
// back through libsndfile with the same rate, channels, frames, and samples within the format's quantization;
// named refusals (unknown format, existing file without force, unwritable folder, non-finite sample) leave no
// file behind and never touch an existing one.
#include <gtest/gtest.h>
#include <sndfile.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "engine/io/audio_file.h"
#include "engine/models/music3/vocoder/vocoder_stitch.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/vocoder/vocoder_oracle.h"

namespace music3::gates {
namespace {
namespace fs = std::filesystem;
using io::AudioFileError;
using io::AudioFormat;

fs::path scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("vocoder_audio_gate_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

const vocoder::StereoAudio& engine_audio() {
  static const vocoder::StereoAudio audio = [] {
    const int seed = 2;  // the 3-window stitching case
    const auto w = load_vocoder_case({vocoder_stitch_geometry(), seed});
    vocoder::VocoderHostArm arm(w, 0);
    std::vector<vocoder::Waveform> windows;
    for (int i = 0; i < 3; ++i) {
      const Bf16Tensor lat = read_bf16(vocoder_stitch_golden(seed), "window" + std::to_string(i));
      windows.push_back(arm.decode(lat.data.data(), lat.shape[2]));
    }
    return vocoder::stitch(windows);
  }();
  return audio;
}

TEST(VocoderAudioFile, RoundTripsThroughLibsndfile) {
  const auto& a = engine_audio();
  ASSERT_GT(a.samples, 0);
  // Bounds: PCM quantization is half a step plus libsndfile's 32767-vs-32768 scale mismatch (< 1 step in all);
  // float is exact. A wrong-format or channel-swapped writer misses them by orders of magnitude.
  const struct {
    const char* file;
    AudioFormat format;
    int major;
    double bound;
  } cases[] = {{"a16.wav", AudioFormat::Wav16, SF_FORMAT_WAV, 1.0 / 32768},
               {"a24.wav", AudioFormat::Wav24, SF_FORMAT_WAV, 1.0 / 8388608},
               {"af.wav", AudioFormat::WavFloat, SF_FORMAT_WAV, 0.0},
               {"a.flac", AudioFormat::Flac, SF_FORMAT_FLAC, 1.0 / 8388608}};
  for (const auto& c : cases) {
    const std::string path = (scratch() / c.file).string();
    io::write_audio_file(path, a.data, 2, a.samples, 44100, c.format, false);
    SF_INFO info{};
    SNDFILE* f = sf_open(path.c_str(), SFM_READ, &info);
    ASSERT_NE(f, nullptr) << path << ": " << sf_strerror(nullptr);
    std::vector<float> back(static_cast<size_t>(info.frames * info.channels));
    const sf_count_t got = sf_readf_float(f, back.data(), info.frames);
    sf_close(f);
    EXPECT_EQ(info.samplerate, 44100) << c.file;
    EXPECT_EQ(info.channels, 2) << c.file;
    EXPECT_EQ(info.frames, a.samples) << c.file;
    EXPECT_EQ(got, a.samples) << c.file;
    EXPECT_EQ(info.format & SF_FORMAT_TYPEMASK, c.major) << c.file;
    double worst = 0;
    for (int64_t t = 0; t < a.samples; ++t)
      for (int ch = 0; ch < 2; ++ch)
        worst = std::max(worst, std::fabs(double(back[size_t(t * 2 + ch)]) - a.data[size_t(ch * a.samples + t)]));
    record("vocoder.audio_file", c.file, "max_abs_error", worst, c.bound);
    EXPECT_LE(worst, c.bound) << c.file;
  }
}

TEST(VocoderAudioFile, NamedRefusalsLeaveNoPartialFile) {
  const auto& a = engine_audio();
  const std::string kept = (scratch() / "kept.wav").string();
  std::ofstream(kept) << "previous";
  auto kind_of = [](auto&& fn) {
    try {
      fn();
    } catch (const AudioFileError& e) {
      return std::string(io::audio_error_kind_name(e.kind));
    }
    return std::string("none");
  };
  EXPECT_EQ(kind_of([&] { io::audio_format_from_path("song.mp3"); }), "unknown_format");
  EXPECT_EQ(kind_of([&] { io::audio_format_from_name("ogg"); }), "unknown_format");
  EXPECT_EQ(io::audio_format_from_path("X.FLAC"), AudioFormat::Flac);
  EXPECT_EQ(kind_of([&] { io::write_audio_file(kept, a.data, 2, a.samples, 44100, AudioFormat::Wav16, false); }), "exists");
  std::ifstream in(kept);
  std::string previous((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(previous, "previous");
  const std::string nowhere = (scratch() / "no_such_folder" / "x.wav").string();
  EXPECT_EQ(kind_of([&] { io::write_audio_file(nowhere, a.data, 2, a.samples, 44100, AudioFormat::Wav16, false); }),
            "unwritable");
  std::vector<float> bad(a.data.begin(), a.data.end());
  bad[static_cast<size_t>(a.samples + 3)] = NAN;
  const std::string fresh = (scratch() / "fresh.wav").string();
  EXPECT_EQ(kind_of([&] { io::write_audio_file(fresh, bad, 2, a.samples, 44100, AudioFormat::Wav16, false); }), "bad_samples");
  EXPECT_FALSE(fs::exists(fresh));
  io::write_audio_file(kept, a.data, 2, a.samples, 44100, AudioFormat::Wav16, true);  // --force replaces it
  EXPECT_GT(fs::file_size(kept), 44u);
  size_t leftovers = 0;
  for (const auto& e : fs::directory_iterator(scratch())) leftovers += e.path().filename().string().find(".tmp") != std::string::npos;
  EXPECT_EQ(leftovers, 0u);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) {
  const int rc = music3::gates::gate_main(argc, argv);
  std::filesystem::remove_all(music3::gates::scratch());
  return rc;
}
