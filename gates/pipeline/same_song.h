// Two runs of one song held to the same bits (the gates that compare two ways of running it: overlapped against
// sequential schedules, warmed-up against cold loads). expect_same_song(gate, case, a, b) asserts (GoogleTest)
// equal frame counts, tokens and codes, the same windows (start, frames, overlap) and every latent and audio sample
// bit for bit, and records `<gate>.<case>` latents.differing and audio.differing_bytes (bound 0, gate_record.h).
// Thread-safety: as GoogleTest assertions (one test thread).
#pragma once
#include <string>

#include "engine/models/music3/pipeline/generate_run.h"

namespace music3::gates {

void expect_same_song(const std::string& gate, const std::string& case_name, const pipeline::GenerateResult& a,
                      const pipeline::GenerateResult& b);

}  // namespace music3::gates
