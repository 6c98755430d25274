// Child processes for the battery: each runs in its own process group, so the
// battery alone decides when it stops.
// Contract: run_process() and capture() never leave a child behind. On a timeout,
// or when SIGINT/SIGTERM arrived (install_interrupt_handlers), the child's whole
// group gets SIGTERM, then SIGKILL 2 s later; an interrupt then throws Interrupted.
// An Interrupted consumes the signal, so cleanup can still run commands afterwards.
// run_process() appends the child's stdout and stderr to log_path ("" = /dev/null).
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace music3::battery {

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
Captured capture(const std::vector<std::string>& argv, const std::string& cwd);
// capture() that throws std::runtime_error naming the command, its status and stderr
// unless the command succeeded; returns its stdout.
std::string capture_ok(const std::vector<std::string>& argv, const std::string& cwd);

std::string join_command(const std::vector<std::string>& argv);

}  // namespace music3::battery
