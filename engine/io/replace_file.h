// Writing a file so that a failed write loses nothing.
// Contract: replace_file(path, write) creates a fresh temporary sibling of `path`
// (same directory, so rename() is atomic), calls write(temp_path) to fill it, then
// renames it over `path`. If write throws or the rename fails, the temporary is
// removed, any previous file at `path` is untouched, and the error propagates
// (std::runtime_error naming the path for failures of its own).
// Thread-safety: thread-safe for distinct paths.
#pragma once
#include <functional>
#include <string>

namespace music3::io {

void replace_file(const std::string& path, const std::function<void(const std::string& temp_path)>& write);

}  // namespace music3::io
