// Peers: external commands the A/B runner keeps running for the whole run, so they pay
// their start-up (interpreter, model build, graph capture) once and are interleaved
// with the other arm repetition by repetition.
// Protocol (one JSON object per line; stdout lines not starting with '{' are passed to
// stderr as chatter):
//   peer -> runner, once at start:  {"ready": true, ...description...}
//   runner -> peer, per repetition: {"warmup": W, "frames": N}
//   peer -> runner:                 {"ms": [N per-frame milliseconds]}   or {"error": "..."}
//   the runner closes the peer's stdin at the end; the peer exits.
// Contract: every failure (the peer exits, answers {"error"}, sends a malformed line, or
// stays silent past the timeout) throws std::runtime_error naming the command. The
// destructor closes stdin, waits up to 30 s, and then kills the process it started.
#pragma once
#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>

#include "bench/ab/arm.h"

namespace music3::bench {

class PeerProcess {
 public:
  PeerProcess(const std::string& command, int timeout_s);
  ~PeerProcess();
  PeerProcess(const PeerProcess&) = delete;
  PeerProcess& operator=(const PeerProcess&) = delete;

  nlohmann::json request(const nlohmann::json& message);
  const nlohmann::json& hello() const { return hello_; }
  const std::string& command() const { return command_; }

 private:
  nlohmann::json read_message();
  std::string read_line();

  std::string command_;
  int timeout_s_;
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  std::string pending_;
  nlohmann::json hello_;
};

class PeerArm final : public Arm {
 public:
  PeerArm(const std::string& spec, const std::string& command, const std::string& script, int timeout_s);
  std::vector<double> run_repetition(int warmup, int frames) override;
  nlohmann::json describe() const override;
  std::string gated_binary() const override { return ""; }

 private:
  std::string spec_, script_sha256_;
  PeerProcess process_;
};

}  // namespace music3::bench
