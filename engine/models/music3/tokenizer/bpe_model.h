// Byte-level BPE over one pre-tokenized piece, merge by merge in rank order.
// Contract: identical to HF tokenizers' BPE::merge_word with dropout off: the piece's
// bytes start as one symbol each (byte_ids), then the pending merge with the lowest
// rank (then the leftmost position) is applied, stale queue entries being skipped by
// the same test HF uses (the pair must still map to the queued merged id). Results
// are cached per piece (the cache is cleared when it reaches kCacheLimit entries), so
// encode_piece is not const and an instance serves one thread.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/models/music3/tokenizer/merge_table.h"

namespace music3::tokenizer {

class BpeModel {
 public:
  static constexpr size_t kCacheLimit = 1 << 16;
  BpeModel(const std::array<uint32_t, 256>& byte_ids, MergeTable merges);
  void encode_piece(std::string_view piece, std::vector<uint32_t>& out);
  size_t merge_count() const { return merges_.size(); }

 private:
  struct Symbol {
    uint32_t id;
    int32_t prev;
    int32_t next;
    bool alive;
  };
  struct Pending {
    uint32_t rank;
    uint32_t pos;
    uint32_t id;
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // Heap order: the top is the lowest rank, then the lowest position (HF's Merge ordering).
  static bool later(const Pending& a, const Pending& b) { return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos; }
  void merge_symbols(std::string_view piece);
  void push_pair(uint32_t pos);

  std::array<uint32_t, 256> byte_ids_;
  MergeTable merges_;
  std::vector<Symbol> symbols_;
  std::vector<Pending> queue_;
  std::unordered_map<std::string, std::vector<uint32_t>, Hash, std::equal_to<>> cache_;
};

}  // namespace music3::tokenizer
