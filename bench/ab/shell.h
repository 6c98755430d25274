// Running shell commands for the A/B runner.
// Contract: run_shell() runs `command` under /bin/sh with stdout (and stderr, merged,
// when merge_stderr) captured, and returns the exit status (128 + N when killed by
// signal N); it throws only when the shell cannot be started. shell_quote() makes any
// string one shell word (left as it is when it holds no character the shell treats specially).
#pragma once
#include <string>

namespace music3::bench {

struct ShellResult {
  int exit_code = -1;
  std::string output;
};

ShellResult run_shell(const std::string& command, bool merge_stderr = true);
std::string shell_quote(const std::string& s);
// The last `max_chars` characters of `text` (for logs kept in records).
std::string tail_chars(const std::string& text, size_t max_chars);

}  // namespace music3::bench
