// The CUDA provider under test (op_<op>_cuda and op_<op>_cuda_sanitized).
#include "engine/core/queue.h"
#include "gates/ops/support/provider_under_test.h"

namespace music3::optest {
bool provider_is_cuda() { return true; }
std::string provider_name() { return "cuda"; }
Queue provider_queue(int) { return cuda_queue(0); }
}  // namespace music3::optest
