#include "tools/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>

namespace music3::tools {
namespace {

volatile std::sig_atomic_t g_signal = 0;
extern "C" void on_interrupt(int sig) { g_signal = sig; }

using Clock = std::chrono::steady_clock;
// The interrupt is consumed when it is thrown, so that cleanup may still run commands
// (a second signal then interrupts the cleanup too).
[[noreturn]] void throw_interrupt(int sig) {
  g_signal = 0;
  throw Interrupted(sig);
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// In the child: own process group, cwd, environment, input (in_fd; < 0: /dev/null) and output, then exec.
[[noreturn]] void exec_child(const ProcessSpec& spec, int in_fd, int out_fd, int err_fd) {
  setpgid(0, 0);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (out_fd >= 0) dup2(out_fd, STDOUT_FILENO);
  if (err_fd >= 0) dup2(err_fd, STDERR_FILENO);
  const int in = in_fd >= 0 ? in_fd : open("/dev/null", O_RDONLY);
  if (in >= 0) dup2(in, STDIN_FILENO);
  if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) {
    std::fprintf(stderr, "cannot chdir to %s: %s\n", spec.cwd.c_str(), std::strerror(errno));
    _exit(127);
  }
  for (const auto& [k, v] : spec.env) setenv(k.c_str(), v.c_str(), 1);
  std::vector<char*> args;
  for (const auto& a : spec.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
  _exit(127);
}

pid_t spawn(const ProcessSpec& spec, int out_fd, int err_fd, int in_fd = -1) {
  if (spec.argv.empty()) throw std::invalid_argument("run_process: empty command");
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed: " + std::string(std::strerror(errno)));
  if (pid == 0) exec_child(spec, in_fd, out_fd, err_fd);
  setpgid(pid, pid);  // also done in the child; whichever runs first wins the race
  return pid;
}

ProcessResult result_from_status(int status, double seconds) {
  ProcessResult r;
  r.seconds = seconds;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

// TERM the group, KILL it 2 s later, reap the leader.
void kill_group(pid_t pid) {
  kill(-pid, SIGTERM);
  auto t0 = Clock::now();
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (seconds_since(t0) > 2.0) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid, SIGKILL);  // stragglers the leader left in its group
}

// Polls the child until it ends, its time is up or an interrupt arrives.
ProcessResult wait_child(pid_t pid, double timeout_s, Clock::time_point t0) {
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) return result_from_status(status, seconds_since(t0));
    if (w < 0 && errno != EINTR) throw std::runtime_error("waitpid failed: " + std::string(std::strerror(errno)));
    if (int sig = pending_interrupt()) {
      kill_group(pid);
      throw_interrupt(sig);
    }
    if (timeout_s > 0 && seconds_since(t0) > timeout_s) {
      kill_group(pid);
      ProcessResult r;
      r.timed_out = true;
      r.seconds = seconds_since(t0);
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

Interrupted::Interrupted(int sig)
    : std::runtime_error("interrupted by signal " + std::to_string(sig)), signal_(sig) {}

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking read returns EINTR and sees the flag
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int pending_interrupt() { return g_signal; }

void throw_if_interrupted() {
  if (int sig = pending_interrupt()) throw_interrupt(sig);
}

std::string ProcessResult::describe() const {
  char buf[96];
  if (timed_out) {
    std::snprintf(buf, sizeof buf, "timeout after %.1f s", seconds);
    return buf;
  }
  if (signal) return "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit " + std::to_string(exit_code);
}

ProcessResult run_process(const ProcessSpec& spec) {
  throw_if_interrupted();
  std::string path = spec.log_path.empty() ? "/dev/null" : spec.log_path;
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open log " + path + ": " + std::strerror(errno));
  auto t0 = Clock::now();
  pid_t pid;
  try {
    pid = spawn(spec, fd, fd);
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);
  return wait_child(pid, spec.timeout_s, t0);
}

Coprocess::Coprocess(ProcessSpec spec) : spec_(std::move(spec)) {
  throw_if_interrupted();
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed: " + std::string(std::strerror(errno)));
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    close(in_pipe[0]);
    close(in_pipe[1]);
    throw std::runtime_error("pipe failed: " + std::string(std::strerror(errno)));
  }
  const std::string path = spec_.log_path.empty() ? "/dev/null" : spec_.log_path;
  const int log = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  try {
    if (log < 0) throw std::runtime_error("cannot open log " + path + ": " + std::strerror(errno));
    pid_ = spawn(spec_, out_pipe[1], log, in_pipe[0]);
  } catch (...) {
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], log})
      if (fd >= 0) close(fd);
    throw;
  }
  close(log);
  close(in_pipe[0]);
  close(out_pipe[1]);
  to_child_ = in_pipe[1];
  from_child_ = out_pipe[0];
  std::signal(SIGPIPE, SIG_IGN);  // a child that died answers a write with EPIPE, not a signal
}

