// A host thread that runs submitted tasks one at a time, in submission order, beside the thread that submits them:
// how `music3 generate` runs a finished window's acoustic stage while its AR loop goes on.
// Contract: submit() queues a task and returns at once; the tasks run in order on the worker's thread. A task that
// throws stops the worker: the tasks queued after it are dropped (never run), later submit() calls are dropped, and
// finish() rethrows that exception. finish() waits for every queued task (or the failure) and joins the thread;
// call it once, before reading what the tasks wrote. The destructor finishes and swallows a pending exception (the
// owner is already unwinding). Thread-safety: submit() and finish() belong to one owner thread; the tasks may share
// data with it only through what finish() orders (everything a task wrote is visible after finish()) or their own
// synchronisation.
#pragma once
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace music3::runtime {

class SerialWorker {
 public:
  SerialWorker();
  ~SerialWorker();
  SerialWorker(const SerialWorker&) = delete;
  SerialWorker& operator=(const SerialWorker&) = delete;

  void submit(std::function<void()> task);
  void finish();

 private:
  void loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool closed_ = false, failed_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace music3::runtime
