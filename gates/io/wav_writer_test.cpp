// write_wav: what is written reads back through libsndfile with the same rate,
// channels, frames and samples (float exact; PCM16 within quantisation, clipped),
// and bad requests are refused by name without leaving a file behind.
#include <gtest/gtest.h>
#include <sndfile.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "engine/io/wav_writer.h"
#include "gates/io/io_test_support.h"

namespace music3::io {
namespace {

using namespace music3::io::testing;

struct ReadBack {
  SF_INFO info{};
  std::vector<float> samples;
};

ReadBack read_wav(const std::string& path) {
  ReadBack r;
  SNDFILE* f = sf_open(path.c_str(), SFM_READ, &r.info);
  if (!f) throw std::runtime_error("test: cannot read back " + path + ": " + sf_strerror(nullptr));
  r.samples.resize(static_cast<size_t>(r.info.frames * r.info.channels));
  const sf_count_t got = sf_readf_float(f, r.samples.data(), r.info.frames);
  sf_close(f);
  if (got != r.info.frames) throw std::runtime_error("test: short read of " + path);
  return r;
}

// A stereo sweep: left and right differ, and every value lies in (-1, 1).
std::vector<float> stereo_signal(int frames) {
  std::vector<float> s;
  for (int i = 0; i < frames; ++i) {
    s.push_back(0.8f * std::sin(0.01f * float(i)));
    s.push_back(-0.5f * std::cos(0.003f * float(i)) + 1e-7f * float(i));
  }
  return s;
}

TEST(WavWriter, FloatRoundTripIsExact) {
  ScratchDir dir;
  const std::string path = dir.file("out.wav");
  const auto s = stereo_signal(4410);
  write_wav(path, s, 2, 44100, WavFormat::Float32);
  const ReadBack r = read_wav(path);
  EXPECT_EQ(r.info.samplerate, 44100);
  EXPECT_EQ(r.info.channels, 2);
  EXPECT_EQ(r.info.frames, 4410);
  EXPECT_EQ(r.info.format, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  EXPECT_EQ(r.samples, s);
}

TEST(WavWriter, Pcm16RoundTripIsWithinQuantisation) {
  ScratchDir dir;
  const std::string path = dir.file("out.wav");
  const auto s = stereo_signal(1000);
  write_wav(path, s, 2, 24000, WavFormat::PCM16);
  const ReadBack r = read_wav(path);
  EXPECT_EQ(r.info.samplerate, 24000);
  EXPECT_EQ(r.info.channels, 2);
  EXPECT_EQ(r.info.frames, 1000);
  EXPECT_EQ(r.info.format, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  ASSERT_EQ(r.samples.size(), s.size());
  for (size_t i = 0; i < s.size(); ++i) EXPECT_NEAR(r.samples[i], s[i], 2.0 / 32768) << "sample " << i;
}

TEST(WavWriter, Pcm16ClipsOutOfRangeSamples) {
  ScratchDir dir;
  const std::string path = dir.file("clip.wav");
  const std::vector<float> s = {1.5f, -3.0f, 0.25f};
  write_wav(path, s, 1, 8000, WavFormat::PCM16);
  const ReadBack r = read_wav(path);
  ASSERT_EQ(r.samples.size(), 3u);
  EXPECT_NEAR(r.samples[0], 1.0f, 2.0 / 32768);
  EXPECT_NEAR(r.samples[1], -1.0f, 2.0 / 32768);
  EXPECT_NEAR(r.samples[2], 0.25f, 2.0 / 32768);
}

TEST(WavWriter, AnyChannelCount) {
  ScratchDir dir;
  const std::string path = dir.file("six.wav");
  std::vector<float> s(6 * 10);
  for (size_t i = 0; i < s.size(); ++i) s[i] = float(i % 6) / 8.0f;
  write_wav(path, s, 6, 48000, WavFormat::Float32);
  const ReadBack r = read_wav(path);
  EXPECT_EQ(r.info.channels, 6);
  EXPECT_EQ(r.samples, s);
}

TEST(WavWriter, RefusesBadRequests) {
  ScratchDir dir;
  const std::string path = dir.file("bad.wav");
  const std::vector<float> three = {0.1f, 0.2f, 0.3f};
  EXPECT_FILE_ERROR(path, write_wav(path, three, 2, 44100, WavFormat::Float32),
                    "3 samples are not a whole number of 2-channel frames");
  EXPECT_FILE_ERROR(path, write_wav(path, three, 0, 44100, WavFormat::Float32), "channel count 0 is not positive");
  EXPECT_FILE_ERROR(path, write_wav(path, three, 1, -5, WavFormat::PCM16), "sample rate -5 is not positive");
  const std::vector<float> bad = {0.1f, 0.2f, 0.3f, NAN};
  EXPECT_FILE_ERROR(path, write_wav(path, bad, 2, 44100, WavFormat::PCM16), "frame 1, channel 1 is NaN");
  const std::vector<float> inf = {INFINITY, 0.0f};
  EXPECT_FILE_ERROR(path, write_wav(path, inf, 2, 44100, WavFormat::Float32), "frame 0, channel 0 is +inf");
  EXPECT_FALSE(std::filesystem::exists(path));
  const std::string nowhere = dir.file("no/such/dir/out.wav");
  EXPECT_FILE_ERROR(nowhere, write_wav(nowhere, three, 1, 44100, WavFormat::Float32), "cannot create temporary file");
}

TEST(WavWriter, FailedWriteKeepsThePreviousFile) {
  ScratchDir dir;
  const std::string path = dir.file("keep.wav");
  const auto s = stereo_signal(100);
  write_wav(path, s, 2, 44100, WavFormat::Float32);
  const std::string before = read_bytes(path);
  const std::vector<float> bad = {0.0f, NAN};
  EXPECT_FILE_ERROR(path, write_wav(path, bad, 2, 44100, WavFormat::Float32), "is NaN");
  EXPECT_EQ(read_bytes(path), before);
  // A target that is a directory fails at the rename, after libsndfile wrote the data.
  const std::string blocked = dir.file("blocked.wav");
  std::filesystem::create_directory(blocked);
  EXPECT_FILE_ERROR(blocked, write_wav(blocked, s, 2, 44100, WavFormat::Float32), "cannot rename temporary file");
  EXPECT_TRUE(std::filesystem::is_directory(blocked));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.dir()), {}), 2) << "a temporary file was left behind";
}

}  // namespace
}  // namespace music3::io
