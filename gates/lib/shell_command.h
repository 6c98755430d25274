// Running a command line from a gate: shell_quoted() makes one shell word of any string (single quotes, each ' as
// '\''), run_shell() runs a command through /bin/sh, echoing it to stderr first, and returns its exit status (a
// signal N as 128 + N) and everything it wrote to stdout (stderr passes through to the gate's).
// Thread-safety: thread-safe (no shared state).
#pragma once
#include <string>

namespace music3::gates {

struct ShellRun {
  int status = -1;
  std::string out;  // the command's stdout
};

std::string shell_quoted(const std::string& s);
ShellRun run_shell(const std::string& command);

}  // namespace music3::gates
