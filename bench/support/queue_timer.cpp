#include "bench/support/queue_timer.h"

#include <chrono>

namespace music3::bench {
namespace {
double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

QueueTimer::QueueTimer(const Queue& q) : q_(q), events_(q.device == DeviceType::CUDA) {}

void QueueTimer::start() {
  if (events_.active()) {
    events_.record_start(q_.stream, "timed region start");
    return;
  }
  q_.synchronize();
  host_start_ = host_seconds();
}

double QueueTimer::stop_seconds() {
  if (events_.active()) {
    events_.record_stop(q_.stream, "timed region stop");
    return events_.seconds("timed region");
  }
  q_.synchronize();
  return host_seconds() - host_start_;
}

}  // namespace music3::bench
