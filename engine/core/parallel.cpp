#include "engine/core/parallel.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace music3 {
namespace {

// A persistent pool: spawning threads per op would cost more than small ops do.
class WorkerPool {
 public:
  explicit WorkerPool(int workers) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { loop(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  int workers() const { return static_cast<int>(threads_.size()); }

  // Runs task(0..parts-1) with the caller taking part 0; returns when all are done.
  void run(int parts, const std::function<void(int)>& task) {
    std::unique_lock l(mu_);
    task_ = &task;
    next_ = 1;
    parts_ = parts;
    pending_ = parts - 1;
    error_ = nullptr;
    ++generation_;
    l.unlock();
    cv_.notify_all();
    std::exception_ptr own;
    try {
      task(0);
    } catch (...) {
      own = std::current_exception();
    }
    l.lock();
    done_cv_.wait(l, [this] { return pending_ == 0; });
    task_ = nullptr;
    if (own) std::rethrow_exception(own);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void loop() {
    uint64_t seen = 0;
    std::unique_lock l(mu_);
    for (;;) {
      cv_.wait(l, [&] { return stop_ || (generation_ != seen && next_ < parts_); });
      if (stop_) return;
      while (next_ < parts_) {
        int part = next_++;
        const auto* task = task_;
        l.unlock();
        try {
          (*task)(part);
        } catch (...) {
          std::lock_guard g(err_mu_);
          if (!error_) error_ = std::current_exception();
        }
        l.lock();
        if (--pending_ == 0) done_cv_.notify_all();
      }
      seen = generation_;
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mu_, err_mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int)>* task_ = nullptr;
  int next_ = 0, parts_ = 0, pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

WorkerPool& pool() {
  static WorkerPool p(std::max(0, default_thread_count() - 1));
  return p;
}
std::mutex& pool_entry() {
  static std::mutex m;
  return m;
}
thread_local bool tl_inside_region = false;
}  // namespace

int default_thread_count() {
  if (const char* env = std::getenv("MUSIC3_THREADS")) {
    int v = std::atoi(env);
    if (v > 0) return v;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(int64_t n, int threads, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  int t = threads > 0 ? threads : default_thread_count();
  t = static_cast<int>(std::min<int64_t>(t, n));
  t = std::min(t, pool().workers() + 1);
  if (t <= 1 || tl_inside_region) {  // nested regions run inline on the calling thread
    fn(0, n);
    return;
  }
  auto part = [&](int i) {
    tl_inside_region = true;
    int64_t b = n * i / t, e = n * (i + 1) / t;
    try {
      if (b < e) fn(b, e);
    } catch (...) {
      tl_inside_region = false;
      throw;
    }
    tl_inside_region = false;
  };
  std::lock_guard l(pool_entry());  // one parallel region at a time
  pool().run(t, part);
}

}  // namespace music3
