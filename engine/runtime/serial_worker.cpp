#include "engine/runtime/serial_worker.h"

#include <utility>

namespace music3::runtime {

SerialWorker::SerialWorker() : thread_([this] { loop(); }) {}

SerialWorker::~SerialWorker() {
  try {
    finish();
  } catch (...) {
  }
}

void SerialWorker::submit(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (closed_ || failed_) return;
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void SerialWorker::finish() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void SerialWorker::loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return closed_ || !tasks_.empty(); });
    if (tasks_.empty()) return;  // closed and drained
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    try {
      task();
    } catch (...) {
      lock.lock();
      error_ = std::current_exception();
      failed_ = true;
      tasks_.clear();
      return;
    }
    lock.lock();
  }
}

}  // namespace music3::runtime
