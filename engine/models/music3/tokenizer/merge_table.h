// Pair of token ids -> (merge rank, id of the merged token): the BPE hot-path lookup.
// Contract: open addressing over a power-of-two table, at most half full; insert
// overwrites an existing pair (as HF's HashMap collect does for a repeated merge,
// so the later rank wins); find returns nullptr for a pair that never merges.
// Thread-safety: const use is thread-safe.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace music3::tokenizer {

struct MergeTarget {
  uint32_t rank;
  uint32_t id;
};

class MergeTable {
 public:
  explicit MergeTable(size_t expected = 0);
  void insert(uint32_t left, uint32_t right, MergeTarget target);
  const MergeTarget* find(uint32_t left, uint32_t right) const {
    const uint64_t key = pack(left, right);
    for (size_t i = slot(key);; i = (i + 1) & mask_) {
      const Entry& e = entries_[i];
      if (e.key == key) return &e.target;
      if (e.key == kEmpty) return nullptr;
    }
  }
  size_t size() const { return size_; }

 private:
  struct Entry {
    uint64_t key;
    MergeTarget target;
  };
  static constexpr uint64_t kEmpty = ~uint64_t{0};  // ids are < 2^31, so no real pair packs to this
  static uint64_t pack(uint32_t l, uint32_t r) { return (uint64_t{l} << 32) | r; }
  size_t slot(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 17) & mask_; }
  void grow();

  std::vector<Entry> entries_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace music3::tokenizer
