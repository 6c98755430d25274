#include "engine/ops/op_checks.h"

#include <stdexcept>

namespace music3::ops {
namespace {

[[noreturn]] void fail(const char* op, const char* arg, const std::string& expected, const Tensor& t) {
  throw std::invalid_argument(std::string(op) + ": argument '" + arg + "' expected " + expected + ", got " +
                              t.describe());
}

}  // namespace

void check_tensor(const char* op, const char* arg, const Tensor& t, DType dt, int rank, const Queue& q) {
  if (t.device != q.device)
    fail(op, arg, "a tensor on the queue's device '" + device_type_name(q.device) + "'", t);
  if (t.dtype != dt) fail(op, arg, "dtype " + std::string(dtype_name(dt)), t);
  if (t.shape.rank != rank) fail(op, arg, "rank " + std::to_string(rank), t);
  for (int i = 0; i < rank; ++i)
    if (t.shape[i] < 1) fail(op, arg, "every dimension >= 1", t);
  if (t.data == nullptr) fail(op, arg, "a non-null data pointer", t);
}

void check_dim(const char* op, const char* arg, const Tensor& t, int dim, int64_t want, const std::string& why) {
  if (t.shape[dim] != want)
    fail(op, arg, "dimension " + std::to_string(dim) + " = " + std::to_string(want) + " (" + why + ")", t);
}

void check_disjoint(const char* op, const char* arg_a, const Tensor& a, const char* arg_b, const Tensor& b,
                    bool exact_alias_ok) {
  if (exact_alias_ok && a.data == b.data && a.dtype == b.dtype && a.shape == b.shape) return;
  auto lo_a = reinterpret_cast<uintptr_t>(a.data), lo_b = reinterpret_cast<uintptr_t>(b.data);
  if (lo_a < lo_b + b.bytes() && lo_b < lo_a + a.bytes())
    fail(op, arg_a,
         std::string("memory disjoint from argument '") + arg_b + "' " + b.describe() +
             (exact_alias_ok ? " (or the very same view)" : ""),
         a);
}

void fail_scalar(const char* op, const char* arg, const std::string& what) {
  throw std::invalid_argument(std::string(op) + ": argument '" + arg + "' " + what);
}

}  // namespace music3::ops
