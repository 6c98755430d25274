// The one path every op entry point takes to its provider (dispatch), with an optional process-wide observer
// around the provider call, for per-op timing tools (bench/acoustic/dit-step-breakdown): before() runs after
// selection and before the provider enqueues its work, after() once the provider has returned (its work is
// enqueued on q, not necessarily finished). An observer sees every op issued by any thread while installed; with
// none installed dispatch costs one atomic load beyond selection.
// Contract: set_op_observer(o) installs o (nullptr removes it); the caller keeps o alive while installed and
// removes it before destroying it. An exception from the provider skips after().
// Thread-safety: set_op_observer and dispatch are thread-safe; the observer itself must be for concurrent callers.
#pragma once
#include "engine/core/queue.h"
#include "engine/ops/registry.h"

namespace music3::ops {

class OpObserver {
 public:
  virtual ~OpObserver() = default;
  virtual void before(OpId op, const Provider& p, const Queue& q, const void* args) = 0;
  virtual void after(OpId op, const Provider& p, const Queue& q, const void* args) = 0;
};

void set_op_observer(OpObserver* o);
void dispatch(OpId op, const Queue& q, const void* args);  // registry().select, then run, observed

}  // namespace music3::ops
