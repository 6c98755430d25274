// Gate: the prompt rules against the pinned diffusers on the oracle corpus's
// (prompt, lyrics) pairs plus edge cases (only tags, only whitespace, `---` lines,
// nested `**`, over-long prompts): `_clean_caption`, `_normalize_lyrics`, both rows of
// MiniMaxMusic3TokenizeStep's `text_ids` for both tokenizers, and its refusals (by
// kind). Also the Python `str` helpers against CPython's own tables: str.isspace()
// over every code point and every chr(cp).lower() that changes the character.
#include <gtest/gtest.h>

#include "engine/models/music3/tokenizer/prompt_ids.h"
#include "engine/models/music3/tokenizer/prompt_rules.h"
#include "engine/models/music3/tokenizer/python_text.h"
#include "engine/models/music3/tokenizer/tokenizer_error.h"
#include "engine/models/music3/tokenizer/utf8.h"
#include "gates/tokenizer/tokenizer_oracle.h"

namespace music3::gates {
namespace {
using namespace music3::tokenizer;

std::string escaped(const std::string& s) { return nlohmann::json(s).dump(); }

const nlohmann::json& rules() {
  static const nlohmann::json cases = read_golden("rules.json");
  return cases;
}

TEST(TokenizerRules, CleanCaptionAndNormalizeLyricsMatchDiffusers) {
  size_t checked = 0, caption_bad = 0, lyrics_bad = 0;
  for (const auto& c : rules()) {
    if (!c.contains("clean")) continue;
    ++checked;
    const std::string prompt = c["prompt"], lyrics = c["lyrics"];
    const std::string clean = clean_caption(prompt), norm = normalize_lyrics(lyrics);
    if (clean != c["clean"].get<std::string>() && ++caption_bad <= 5)
      ADD_FAILURE() << "_clean_caption(" << escaped(prompt) << ")\n  want " << c["clean"].dump() << "\n  got  " << escaped(clean);
    if (norm != c["norm"].get<std::string>() && ++lyrics_bad <= 5)
      ADD_FAILURE() << "_normalize_lyrics(" << escaped(lyrics) << ")\n  want " << c["norm"].dump() << "\n  got  " << escaped(norm);
  }
  EXPECT_GE(checked, 5000u);
  EXPECT_EQ(caption_bad, 0u);
  EXPECT_EQ(lyrics_bad, 0u);
}

void check_assembled(const std::string& name) {
  Qwen2Tokenizer tok = Qwen2Tokenizer::from_folder(oracle_tokenizer_root(name));
  check_template_tokens(tok);
  size_t bad = 0, refusals = 0;
  for (const auto& c : rules()) {
    const std::string prompt = c["prompt"], lyrics = c["lyrics"];
    const auto& want = c[name];
    std::string got_error;
    PromptIds got;
    try {
      got = encode_prompt(tok, prompt, lyrics);
    } catch (const TokenizerError& e) {
      got_error = to_string(e.kind());
    }
    if (want.contains("error")) {
      ++refusals;
      if (got_error != want["error"].get<std::string>() && ++bad <= 5)
        ADD_FAILURE() << name << ": upstream refuses " << escaped(prompt.substr(0, 80)) << " / "
                      << escaped(lyrics.substr(0, 80)) << " as " << want["error"] << ", the engine: '" << got_error << "'";
      continue;
    }
    if ((!got_error.empty() || got.cond != id_list(want["ids"]) || got.uncond != id_list(want["uncond"])) && ++bad <= 5)
      ADD_FAILURE() << name << ": text_ids differ for " << escaped(prompt) << " / " << escaped(lyrics) << " ("
                    << got_error << ")\n  want " << want["ids"].dump() << "\n  got  " << nlohmann::json(got.cond).dump()
                    << "\n  want uncond " << want["uncond"].dump() << "\n  got  " << nlohmann::json(got.uncond).dump();
  }
  EXPECT_EQ(bad, 0u) << name << ": pairs that differ from MiniMaxMusic3TokenizeStep";
  EXPECT_GE(refusals, 5u) << "the goldens must hold refusals (empty prompt/lyrics, too long)";
}

TEST(TokenizerRules, AssembledIdsMatchTheTokenizeStepTiny) { check_assembled("tiny"); }
TEST(TokenizerRules, AssembledIdsMatchTheTokenizeStepQwen) { check_assembled("qwen"); }

TEST(TokenizerRules, IsspaceMatchesCPythonOnEveryCodePoint) {
  const nlohmann::json g = read_golden("python_text.json");
  std::vector<bool> want(0x110000, false);
  for (uint32_t cp : g["isspace"].get<std::vector<uint32_t>>()) want[cp] = true;
  for (char32_t cp = 0; cp < 0x110000; ++cp)
    ASSERT_EQ(is_python_space(cp), want[cp]) << "U+" << std::hex << static_cast<uint32_t>(cp);
}

TEST(TokenizerRules, LowerMatchesCPythonOnEveryChangedCodePoint) {
  const nlohmann::json g = read_golden("python_text.json");
  size_t bad = 0;
  for (auto it = g["lower"].begin(); it != g["lower"].end(); ++it) {
    std::string ch;
    append_utf8(ch, static_cast<char32_t>(std::stoul(it.key())));
    const std::string got = python_lower(ch);
    if (got != it.value().get<std::string>() && ++bad <= 5)
      ADD_FAILURE() << "lower(U+" << std::hex << std::stoul(it.key()) << ") want " << it.value().dump() << " got " << escaped(got);
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(python_lower("\xCE\xA3\xCE\x91\xCE\xA3"), "\xCF\x83\xCE\xB1\xCF\x82");  // ΣΑΣ -> σας (Final_Sigma)
}

TEST(TokenizerRules, CfgRowKeepsTheFirstAndTheTwoLastIds) {
  const std::vector<uint32_t> cond = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(cfg_row(cond), (std::vector<uint32_t>{1, kAudioCfgTokenId, kAudioCfgTokenId, kAudioCfgTokenId, 5, 6}));
}

}  // namespace
}  // namespace music3::gates
