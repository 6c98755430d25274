// An op observer for the *-step-breakdown tools' marginal costs: while installed, every op whose label (the tool's
// labeler) equals `label` is issued a second time right after the first, by the same provider with the same
// arguments, so a captured graph holds each such call twice. The graph's replay time minus the plain graph's is what
// one more call of that role costs inside the graph (its kernels and their boundaries), an upper bound of what
// fusing the role away can save. The doubled call's results stand (an in-place op applies twice): time, do not read.
// Contract: the constructor installs it as the process's op observer, the destructor removes it; an op a provider
// dispatches inside its own call is not doubled on its own (it runs again when its outer call is doubled); a
// provider's exception propagates (the tool ends).
// Thread-safety: ops may be dispatched from any thread while installed; doubled() is atomic.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include "bench/support/op_timeline.h"

namespace music3::bench {

class DoubledOps final : public ops::OpObserver {
 public:
  DoubledOps(OpLabeler labeler, std::string label);
  ~DoubledOps() override;
  DoubledOps(const DoubledOps&) = delete;
  DoubledOps& operator=(const DoubledOps&) = delete;

  int64_t doubled() const { return doubled_.load(); }  // second calls issued so far

  void before(ops::OpId op, const ops::Provider& p, const Queue& q, const void* args) override;
  void after(ops::OpId op, const ops::Provider& p, const Queue& q, const void* args) override;

 private:
  OpLabeler labeler_;
  std::string label_;
  std::atomic<int64_t> doubled_{0};
  static thread_local int depth_;  // providers' calls open on this thread: only the outermost is doubled
};

}  // namespace music3::bench
