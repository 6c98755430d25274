// Known-answer gate for the engine's generator (engine/core/counter_rng.h): philox4x32_10 must reproduce the
// published Philox4x32-10 answers (the Random123 distribution's kat_vectors: counter, key -> output), so a
// generator that is self-consistent but not Philox (a wrong multiplier, round count or key schedule) is caught
// here rather than by comparing the code with itself. counter_u64's word packing is pinned against the same
// function, so the index/stream/seed layout cannot move silently either.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "engine/core/counter_rng.h"

namespace music3 {
namespace {

struct Kat {
  std::array<uint32_t, 4> counter;
  std::array<uint32_t, 2> key;
  std::array<uint32_t, 4> expected;
};

constexpr Kat kPublished[] = {
    {{0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
     {0x00000000u, 0x00000000u},
     {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
    {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
     {0xffffffffu, 0xffffffffu},
     {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
    {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
     {0xa4093822u, 0x299f31d0u},
     {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
};

TEST(CounterRng, Philox4x32_10MatchesThePublishedKnownAnswers) {
  for (const Kat& k : kPublished) {
    const U32x4 out = philox4x32_10({{k.counter[0], k.counter[1], k.counter[2], k.counter[3]}}, k.key[0], k.key[1]);
    for (int w = 0; w < 4; ++w) EXPECT_EQ(out.v[w], k.expected[w]) << "word " << w << " of counter " << k.counter[0];
  }
}

TEST(CounterRng, CounterU64PacksIndexStreamAndSeedAsDocumented) {
  // The third published answer: counter words (index lo, index hi, stream lo, stream hi), key (seed lo, seed hi),
  // result words 0 and 1 as the high and low halves.
  const uint64_t index = 0x85a308d3'243f6a88ull, stream = 0x03707344'13198a2eull, seed = 0x299f31d0'a4093822ull;
  EXPECT_EQ(counter_u64(seed, stream, index), 0xd16cfe09'94fdccebull);
}

}  // namespace
}  // namespace music3
