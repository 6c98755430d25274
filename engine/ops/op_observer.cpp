#include "engine/ops/op_observer.h"

#include <atomic>

namespace music3::ops {
namespace {
std::atomic<OpObserver*> g_observer{nullptr};
}  // namespace

void set_op_observer(OpObserver* o) { g_observer.store(o, std::memory_order_release); }

void dispatch(OpId op, const Queue& q, const void* args) {
  const Provider& p = registry().select(op, q.device, args);
  OpObserver* o = g_observer.load(std::memory_order_acquire);
  if (!o) {
    p.run(q, args);
    return;
  }
  o->before(op, p, q, args);
  p.run(q, args);
  o->after(op, p, q, args);
}

}  // namespace music3::ops
