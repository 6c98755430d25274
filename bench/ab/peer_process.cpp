#include "bench/ab/peer_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "engine/io/sha256.h"

namespace music3::bench {
namespace {

[[noreturn]] void fail(const std::string& command, const std::string& what) {
  throw std::runtime_error("peer '" + command + "': " + what);
}

}  // namespace

PeerProcess::PeerProcess(const std::string& command, int timeout_s) : command_(command), timeout_s_(timeout_s) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) fail(command, std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    fail(command, std::string("pipe: ") + std::strerror(errno));
  }
  pid_ = ::fork();
  if (pid_ < 0) fail(command, std::string("fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  to_child_ = in[1];
  from_child_ = out[0];
  hello_ = read_message();
  if (!hello_.value("ready", false)) fail(command, "its first message is not {\"ready\": true}: " + hello_.dump());
}

PeerProcess::~PeerProcess() {
  if (to_child_ >= 0) ::close(to_child_);
  if (from_child_ >= 0) ::close(from_child_);
  if (pid_ <= 0) return;
  for (int i = 0; i < 300; ++i) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
}

std::string PeerProcess::read_line() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s_);
  for (;;) {
    const auto nl = pending_.find('\n');
    if (nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) fail(command_, "no answer within " + std::to_string(timeout_s_) + " s");
    pollfd p{from_child_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) fail(command_, std::string("poll: ") + std::strerror(errno));
    if (ready <= 0) continue;
    char buf[65536];
    const ssize_t n = ::read(from_child_, buf, sizeof buf);
    if (n < 0 && errno != EINTR) fail(command_, std::string("read: ") + std::strerror(errno));
    if (n == 0) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
      fail(command_, "exited (" + std::string(WIFEXITED(status) ? "status " + std::to_string(WEXITSTATUS(status))
                                                                 : "killed by a signal") +
                         ") before answering");
    }
    if (n > 0) pending_.append(buf, static_cast<size_t>(n));
  }
}

nlohmann::json PeerProcess::read_message() {
  for (;;) {
    const std::string line = read_line();
    if (line.empty() || line[0] != '{') {
      std::cerr << "[peer] " << line << "\n";
      continue;
    }
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      fail(command_, "malformed message '" + line + "': " + e.what());
    }
    if (j.contains("error")) fail(command_, "reported an error: " + j["error"].dump());
    return j;
  }
}

nlohmann::json PeerProcess::request(const nlohmann::json& message) {
  const std::string line = message.dump() + "\n";
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(to_child_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(command_, std::string("cannot write a request: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return read_message();
}

PeerArm::PeerArm(const std::string& spec, const std::string& command, const std::string& script, int timeout_s)
    : spec_(spec), script_sha256_(script.empty() ? "" : io::sha256_file(script)), process_(command, timeout_s) {}

std::vector<double> PeerArm::run_repetition(int warmup, int frames) {
  const nlohmann::json reply = process_.request({{"warmup", warmup}, {"frames", frames}});
  if (!reply.contains("ms") || !reply["ms"].is_array() || reply["ms"].size() != size_t(frames))
    throw std::runtime_error("peer '" + process_.command() + "': expected {\"ms\": [" + std::to_string(frames) +
                             " numbers]}, got " + reply.dump().substr(0, 200));
  return reply["ms"].get<std::vector<double>>();
}

nlohmann::json PeerArm::describe() const {
  nlohmann::json d = {{"kind", "peer process"}, {"command", process_.command()}, {"hello", process_.hello()}};
  if (!script_sha256_.empty()) d["script_sha256"] = script_sha256_;
  return d;
}

}  // namespace music3::bench
