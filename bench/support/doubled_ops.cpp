#include "bench/support/doubled_ops.h"

#include <utility>

namespace music3::bench {

thread_local int DoubledOps::depth_ = 0;

DoubledOps::DoubledOps(OpLabeler labeler, std::string label) : labeler_(std::move(labeler)), label_(std::move(label)) {
  ops::set_op_observer(this);
}

DoubledOps::~DoubledOps() { ops::set_op_observer(nullptr); }

void DoubledOps::before(ops::OpId, const ops::Provider&, const Queue&, const void*) { ++depth_; }

void DoubledOps::after(ops::OpId op, const ops::Provider& p, const Queue& q, const void* args) {
  if (--depth_ > 0 || labeler_(op, args).label != label_) return;
  ++depth_;  // the second call's inner dispatches are inside it
  p.run(q, args);
  --depth_;
  doubled_.fetch_add(1);
}

}  // namespace music3::bench
