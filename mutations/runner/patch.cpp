#include "mutations/runner/patch.h"

#include <algorithm>

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "mutations/runner/catalogue.h"

namespace music3::battery {
namespace {

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : s) {
    if (c == '\n') {
      lines.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  lines.push_back(cur);
  return lines;
}

}  // namespace

TextPosition position_of(const std::string& text, size_t offset) {
  TextPosition p;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.column = 1;
    } else {
      ++p.column;
    }
  }
  return p;
}

LineChange expected_line_change(const std::string& before, const std::string& after) {
  auto old_lines = split_lines(before);
  auto new_lines = split_lines(after);
  size_t head = 0;
  while (head < old_lines.size() && head < new_lines.size() && old_lines[head] == new_lines[head]) ++head;
  size_t tail = 0;
  while (tail < old_lines.size() - head && tail < new_lines.size() - head &&
         old_lines[old_lines.size() - 1 - tail] == new_lines[new_lines.size() - 1 - tail])
    ++tail;
  // Inside the changed window git keeps the longest common subsequence of lines (a swap of two lines is one
  // line moved: 1 added, 1 deleted), so count the window's lines outside it.
  const size_t n_old = old_lines.size() - head - tail, n_new = new_lines.size() - head - tail;
  std::vector<size_t> prev(n_new + 1, 0), cur(n_new + 1, 0);
  for (size_t i = 1; i <= n_old; ++i) {
    for (size_t j = 1; j <= n_new; ++j)
      cur[j] = old_lines[head + i - 1] == new_lines[head + j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    std::swap(prev, cur);
  }
  const size_t common = prev[n_new];
  return {static_cast<int>(n_new - common), static_cast<int>(n_old - common)};
}

std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file_bytes(const std::string& path, const std::string& bytes) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
  }
  // A fresh mtime even where the write itself would keep an old one: ninja must see it.
  if (utimensat(AT_FDCWD, path.c_str(), nullptr, 0) != 0)
    throw std::runtime_error("cannot touch " + path + ": " + std::strerror(errno));
}

Patch Patch::apply(const std::string& path, const std::string& original, const std::string& replacement) {
  std::string before = read_file_bytes(path);
  size_t n = count_occurrences(before, original);
  if (n != 1)
    throw std::runtime_error("patch: original text occurs " + std::to_string(n) + " times in " + path +
                             " (must be exactly once)");
  size_t offset = before.find(original);
  std::string after = before.substr(0, offset) + replacement + before.substr(offset + original.size());
  Patch p(path, before, after, offset);
  write_file_bytes(path, after);
  return p;
}

Patch::Patch(Patch&& o) noexcept
    : path_(std::move(o.path_)), before_(std::move(o.before_)), after_(std::move(o.after_)), offset_(o.offset_),
      applied_(o.applied_) {
  o.applied_ = false;
}

void Patch::restore() {
  if (!applied_) return;
  applied_ = false;
  write_file_bytes(path_, before_);
}

Patch::~Patch() {
  try {
    restore();
  } catch (...) {
    // Nothing better to do from a destructor; the worktree is thrown away anyway and
    // the verification build would refuse the wrong bytes.
  }
}

}  // namespace music3::battery
