// libFuzzer target over the tokenizer component (built with clang,
// -fsanitize=fuzzer,address,undefined; see CMakeLists.txt). The first input byte picks:
//   even: the text path: encode + decode with a small byte-level tokenizer that has the
//         template's added tokens, and encode_prompt on the rest split at its second byte;
//   odd:  the reader: the rest as tokenizer.json (and, after a NUL, tokenizer_config.json),
//         then building the tokenizer and encoding a fixed text with it.
// Contract checked: only TokenizerError escapes as a refusal; whatever encode returns
// decodes without error to valid UTF-8; the CFG row has the conditional row's length.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "engine/models/music3/tokenizer/byte_level.h"
#include "engine/models/music3/tokenizer/prompt_ids.h"
#include "engine/models/music3/tokenizer/tokenizer_error.h"
#include "engine/models/music3/tokenizer/utf8.h"

namespace {
using namespace music3::tokenizer;

// 256 byte symbols, a few merges, and the template's added tokens at their checkpoint ids.
Qwen2Tokenizer& small_tokenizer() {
  static Qwen2Tokenizer tok = [] {
    nlohmann::json vocab = nlohmann::json::object(), merges = nlohmann::json::array(), added = nlohmann::json::array();
    for (unsigned b = 0; b < 256; ++b) {
      std::string sym;
      append_utf8(sym, byte_char(static_cast<uint8_t>(b)));
      vocab[sym] = b;
    }
    uint32_t next = 256;
    for (const char* pair : {"Ġ t", "h e", "Ġt he", "i n", "Ġ a", "l a", "Ġ Ġ", "ĠĠ ĠĠ", "Ċ Ċ", "e r", "[ v", "] Ċ"}) {
      const std::string p = pair;
      const size_t sp = p.find(' ');
      vocab[p.substr(0, sp) + p.substr(sp + 1)] = next++;
      merges.push_back(p);
    }
    const char* specials[] = {"<|im_start|>", "<|im_end|>", "<|audio_start|>", "<|audio_end|>", "<|caption_start|>",
                              "<|caption_end|>", "<|lyrics_start|>", "<|lyrics_end|>", "<|vision_pad|>"};
    const uint32_t ids[] = {151644, 151645, 151669, 151670, 151671, 151672, 151673, 151674, 151654};
    for (size_t i = 0; i < 9; ++i) added.push_back({{"id", ids[i]}, {"content", specials[i]}, {"special", true}, {"normalized", false}});
    nlohmann::json j = {{"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}}, {"added_tokens", added}};
    return Qwen2Tokenizer(parse_tokenizer_json(j.dump(), "fuzz-small"));
  }();
  return tok;
}

void require(bool ok) {
  if (!ok) std::abort();
}

void text_path(std::string_view in) {
  Qwen2Tokenizer& tok = small_tokenizer();
  try {
    const auto ids = tok.encode(in);
    require(first_invalid_utf8(tok.decode(ids)) == std::string_view::npos);
  } catch (const TokenizerError& e) {
    require(e.kind() == TokenizerErrorKind::kInvalidUtf8);
  }
  const size_t split = in.empty() ? 0 : static_cast<unsigned char>(in[0]) % (in.size() + 1);
  try {
    const PromptIds p = encode_prompt(tok, in.substr(0, split), in.substr(split));
    require(p.uncond.size() == p.cond.size());
  } catch (const TokenizerError&) {
  }
}

void reader_path(std::string_view in) {
  const size_t nul = in.find('\0');
  try {
    TokenizerFiles files = parse_tokenizer_json(in.substr(0, nul), "fuzz.json");
    if (nul != std::string_view::npos) apply_tokenizer_config(in.substr(nul + 1), "fuzz_config.json", files);
    Qwen2Tokenizer tok(files);
    tok.decode(tok.encode("hello <|im_start|> world\n 12 'S"));
  } catch (const TokenizerError&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    text_path(in);
  } else {
    reader_path(in);
  }
  return 0;
}