Coprocess::~Coprocess() {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  if (pid_ < 0) return;
  const auto t0 = Clock::now();
  int status = 0;
  for (;;) {  // not wait_child(): a destructor must not throw its Interrupted
    if (waitpid(pid_, &status, WNOHANG) != 0) return;  // reaped (or not ours): nothing left to kill
    if (seconds_since(t0) >= 2.0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill_group(pid_);
}

void Coprocess::fail(const std::string& why) {
  if (pid_ >= 0) kill_group(pid_);
  pid_ = -1;
  throw std::runtime_error(join_command(spec_.argv) + ": " + why + " (its stderr: " + spec_.log_path + ")");
}

std::string Coprocess::request(const std::string& line) {
  if (pid_ < 0) throw std::runtime_error(join_command(spec_.argv) + ": the child is gone");
  const std::string out = line + "\n";
  for (size_t sent = 0; sent < out.size();) {
    const ssize_t n = write(to_child_, out.data() + sent, out.size() - sent);
    if (n < 0 && errno == EINTR) {
      throw_if_interrupted();
      continue;
    }
    if (n < 0) fail("cannot write a request: " + std::string(std::strerror(errno)));
    sent += size_t(n);
  }
  const auto t0 = Clock::now();
  for (;;) {
    if (const size_t eol = pending_.find('\n'); eol != std::string::npos) {
      std::string reply = pending_.substr(0, eol);
      pending_.erase(0, eol + 1);
      return reply;
    }
    if (int sig = pending_interrupt()) {
      kill_group(pid_);
      pid_ = -1;
      throw_interrupt(sig);
    }
    if (spec_.timeout_s > 0 && seconds_since(t0) > spec_.timeout_s)
      fail("no reply within " + std::to_string(spec_.timeout_s) + " s");
    pollfd p{from_child_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;  // nothing yet, or EINTR: the loop checks the interrupt and the time
    char buf[4096];
    const ssize_t n = read(from_child_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // its stdout closed: reap it (a child that lingers is killed after 2 s)
      const std::string how = wait_child(pid_, 2.0, Clock::now()).describe();
      pid_ = -1;
      fail("ended (" + how + ") before answering");
    }
    pending_.append(buf, size_t(n));
  }
}

Captured capture(const std::vector<std::string>& argv, const std::string& cwd) {
  throw_if_interrupted();
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed: " + std::string(std::strerror(errno)));
  ProcessSpec spec{argv, cwd, {}, "", 0};
  auto t0 = Clock::now();
  pid_t pid = spawn(spec, out_pipe[1], err_pipe[1]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  Captured c;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&c.out, &c.err};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    if (int sig = pending_interrupt()) {
      close(out_pipe[0]);
      close(err_pipe[0]);
      kill_group(pid);
      throw_interrupt(sig);
    }
    if (poll(fds, 2, 50) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  c.result = wait_child(pid, 0, t0);
  return c;
}

std::string capture_ok(const std::vector<std::string>& argv, const std::string& cwd) {
  Captured c = capture(argv, cwd);
  if (!c.result.ok())
    throw std::runtime_error("`" + join_command(argv) + "` in " + (cwd.empty() ? "." : cwd) + " failed (" +
                             c.result.describe() + "): " + c.err);
  return c.out;
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    bool plain = !a.empty() && a.find_first_of(" \t\"'$\\") == std::string::npos;
    s += plain ? a : "'" + a + "'";
  }
  return s;
}

ShellResult capture_shell(const std::string& command, bool merge_stderr) {
  const Captured c = capture({"/bin/sh", "-c", merge_stderr ? "(" + command + ") 2>&1" : command}, "");
  ShellResult r;
  r.exit_code = c.result.signal ? 128 + c.result.signal : c.result.exit_code;
  r.output = c.out;
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

}  // namespace music3::tools
