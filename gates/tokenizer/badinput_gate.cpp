// Gate: bad input to the tokenizer component is refused with a named TokenizerError,
// never a crash or silent garbage: invalid UTF-8 (with its offset), empty or
// whitespace-only prompt / lyrics, an over-long prompt, a missing file, corrupt or
// truncated tokenizer.json, a merge naming an unknown piece, a vocabulary without a
// byte symbol, settings the engine does not implement, a missing template token, and
// an unknown id in decode.
#include <gtest/gtest.h>

#include <functional>

#include "engine/models/music3/tokenizer/prompt_ids.h"
#include "engine/models/music3/tokenizer/tokenizer_error.h"
#include "engine/models/music3/tokenizer/tokenizer_files.h"
#include "gates/tokenizer/tokenizer_oracle.h"

namespace music3::gates {
namespace {
using namespace music3::tokenizer;
using nlohmann::json;

const std::string& tiny_json() {
  static const std::string text = read_text_file(oracle_tokenizer_root("tiny") / "tokenizer" / "tokenizer.json");
  return text;
}

Qwen2Tokenizer& tiny() {
  static Qwen2Tokenizer tok = Qwen2Tokenizer::from_folder(oracle_tokenizer_root("tiny"));
  return tok;
}

// Expects `fn` to throw TokenizerError of `kind` whose message contains `needle`.
void expect_refused(const std::function<void()>& fn, TokenizerErrorKind kind, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "accepted; expected " << to_string(kind) << " naming '" << needle << "'";
  } catch (const TokenizerError& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "'" << e.what() << "' does not name '" << needle << "'";
  }
}

// Builds a tokenizer from tiny's tokenizer.json after `edit`.
void build_edited(const std::function<void(json&)>& edit) {
  json j = json::parse(tiny_json());
  edit(j);
  Qwen2Tokenizer tok(parse_tokenizer_json(j.dump(), "edited.json"));
  check_template_tokens(tok);
}

TEST(TokenizerBadInput, InvalidUtf8IsRefusedWithItsOffset) {
  expect_refused([] { tiny().encode("ok\xC3("); }, TokenizerErrorKind::kInvalidUtf8, "offset 2");
  expect_refused([] { tiny().encode("\xED\xA0\x80"); }, TokenizerErrorKind::kInvalidUtf8, "offset 0");  // a surrogate
  expect_refused([] { tiny().encode("\xC0\xAF"); }, TokenizerErrorKind::kInvalidUtf8, "0xC0");        // overlong
  expect_refused([] { tiny().encode("abc\xF4\x90\x80\x80"); }, TokenizerErrorKind::kInvalidUtf8, "offset 3");
  expect_refused([] { encode_prompt(tiny(), "fine", "la\xFF"); }, TokenizerErrorKind::kInvalidUtf8, "the lyrics");
  expect_refused([] { encode_prompt(tiny(), "\x80", "la"); }, TokenizerErrorKind::kInvalidUtf8, "the prompt");
}

TEST(TokenizerBadInput, EmptyPromptOrLyricsAreRefusedByName) {
  expect_refused([] { encode_prompt(tiny(), "", "la"); }, TokenizerErrorKind::kEmptyPrompt, "prompt");
  expect_refused([] { encode_prompt(tiny(), " \t\u3000\n", "la"); }, TokenizerErrorKind::kEmptyPrompt, "prompt");
  expect_refused([] { encode_prompt(tiny(), "pop", ""); }, TokenizerErrorKind::kEmptyLyrics, "lyrics");
  expect_refused([] { encode_prompt(tiny(), "pop", "\u2028\x1c "); }, TokenizerErrorKind::kEmptyLyrics, "lyrics");
}

TEST(TokenizerBadInput, OverLongPromptIsRefusedNamingTheCount) {
  std::string lyrics;
  for (int i = 0; i < 2600; ++i) lyrics += "la ";
  EXPECT_NO_THROW(encode_prompt(tiny(), "pop", lyrics.substr(0, 3 * 2400)));
  expect_refused([&] { encode_prompt(tiny(), "pop", lyrics + lyrics); }, TokenizerErrorKind::kPromptTooLong, "maximum is 5000");
}

TEST(TokenizerBadInput, MissingFilesAreRefusedByPath) {
  expect_refused([] { read_tokenizer_folder("/nonexistent/checkpoint"); }, TokenizerErrorKind::kUnreadableFile,
                 "/nonexistent/checkpoint");
}

TEST(TokenizerBadInput, CorruptOrTruncatedTokenizerJsonIsRefused) {
  for (size_t cut : {size_t{0}, size_t{1}, size_t{17}, tiny_json().size() / 3, tiny_json().size() - 2})
    expect_refused([&] { parse_tokenizer_json(tiny_json().substr(0, cut), "cut.json"); }, TokenizerErrorKind::kCorruptFile,
                   "cut.json");
  expect_refused([] { parse_tokenizer_json("[1, 2]", "array.json"); }, TokenizerErrorKind::kCorruptFile, "not a JSON object");
  // Found by tokenizer_fuzz: a number overflowing a double is nlohmann's out_of_range, not a parse_error.
  expect_refused([] { parse_tokenizer_json("{\"model\": 9e99999}", "huge.json"); }, TokenizerErrorKind::kCorruptFile, "huge.json");
  expect_refused([] { build_edited([](json& j) { j.erase("model"); }); }, TokenizerErrorKind::kCorruptFile, "'model'");
  expect_refused([] { build_edited([](json& j) { j["model"]["vocab"]["a"] = "x"; }); }, TokenizerErrorKind::kCorruptFile,
                 "model.vocab[a]");
  expect_refused([] { build_edited([](json& j) { j["model"]["vocab"]["zz-dup"] = 100; }); },
                 TokenizerErrorKind::kCorruptFile, "id 100");
  expect_refused([] { build_edited([](json& j) { j["model"]["merges"][3] = "a b c"; }); }, TokenizerErrorKind::kCorruptFile,
                 "model.merges[3]");
  expect_refused([] { build_edited([](json& j) { j["added_tokens"][2]["id"] = -1; }); }, TokenizerErrorKind::kCorruptFile,
                 "added_tokens[2].id");
}

TEST(TokenizerBadInput, MergeNamingAnUnknownPieceIsRefused) {
  expect_refused([] { build_edited([](json& j) { j["model"]["merges"][5] = json::array({"Ġwor", "nosuchpiece"}); }); },
                 TokenizerErrorKind::kUnknownMergePiece, "model.merges[5]");
  expect_refused([] { build_edited([](json& j) { j["model"]["merges"][0] = json::array({"q", "z"}); }); },
                 TokenizerErrorKind::kUnknownMergePiece, "merged piece 'qz'");
  expect_refused([] { build_edited([](json& j) { j["model"]["vocab"].erase("Ġ"); }); },
                 TokenizerErrorKind::kUnknownMergePiece, "'Ġ'");
}

TEST(TokenizerBadInput, UnimplementedSettingsAreRefusedNotIgnored) {
  expect_refused([] { build_edited([](json& j) { j["added_tokens"][1]["lstrip"] = true; }); },
                 TokenizerErrorKind::kUnsupported, "<|im_start|>");
  expect_refused([] { build_edited([](json& j) { j["added_tokens"][1]["normalized"] = true; }); },
                 TokenizerErrorKind::kUnsupported, "normalized");
  expect_refused([] { build_edited([](json& j) { j["model"]["type"] = "WordPiece"; }); }, TokenizerErrorKind::kUnsupported,
                 "WordPiece");
  TokenizerFiles files = parse_tokenizer_json(tiny_json(), "tiny");
  expect_refused([&] { apply_tokenizer_config(R"({"add_prefix_space": true})", "cfg.json", files); },
                 TokenizerErrorKind::kUnsupported, "add_prefix_space");
  expect_refused([&] { apply_tokenizer_config(R"({"tokenizer_class": "LlamaTokenizer"})", "cfg.json", files); },
                 TokenizerErrorKind::kUnsupported, "LlamaTokenizer");
  expect_refused([&] { apply_tokenizer_config(R"({"added_tokens_decoder": {"x": {"content": "a"}}})", "cfg.json", files); },
                 TokenizerErrorKind::kCorruptFile, "added_tokens_decoder[x]");
}

TEST(TokenizerBadInput, MissingTemplateTokenIsRefusedByName) {
  auto drop = [](const std::string& content) {
    return [content](json& j) {
      auto& added = j["added_tokens"];
      for (size_t i = 0; i < added.size(); ++i)
        if (added[i]["content"] == content) added.erase(i);
    };
  };
  expect_refused([&] { build_edited(drop("<|caption_start|>")); }, TokenizerErrorKind::kMissingSpecialToken, "<|caption_start|>");
  expect_refused([&] { build_edited(drop("<|audio_end|>")); }, TokenizerErrorKind::kMissingSpecialToken, "<|audio_end|>");
  expect_refused([&] { build_edited(drop("<|vision_pad|>")); }, TokenizerErrorKind::kMissingSpecialToken, "151654");
}

TEST(TokenizerBadInput, DecodeRefusesAnUnknownId) {
  expect_refused([] { tiny().decode(std::vector<uint32_t>{64, 999999}); }, TokenizerErrorKind::kUnknownId, "999999");
}

}  // namespace
}  // namespace music3::gates
