#include "engine/models/music3/tokenizer/qwen2_tokenizer.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

#include "engine/models/music3/tokenizer/byte_level.h"
#include "engine/models/music3/tokenizer/nfc.h"
#include "engine/models/music3/tokenizer/tokenizer_error.h"
#include "engine/models/music3/tokenizer/utf8.h"

namespace music3::tokenizer {

namespace {
// transformers' PRETOKENIZE_REGEX with \s and \S spelled as Oniguruma's Unicode \s
// ([\t-\r\x{85}\p{Z}]), which differs from PCRE2's (PCRE2 adds U+180E).
std::string qwen2_split_pattern() {
  const std::string s = "\\t-\\r\\x{85}\\p{Z}";
  return "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^" + s + "\\p{L}\\p{N}]+[\\r\\n]*|[" + s +
         "]*[\\r\\n]+|[" + s + "]+(?![^" + s + "])|[" + s + "]+";
}

[[noreturn]] void unknown_piece(const TokenizerFiles& f, size_t rank, const std::string& what) {
  const auto& [a, b] = f.merges[rank];
  throw TokenizerError(TokenizerErrorKind::kUnknownMergePiece,
                       f.origin + ": model.merges[" + std::to_string(rank) + "] = \"" + a + " " + b + "\": " + what);
}
}  // namespace

BpeModel Qwen2Tokenizer::build_bpe(const TokenizerFiles& f) {
  std::array<uint32_t, 256> byte_ids{};
  for (unsigned b = 0; b < 256; ++b) {
    std::string sym;
    append_utf8(sym, byte_char(static_cast<uint8_t>(b)));
    auto it = f.vocab.find(sym);
    if (it == f.vocab.end()) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", b);
      throw TokenizerError(TokenizerErrorKind::kUnknownMergePiece,
                           f.origin + ": model.vocab lacks the byte-level symbol '" + sym + "' of byte " + hex);
    }
    byte_ids[b] = it->second;
  }
  MergeTable table(f.merges.size());
  for (size_t rank = 0; rank < f.merges.size(); ++rank) {
    const auto& [a, b] = f.merges[rank];
    auto ia = f.vocab.find(a);
    if (ia == f.vocab.end()) unknown_piece(f, rank, "'" + a + "' is not in model.vocab");
    auto ib = f.vocab.find(b);
    if (ib == f.vocab.end()) unknown_piece(f, rank, "'" + b + "' is not in model.vocab");
    auto im = f.vocab.find(a + b);
    if (im == f.vocab.end()) unknown_piece(f, rank, "the merged piece '" + a + b + "' is not in model.vocab");
    table.insert(ia->second, ib->second, MergeTarget{static_cast<uint32_t>(rank), im->second});
  }
  return BpeModel(byte_ids, std::move(table));
}

Qwen2Tokenizer::Qwen2Tokenizer(const TokenizerFiles& files)
    : added_(files.added), added_by_byte_(256), split_(qwen2_split_pattern()), bpe_(build_bpe(files)) {
  pieces_.reserve(files.vocab.size() + added_.size());
  bytes_.reserve(files.vocab.size() + added_.size());
  for (const auto& [token, id] : files.vocab) {
    pieces_.emplace(id, token);
    bytes_.emplace(id, token_bytes(token));
  }
  for (const AddedToken& t : added_) {
    pieces_.insert_or_assign(t.id, t.content);
    bytes_.insert_or_assign(t.id, token_bytes(t.content));  // HF passes added tokens through the ByteLevel decoder too
    added_ids_.insert_or_assign(t.content, t.id);
  }
  for (uint32_t i = 0; i < added_.size(); ++i) added_by_byte_[static_cast<unsigned char>(added_[i].content[0])].push_back(i);
  for (auto& list : added_by_byte_)
    std::stable_sort(list.begin(), list.end(),
                     [this](uint32_t x, uint32_t y) { return added_[x].content.size() > added_[y].content.size(); });
}

Qwen2Tokenizer Qwen2Tokenizer::from_folder(const std::filesystem::path& dir) {
  return Qwen2Tokenizer(read_tokenizer_folder(dir));
}

const AddedToken* Qwen2Tokenizer::added_at(std::string_view text, size_t pos) const {
  for (uint32_t i : added_by_byte_[static_cast<unsigned char>(text[pos])]) {
    const std::string& c = added_[i].content;
    if (c.size() <= text.size() - pos && std::memcmp(text.data() + pos, c.data(), c.size()) == 0) return &added_[i];
  }
  return nullptr;
}

void Qwen2Tokenizer::encode_plain(std::string_view text, std::vector<uint32_t>& out) {
  std::string_view norm = text;
  if (may_change_under_nfc(text)) {
    nfc_buffer_ = nfc(text);
    norm = nfc_buffer_;
  }
  size_t pos = 0;
  RegexMatch m;
  while (pos < norm.size()) {
    if (!split_.search(norm, pos, m)) {
      bpe_.encode_piece(norm.substr(pos), out);
      break;
    }
    if (m.end == m.begin) throw std::logic_error("the Qwen2 split pattern matched the empty string");
    if (m.begin > pos) bpe_.encode_piece(norm.substr(pos, m.begin - pos), out);
    bpe_.encode_piece(norm.substr(m.begin, m.end - m.begin), out);
    pos = m.end;
  }
}

std::vector<uint32_t> Qwen2Tokenizer::encode(std::string_view text) {
  require_valid_utf8(text, "the text to encode");
  std::vector<uint32_t> out;
  out.reserve(text.size() / 3 + 4);
  size_t plain_start = 0;
  for (size_t pos = 0; pos < text.size();) {
    const AddedToken* t = added_by_byte_[static_cast<unsigned char>(text[pos])].empty() ? nullptr : added_at(text, pos);
    if (!t) {
      ++pos;
      continue;
    }
    if (pos > plain_start) encode_plain(text.substr(plain_start, pos - plain_start), out);
    out.push_back(t->id);
    pos += t->content.size();
    plain_start = pos;
  }
  if (plain_start < text.size()) encode_plain(text.substr(plain_start), out);
  return out;
}

std::string Qwen2Tokenizer::decode(std::span<const uint32_t> ids) const {
  std::string bytes;
  for (uint32_t id : ids) {
    auto it = bytes_.find(id);
    if (it == bytes_.end())
      throw TokenizerError(TokenizerErrorKind::kUnknownId, "decode: id " + std::to_string(id) + " is not in the vocabulary");
    bytes += it->second;
  }
  return lossy_utf8(bytes);
}

const std::string& Qwen2Tokenizer::piece(uint32_t id) const {
  auto it = pieces_.find(id);
  if (it == pieces_.end())
    throw TokenizerError(TokenizerErrorKind::kUnknownId, "id " + std::to_string(id) + " is not in the vocabulary");
  return it->second;
}

std::optional<uint32_t> Qwen2Tokenizer::added_token_id(std::string_view content) const {
  auto it = added_ids_.find(std::string(content));
  if (it == added_ids_.end()) return std::nullopt;
  return it->second;
}

}  // namespace music3::tokenizer
