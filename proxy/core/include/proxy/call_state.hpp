// Where a ProxyThread::call() stands (installed: call() is a template), shared by the caller and the
// closure it submitted, so that a caller that gives up never leaves the proxy a closure pointing into its frame.
//
//   queued --(proxy begins it)--> running --(fn returned or threw)--> done
//   queued --(caller's wait timed out)--> abandoned   (the proxy then skips it: fn is never touched)
//
// Thread contract: begin() and finish() on the proxy thread; abandon() and finished() on the caller. The
// one compare-exchange on `queued` decides who owns fn: the proxy (running) or nobody (abandoned).
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <atomic>

namespace proxy::detail {

class CallState {
 public:
  // Proxy thread: true if fn may run now (queued -> running); false if the caller abandoned it.
  bool begin() noexcept {
    Phase expected = Phase::queued;
    return phase_.compare_exchange_strong(expected, Phase::running, std::memory_order_acq_rel);
  }
  // Proxy thread: fn has returned or thrown.
  void finish() noexcept { phase_.store(Phase::done, std::memory_order_release); }
  // Caller, after its wait timed out: true if fn had not begun and now never will (queued -> abandoned).
  bool abandon() noexcept {
    Phase expected = Phase::queued;
    return phase_.compare_exchange_strong(expected, Phase::abandoned, std::memory_order_acq_rel);
  }
  // Caller: fn has returned or thrown (its ticket completes right after).
  bool finished() const noexcept { return phase_.load(std::memory_order_acquire) == Phase::done; }

  // Proxy thread: marks fn finished however it leaves (return or exception).
  struct Finish {
    CallState& state;
    ~Finish() { state.finish(); }
  };

 private:
  enum class Phase { queued, running, done, abandoned };
  std::atomic<Phase> phase_{Phase::queued};
};

}  // namespace proxy::detail
