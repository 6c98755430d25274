#include "engine/models/music3/tokenizer/bpe_model.h"

#include <algorithm>

namespace music3::tokenizer {

BpeModel::BpeModel(const std::array<uint32_t, 256>& byte_ids, MergeTable merges)
    : byte_ids_(byte_ids), merges_(std::move(merges)) {}

void BpeModel::push_pair(uint32_t pos) {
  const Symbol& s = symbols_[pos];
  if (s.next < 0) return;
  if (const MergeTarget* t = merges_.find(s.id, symbols_[s.next].id)) {
    queue_.push_back({t->rank, pos, t->id});
    std::push_heap(queue_.begin(), queue_.end(), later);
  }
}

void BpeModel::merge_symbols(std::string_view piece) {
  symbols_.clear();
  queue_.clear();
  const auto n = static_cast<int32_t>(piece.size());
  for (int32_t i = 0; i < n; ++i)
    symbols_.push_back({byte_ids_[static_cast<unsigned char>(piece[i])], i - 1, i + 1 < n ? i + 1 : -1, true});
  for (int32_t i = 0; i + 1 < n; ++i) push_pair(static_cast<uint32_t>(i));
  while (!queue_.empty()) {
    std::pop_heap(queue_.begin(), queue_.end(), later);
    const Pending top = queue_.back();
    queue_.pop_back();
    Symbol& cur = symbols_[top.pos];
    if (!cur.alive || cur.next < 0) continue;
    Symbol& right = symbols_[cur.next];
    const MergeTarget* t = merges_.find(cur.id, right.id);
    if (!t || t->id != top.id) continue;
    cur.id = top.id;
    right.alive = false;
    cur.next = right.next;
    if (right.next >= 0) symbols_[right.next].prev = static_cast<int32_t>(top.pos);
    if (cur.prev >= 0) push_pair(static_cast<uint32_t>(cur.prev));
    push_pair(top.pos);
  }
}

void BpeModel::encode_piece(std::string_view piece, std::vector<uint32_t>& out) {
  if (piece.empty()) return;
  if (piece.size() == 1) {
    out.push_back(byte_ids_[static_cast<unsigned char>(piece[0])]);
    return;
  }
  if (auto it = cache_.find(piece); it != cache_.end()) {
    out.insert(out.end(), it->second.begin(), it->second.end());
    return;
  }
  merge_symbols(piece);
  std::vector<uint32_t> ids;
  for (int32_t i = 0; i >= 0; i = symbols_[i].next) ids.push_back(symbols_[i].id);
  out.insert(out.end(), ids.begin(), ids.end());
  if (cache_.size() >= kCacheLimit) cache_.clear();
  cache_.emplace(std::string(piece), std::move(ids));
}

}  // namespace music3::tokenizer
