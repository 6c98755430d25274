#include "gates/pipeline/same_song.h"

#include <gtest/gtest.h>

#include <cstring>

#include "gates/lib/gate_record.h"
#include "gates/lib/ulp_stats.h"

namespace music3::gates {

void expect_same_song(const std::string& gate, const std::string& case_name, const pipeline::GenerateResult& a,
                      const pipeline::GenerateResult& b) {
  SCOPED_TRACE(case_name);
  EXPECT_EQ(a.ar.frames, b.ar.frames);
  EXPECT_EQ(a.ar.tokens, b.ar.tokens);
  EXPECT_EQ(a.ar.codes, b.ar.codes);
  ASSERT_EQ(a.acoustic.windows.size(), b.acoustic.windows.size());
  int64_t latents = 0;
  for (size_t k = 0; k < b.acoustic.windows.size(); ++k) {
    const auto &x = a.acoustic.windows[k], &y = b.acoustic.windows[k];
    EXPECT_EQ(x.start, y.start);
    EXPECT_EQ(x.frames, y.frames);
    EXPECT_EQ(x.overlap, y.overlap);
    latents += differing_bits(x.latents, y.latents);
  }
  ASSERT_EQ(a.audio.data.size(), b.audio.data.size());
  const bool audio_same =
      std::memcmp(a.audio.data.data(), b.audio.data.data(), b.audio.data.size() * sizeof(float)) == 0;
  record(gate, case_name, "latents.differing", double(latents), 0);
  record(gate, case_name, "audio.differing_bytes", audio_same ? 0.0 : 1.0, 0);
  EXPECT_EQ(latents, 0) << "latents that differ between the two runs";
  EXPECT_TRUE(audio_same) << "the two runs' audio differs";
}

}  // namespace music3::gates
