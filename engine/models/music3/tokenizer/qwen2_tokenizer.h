// The Qwen2 byte-level BPE tokenizer, encoding exactly as transformers 5.17's
// Qwen2Tokenizer (tokenizers 0.23) does with the class's own pipeline (not the one
// written in tokenizer.json, which transformers ignores; see tokenizer_files.h):
//   1. added tokens are found in the raw text first (leftmost, then longest) and
//      emitted with their checkpoint ids;
//   2. each stretch between them is NFC-normalized (utf8proc);
//   3. split by the Qwen2 pattern (PCRE2, UTF + UCP; \s is Oniguruma's: \t-\r, U+0085
//      and \p{Z}), each match a piece;
//   4. each piece's bytes go through byte-level BPE by merge rank (bpe_model.h).
// decode maps ids back to bytes (vocabulary entries and added tokens' contents alike
// through the byte-level alphabet, as HF does) and repairs invalid UTF-8 as the HF ByteLevel decoder does.
// Contract: build refuses a merge naming a piece not in the vocabulary, or whose
// concatenation is not, and a vocabulary lacking one of the 256 byte symbols
// (kUnknownMergePiece, naming the merge and the file). encode refuses invalid UTF-8
// (kInvalidUtf8 with the offset); decode refuses an unknown id (kUnknownId).
// Not thread-safe: encode fills the per-piece cache.
// Known residuals (gate_tokenizer_ids' code-point sweep covers every other assigned code point): PCRE2
// 10.42 has Unicode 14 tables and the Oniguruma in HF tokenizers Unicode 15, so code points first
// assigned in Unicode 15 (e.g. the Kaktovik numerals U+1D2C0-U+1D2D3, \p{N} for Oniguruma only) can split
// differently; and the NFC residual of nfc.h.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/models/music3/tokenizer/bpe_model.h"
#include "engine/models/music3/tokenizer/regex.h"
#include "engine/models/music3/tokenizer/tokenizer_files.h"

namespace music3::tokenizer {

class Qwen2Tokenizer {
 public:
  explicit Qwen2Tokenizer(const TokenizerFiles& files);
  static Qwen2Tokenizer from_folder(const std::filesystem::path& dir);

  std::vector<uint32_t> encode(std::string_view text);
  std::string decode(std::span<const uint32_t> ids) const;
  // The piece an id stands for as the vocabulary spells it (byte-level form), or the
  // added token's content.
  const std::string& piece(uint32_t id) const;
  std::optional<uint32_t> added_token_id(std::string_view content) const;
  size_t vocab_size() const { return pieces_.size(); }  // vocabulary plus added tokens (HF: len(tokenizer))
  size_t merge_count() const { return bpe_.merge_count(); }

 private:
  // Indices into added_ of the tokens starting with a given byte, longest first.
  using AddedByFirstByte = std::vector<std::vector<uint32_t>>;
  static BpeModel build_bpe(const TokenizerFiles& files);
  const AddedToken* added_at(std::string_view text, size_t pos) const;
  void encode_plain(std::string_view text, std::vector<uint32_t>& out);

  std::vector<AddedToken> added_;
  AddedByFirstByte added_by_byte_;
  std::unordered_map<uint32_t, std::string> pieces_;  // id -> vocabulary spelling or added content
  std::unordered_map<uint32_t, std::string> bytes_;   // id -> bytes it decodes to
  std::unordered_map<std::string, uint32_t> added_ids_;
  Regex split_;
  BpeModel bpe_;
  std::string nfc_buffer_;
};

}  // namespace music3::tokenizer
