// Argument checks shared by the op entry points (ops.cpp).
// Contract: every check throws std::invalid_argument whose message starts with
// "<op>: argument '<name>'" and states what was expected and what was given
// (the tensor's describe(), e.g. "BF16[2,4096]@cpu"), so a refusal names the
// problem without a debugger. Checks never touch tensor data.
// Thread-safety: pure checks: thread-safe.
#pragma once
#include <cstdint>
#include <string>

#include "engine/core/queue.h"
#include "engine/core/tensor.h"

namespace music3::ops {

// A tensor on the queue's device, of dtype `dt` and rank `rank`, every dimension
// at least 1, with a non-null data pointer.
void check_tensor(const char* op, const char* arg, const Tensor& t, DType dt, int rank, const Queue& q);

// Dimension `dim` of `t` equals `want`; `why` says where `want` comes from ("K of 'a'").
void check_dim(const char* op, const char* arg, const Tensor& t, int dim, int64_t want, const std::string& why);

// The byte ranges of `a` and `b` do not overlap, or (when `exact_alias_ok`) they
// are the same view: the same pointer, dtype and shape.
void check_disjoint(const char* op, const char* arg_a, const Tensor& a, const char* arg_b, const Tensor& b,
                    bool exact_alias_ok = false);

// A scalar argument out of its range: "<op>: argument '<name>' <what>".
[[noreturn]] void fail_scalar(const char* op, const char* arg, const std::string& what);

}  // namespace music3::ops
