// Private to proxy::core: how the sleeping proxy thread of the cooperative strategy is woken. Unlike a
// Notifier it sleeps the whole interval it is given (no short slices): the proxy is a backstop that must
// not take turns on a core the compute threads need.
// Thread contract: any thread may ring(); one thread (the proxy) sleeps in wait_for().
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace proxy {

class Doorbell {
 public:
  void ring() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      rung_ = true;
    }
    cv_.notify_one();
  }
  // Sleeps until rung or `interval` has passed; true when rung (and clears it).
  bool wait_for(std::chrono::microseconds interval) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait_for(lock, interval, [&] { return rung_; });
    const bool rung = rung_;
    rung_ = false;
    return rung;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool rung_ = false;
};

}  // namespace proxy
