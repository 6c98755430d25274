// Audio out: interleaved f32 samples to a WAV file via libsndfile.
// Contract: write_wav() writes frames = samples.size() / channels frames of
// `channels` interleaved channels at `sample_rate` Hz, as 16-bit PCM (values
// clipped to [-1, 1] and scaled by libsndfile) or as 32-bit float (bit exact). It
// refuses, naming the problem, a channel count or rate that is not positive, a
// sample count that is not a whole number of frames, and any non-finite sample
// (naming its frame and channel). The file is written to a temporary sibling and
// renamed into place, so a failed write leaves any previous file untouched.
// Thread-safety: thread-safe for distinct paths.
#pragma once
#include <span>
#include <string>

namespace music3::io {

enum class WavFormat { PCM16, Float32 };

void write_wav(const std::string& path, std::span<const float> interleaved, int channels, int sample_rate,
               WavFormat format);

}  // namespace music3::io
