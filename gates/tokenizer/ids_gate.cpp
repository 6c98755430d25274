// Gate: the C++ Qwen2 tokenizer against transformers' Qwen2Tokenizer on the oracle
// corpus (>= 5000 strings), for the tiny trained tokenizer and the real Qwen base
// vocabulary: every id equal, decode equal to the HF backend's decode, and
// decode(encode(x)) == NFC(x) wherever HF's own round trip is NFC(x) (it is not
// where NFC would merge an added token with a following combining mark). The same on a
// sweep of every NFC-inert code point of planes 0-3 and 14.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/models/music3/tokenizer/nfc.h"
#include "gates/tokenizer/tokenizer_oracle.h"

namespace music3::gates {
namespace {
using tokenizer::Qwen2Tokenizer;

std::string escaped(const std::string& s) { return nlohmann::json(s).dump(); }

// The first position where two id lists differ, with a few ids of context decoded.
std::string first_difference(const Qwen2Tokenizer& tok, const std::vector<uint32_t>& want, const std::vector<uint32_t>& got) {
  size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  const size_t from = i >= 3 ? i - 3 : 0;
  auto window = [&](const std::vector<uint32_t>& ids) {
    const std::vector<uint32_t> part(ids.begin() + static_cast<long>(std::min(from, ids.size())),
                                     ids.begin() + static_cast<long>(std::min(i + 4, ids.size())));
    return nlohmann::json(part).dump() + " = " + escaped(tok.decode(part));
  };
  return "first difference at id " + std::to_string(i) + " of " + std::to_string(want.size()) + " / " +
         std::to_string(got.size()) + "\n  want " + window(want) + "\n  got  " + window(got);
}

void check_corpus(const std::string& name, const std::string& golden, size_t min_strings) {
  Qwen2Tokenizer tok = Qwen2Tokenizer::from_folder(oracle_tokenizer_root(name));
  const nlohmann::json cases = read_golden(golden);
  ASSERT_GE(cases.size(), min_strings) << golden << " holds too few strings";
  size_t id_mismatches = 0, decode_mismatches = 0, nfc_round_trips = 0;
  for (const auto& c : cases) {
    const std::string text = c["text"];
    const std::vector<uint32_t> want = id_list(c["ids"]);
    const std::vector<uint32_t> got = tok.encode(text);
    if (got != want && ++id_mismatches <= 5)
      ADD_FAILURE() << name << ": ids differ for " << escaped(text.substr(0, 120)) << "...: " << first_difference(tok, want, got);
    const std::string decoded = tok.decode(got);
    if (decoded != c["decode"].get<std::string>() && ++decode_mismatches <= 5)
      ADD_FAILURE() << name << ": decode differs for " << escaped(text.substr(0, 120)) << "...";
    if (c["decode"] == c["nfc"]) {
      ++nfc_round_trips;
      EXPECT_EQ(decoded, tokenizer::nfc(text)) << name << ": decode(encode(x)) != NFC(x) for " << escaped(text);
    }
  }
  EXPECT_EQ(id_mismatches, 0u) << name << ": strings whose ids differ, of " << cases.size();
  EXPECT_EQ(decode_mismatches, 0u) << name << ": strings whose decode differs, of " << cases.size();
  EXPECT_GE(nfc_round_trips * 100, cases.size() * 95) << "the NFC round trip must hold for >= 95% of the corpus";
}

TEST(TokenizerIds, TinyTrainedTokenizerMatchesTransformers) { check_corpus("tiny", "tokens_tiny.json", 5000); }
TEST(TokenizerIds, QwenBaseVocabularyMatchesTransformers) { check_corpus("qwen", "tokens_qwen.json", 5000); }
// Every NFC-inert code point of planes 0-3 and 14 through both tokenizers: PCRE2's Unicode classes
// (\p{L}, \p{N}, \p{Z}) against Oniguruma's behind HF tokenizers (corpus.py's sweep()).
TEST(TokenizerIds, EveryCodePointTinyMatchesTransformers) { check_corpus("tiny", "sweep_tiny.json", 600); }
TEST(TokenizerIds, EveryCodePointQwenMatchesTransformers) { check_corpus("qwen", "sweep_qwen.json", 600); }

TEST(TokenizerIds, QwenDefaultPromptMatchesTheReferenceNote) {
  // The upstream pipeline's default test prompt with the real vocabulary: these 31 ids are what
  // transformers' Qwen2 tokenizer gives for it (checked again by the oracle fixture).
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
