// Audio files through libsndfile: WAV 16-bit PCM, WAV 24-bit PCM, WAV 32-bit float and FLAC (24-bit).
// Contract: write_audio_file() writes `channels` planar f32 streams of `frames` samples each ([channel][frame])
// at `sample_rate` Hz. PCM and FLAC clip to [-1, 1] and quantize as libsndfile does; float is bit exact. The
// file is written to a temporary sibling and renamed, so a failure never leaves a partial file. The same samples
// give the same bytes (no PEAK chunk, whose timestamp would differ run to run). Refusals throw
// AudioFileError whose kind names the problem: UnknownFormat (a name or extension outside the table), Exists
// (the target exists and `force` is false), Unwritable (the folder cannot take the temporary or the rename),
// BadSamples (no channels, a rate <= 0, a sample that is not finite: its frame and channel are named).
// audio_format_from_name: "wav16" | "wav24" | "wav-float" | "flac"; audio_format_from_path: ".wav" -> wav16,
// ".flac" -> flac (case-insensitive). Stateless; safe from any thread for different paths.
#pragma once
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

namespace music3::io {

enum class AudioFormat { Wav16, Wav24, WavFloat, Flac };

class AudioFileError : public std::runtime_error {
 public:
  enum class Kind { UnknownFormat, Exists, Unwritable, BadSamples };
  AudioFileError(Kind kind, const std::string& what) : std::runtime_error(what), kind(kind) {}
  Kind kind;
};
const char* audio_error_kind_name(AudioFileError::Kind k);  // "unknown_format", "exists", ...

AudioFormat audio_format_from_name(const std::string& name);
AudioFormat audio_format_from_path(const std::string& path);
const char* audio_format_name(AudioFormat f);

void write_audio_file(const std::string& path, std::span<const float> planar, int channels, int64_t frames,
                      int sample_rate, AudioFormat format, bool force);

}  // namespace music3::io
