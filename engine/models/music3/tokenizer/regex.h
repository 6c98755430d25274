// A compiled PCRE2 pattern in UTF + UCP mode (JIT-compiled where the platform allows).
// Contract: the pattern is a constant of this component, so a compile failure is a
// programming error (std::logic_error naming the pattern and PCRE2's message).
// Subjects must be valid UTF-8 (checked at the component's entry; PCRE2's own check
// is skipped). An instance keeps its match buffer: one instance per thread.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace music3::tokenizer {

struct RegexMatch {
  size_t begin = 0;  // of the whole match
  size_t end = 0;
  size_t group_begin = 0;  // of capture group 1 (when the pattern has one and it took part)
  size_t group_end = 0;
};

class Regex {
 public:
  // `extra_options`: PCRE2 compile options besides PCRE2_UTF | PCRE2_UCP (e.g. PCRE2_MULTILINE).
  explicit Regex(const std::string& pattern, uint32_t extra_options = 0);
  ~Regex();
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;

  // Leftmost match starting at or after `start`; false when there is none. `anchored`
  // matches only at `start`.
  bool search(std::string_view subject, size_t start, RegexMatch& m, bool anchored = false) const;

  // Python re.sub(pattern, fn, subject): every non-overlapping match, left to right, replaced by
  // fn(subject, match). The patterns of this component never match the empty string; one that does
  // is a programming error (std::logic_error).
  template <typename Fn>
  std::string replace_all(std::string_view subject, Fn&& replacement) const {
    std::string out;
    size_t pos = 0;
    RegexMatch m;
    while (search(subject, pos, m)) {
      if (m.end == m.begin) throw std::logic_error("Regex::replace_all: the pattern matched the empty string");
      out.append(subject.substr(pos, m.begin - pos));
      out += replacement(subject, m);
      pos = m.end;
    }
    out.append(subject.substr(pos));
    return out;
  }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace music3::tokenizer
