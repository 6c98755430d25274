#include "bench/ab/shell.h"

#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace music3::bench {

ShellResult run_shell(const std::string& command, bool merge_stderr) {
  const std::string full = merge_stderr ? "(" + command + ") 2>&1" : command;
  FILE* pipe = ::popen(full.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot start /bin/sh for '" + command + "': " + std::strerror(errno));
  ShellResult r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  if (status == -1) throw std::runtime_error("waiting for '" + command + "' failed: " + std::strerror(errno));
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  return r;
}

std::string shell_quote(const std::string& s) {
  const bool plain = !s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                        "0123456789_./:=,+-@%") == std::string::npos;
  if (plain) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string tail_chars(const std::string& text, size_t max_chars) {
  return text.size() <= max_chars ? text : text.substr(text.size() - max_chars);
}

}  // namespace music3::bench
