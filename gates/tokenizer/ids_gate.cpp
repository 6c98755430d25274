// Gate: the C++ Qwen2 tokenizer against transformers' Qwen2Tokenizer on the oracle
// corpus (>= 5000 strings), for the tiny trained tokenizer and the real Qwen base
// vocabulary: every id equal, decode equal to the HF backend's decode, and
// decode(encode(x)) == NFC(x) wherever HF's own round trip is NFC(x) (it is not
// where NFC would merge an added token with a following combining mark).
#include <gtest/gtest.h>

#include "engine/models/music3/tokenizer/nfc.h"
#include "gates/tokenizer/tokenizer_oracle.h"

namespace music3::gates {
namespace {
using tokenizer::Qwen2Tokenizer;

std::string escaped(const std::string& s) { return nlohmann::json(s).dump(); }

void check_corpus(const std::string& name) {
  Qwen2Tokenizer tok = Qwen2Tokenizer::from_folder(oracle_tokenizer_root(name));
  const nlohmann::json cases = read_golden("tokens_" + name + ".json");
  ASSERT_GE(cases.size(), 5000u) << "the corpus must hold at least 5000 strings";
  size_t id_mismatches = 0, decode_mismatches = 0, nfc_round_trips = 0;
  for (const auto& c : cases) {
    const std::string text = c["text"];
    const std::vector<uint32_t> want = id_list(c["ids"]);
    const std::vector<uint32_t> got = tok.encode(text);
    if (got != want && ++id_mismatches <= 5)
      ADD_FAILURE() << name << ": ids differ for " << escaped(text) << "\n  want " << nlohmann::json(want).dump()
                    << "\n  got  " << nlohmann::json(got).dump();
    const std::string decoded = tok.decode(got);
    if (decoded != c["decode"].get<std::string>() && ++decode_mismatches <= 5)
      ADD_FAILURE() << name << ": decode differs for " << escaped(text) << ": want " << c["decode"].dump() << " got "
                    << escaped(decoded);
    if (c["decode"] == c["nfc"]) {
      ++nfc_round_trips;
      EXPECT_EQ(decoded, tokenizer::nfc(text)) << name << ": decode(encode(x)) != NFC(x) for " << escaped(text);
    }
  }
  EXPECT_EQ(id_mismatches, 0u) << name << ": strings whose ids differ, of " << cases.size();
  EXPECT_EQ(decode_mismatches, 0u) << name << ": strings whose decode differs, of " << cases.size();
  EXPECT_GE(nfc_round_trips * 100, cases.size() * 95) << "the NFC round trip must hold for >= 95% of the corpus";
}

TEST(TokenizerIds, TinyTrainedTokenizerMatchesTransformers) { check_corpus("tiny"); }
TEST(TokenizerIds, QwenBaseVocabularyMatchesTransformers) { check_corpus("qwen"); }

TEST(TokenizerIds, QwenDefaultPromptMatchesTheReferenceNote) {
  // minimax-music3-e2e-oracle.md §2.2: the default test prompt with the real vocabulary.
  Qwen2Tokenizer tok = Qwen2Tokenizer::from_folder(oracle_tokenizer_root("qwen"));
  const std::vector<uint32_t> want = {151644, 151671, 64,    9906,  42898, 2420,   5492,   448,    8205,  8778, 46096,
                                      151672, 151673, 28463, 921,   58,    4450,   921,    14990,  1879,  198,  58,
                                      6150,   355,    921,   79307, 448,   752,    151674, 151645, 151669};
  const std::string text =
      "<|im_start|><|caption_start|>a bright synth pop song with warm female vocals<|caption_end|><|lyrics_start|>"
      "[start]\n[verse]\nhello world\n[chorus]\nsing with me<|lyrics_end|><|im_end|><|audio_start|>";
  EXPECT_EQ(tok.encode(text), want);
  EXPECT_EQ(tok.vocab_size(), 151643u + 32u);
  EXPECT_EQ(tok.merge_count(), 151387u);
}

}  // namespace
}  // namespace music3::gates
