// Applying one catalogue mutation to a file of the worktree, and taking it back.
// Contract: Patch::apply() replaces the single occurrence of `original` (throws
// std::runtime_error naming the file and the count otherwise), writes the file and
// sets its mtime to now. The Patch restores the original bytes and touches the file
// again exactly once: on restore(), or on destruction (an exception or an interrupt
// between apply and restore never leaves the file mutated).
#pragma once
#include <string>

namespace music3::battery {

struct TextPosition {
  int line = 1;    // 1-based
  int column = 1;  // 1-based, in bytes
};

// Where `offset` falls in `text`.
TextPosition position_of(const std::string& text, size_t offset);

// The numbers `git diff --numstat` reports for one contiguous change from `before` to
// `after`: the lines equal at both ends are dropped, then the longest common subsequence
// of the lines left (git keeps it: swapping two lines moves one, +1 -1).
struct LineChange {
  int added = 0;
  int deleted = 0;
};
LineChange expected_line_change(const std::string& before, const std::string& after);

std::string read_file_bytes(const std::string& path);
void write_file_bytes(const std::string& path, const std::string& bytes);  // then mtime = now

class Patch {
 public:
  static Patch apply(const std::string& path, const std::string& original, const std::string& replacement);
  Patch(Patch&& o) noexcept;
  Patch(const Patch&) = delete;
  Patch& operator=(const Patch&) = delete;
  Patch& operator=(Patch&&) = delete;
  ~Patch();

  void restore();
  const std::string& original_text() const { return before_; }
  const std::string& mutated_text() const { return after_; }
  size_t offset() const { return offset_; }

 private:
  Patch(std::string path, std::string before, std::string after, size_t offset)
      : path_(std::move(path)), before_(std::move(before)), after_(std::move(after)), offset_(offset) {}
  std::string path_, before_, after_;
  size_t offset_ = 0;
  bool applied_ = true;
};

}  // namespace music3::battery
