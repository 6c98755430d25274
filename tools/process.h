// The child-process layer of the harness tools (mutation-battery, ab-bench, the oracle
// regeneration gate): each child runs in its own process group, so the
// caller alone decides when it stops.
// Contract: run_process() and capture() never leave a child behind. On a timeout,
// or when SIGINT/SIGTERM arrived (install_interrupt_handlers), the child's whole
// group gets SIGTERM, then SIGKILL 2 s later; an interrupt then throws Interrupted.
// An Interrupted consumes the signal, so cleanup can still run commands afterwards.
// run_process() appends the child's stdout and stderr to log_path ("" = /dev/null).
// capture_shell() runs a command line under /bin/sh and returns its status (128 + N
// when killed by signal N) and its stdout, with stderr merged when asked.
// Thread-safety: run_process()/capture() may run from several threads; the interrupt
// state is process-wide.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace music3::tools {

struct ProcessSpec {
  std::vector<std::string> argv;
  std::string cwd;                                        // "" = inherit
  std::vector<std::pair<std::string, std::string>> env;  // added to the inherited environment
  std::string log_path;
  double timeout_s = 0;  // 0 = no limit
};

struct ProcessResult {
  int exit_code = -1;  // valid when signal == 0 and !timed_out
  int signal = 0;      // the signal that ended the child, 0 if it exited
  bool timed_out = false;
  double seconds = 0;
  bool ok() const { return !timed_out && signal == 0 && exit_code == 0; }
  std::string describe() const;  // "exit 0", "signal 11 (Segmentation fault)", "timeout after 12.0 s"
};

struct Captured {
  ProcessResult result;
  std::string out;
  std::string err;
};

class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int sig);
  int signal() const { return signal_; }

 private:
  int signal_;
};

void install_interrupt_handlers();
int pending_interrupt();  // the caught signal, or 0
void throw_if_interrupted();

ProcessResult run_process(const ProcessSpec& spec);

// A child that answers each request line on its stdin with one line on its stdout, in its own process group (so
// a tool pays a slow start, e.g. python importing torch, once and not per request); its stderr goes to
// spec.log_path, and spec.timeout_s bounds each request (0: no bound). request() writes the line and returns the
// reply without its newline; it throws std::runtime_error naming the command and how the child ended when the child
// is gone or did not answer in time (the group is then killed; the object is spent), and Interrupted on SIGINT or
// SIGTERM. The destructor closes the child's stdin, gives it 2 s to exit, then kills its group. Constructing one
// ignores SIGPIPE process-wide (a write to a child that died fails with EPIPE instead of ending the process).
// Thread-safety: one owner, not thread-safe.
class Coprocess {
 public:
  explicit Coprocess(ProcessSpec spec);
  ~Coprocess();
  Coprocess(const Coprocess&) = delete;
  Coprocess& operator=(const Coprocess&) = delete;
  std::string request(const std::string& line);

 private:
  [[noreturn]] void fail(const std::string& why);
  ProcessSpec spec_;
  int pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  std::string pending_;  // bytes read past the last reply's newline
};
Captured capture(const std::vector<std::string>& argv, const std::string& cwd);
// capture() that throws std::runtime_error naming the command, its status and stderr
// unless the command succeeded; returns its stdout.
std::string capture_ok(const std::vector<std::string>& argv, const std::string& cwd);

std::string join_command(const std::vector<std::string>& argv);

struct ShellResult {
  int exit_code = -1;
  std::string output;
};
ShellResult capture_shell(const std::string& command, bool merge_stderr = true);
// Makes any string one shell word (left as it is when it holds no character the shell treats specially).
std::string shell_quote(const std::string& s);
// The last `max_chars` characters of `text` (for logs kept in records).
std::string tail_chars(const std::string& text, size_t max_chars);

}  // namespace music3::tools
