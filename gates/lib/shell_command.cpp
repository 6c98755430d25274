#include "gates/lib/shell_command.h"

#include <sys/wait.h>

#include <cstdio>
#include <stdexcept>

namespace music3::gates {

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char ch : s) {
    if (ch == '\'')
      out.append("'\\''");
    else
      out.push_back(ch);
  }
  out.push_back('\'');
  return out;
}

ShellRun run_shell(const std::string& command) {
  std::fprintf(stderr, "gate: $ %s\n", command.c_str());
  std::fflush(stderr);
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + command);
  ShellRun r;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int raw = ::pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  return r;
}

}  // namespace music3::gates
