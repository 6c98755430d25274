#include "engine/models/music3/tokenizer/merge_table.h"

namespace music3::tokenizer {

MergeTable::MergeTable(size_t expected) {
  size_t cap = 16;
  while (cap < expected * 2) cap *= 2;
  entries_.assign(cap, Entry{kEmpty, {0, 0}});
  mask_ = cap - 1;
}

void MergeTable::insert(uint32_t left, uint32_t right, MergeTarget target) {
  if ((size_ + 1) * 2 > entries_.size()) grow();
  const uint64_t key = pack(left, right);
  for (size_t i = slot(key);; i = (i + 1) & mask_) {
    Entry& e = entries_[i];
    if (e.key == key) {
      e.target = target;
      return;
    }
    if (e.key == kEmpty) {
      e = Entry{key, target};
      ++size_;
      return;
    }
  }
}

void MergeTable::grow() {
  std::vector<Entry> old = std::move(entries_);
  entries_.assign(old.size() * 2, Entry{kEmpty, {0, 0}});
  mask_ = entries_.size() - 1;
  size_ = 0;
  for (const Entry& e : old)
    if (e.key != kEmpty) insert(static_cast<uint32_t>(e.key >> 32), static_cast<uint32_t>(e.key), e.target);
}

}  // namespace music3::tokenizer
