// Private to proxy::core: the progress token of the cooperative strategy. Whoever holds it may call MPI and
// run one step of the progress loop (drain the queue, start, progress, publish); nobody waits for it: a
// thread that cannot take it has nothing to do, since the holder is progressing for everyone.
//
// Thread contract: any thread may try_acquire(); only the holder may release(). The acquire exchange and
// the release store order everything one holder did (its MPI calls, the loop's state, the queue's consumer
// side) before everything the next holder does: the happens-before that MPI_THREAD_SERIALIZED asks of
// calls from different threads.
#pragma once

#include <atomic>

#include "proxy/detail/queue.hpp"

namespace proxy {

class ProgressToken {
 public:
  // True when the calling thread now holds the token. A plain load first, so that threads that find it
  // taken do not bounce its cache line with failed exchanges.
  bool try_acquire() noexcept {
    if (held_.load(std::memory_order_relaxed)) return false;
    return !held_.exchange(true, std::memory_order_acquire);
  }
  void release() noexcept { held_.store(false, std::memory_order_release); }

 private:
  alignas(kCacheLineSize) std::atomic<bool> held_{false};
  char padding_[kCacheLineSize - sizeof(std::atomic<bool>)];
};

// Holds the token for a scope if it can be taken: `if (TokenScope scope(token); scope) ...`.
class TokenScope {
 public:
  explicit TokenScope(ProgressToken& token) noexcept : token_(token), held_(token.try_acquire()) {}
  ~TokenScope() {
    if (held_) token_.release();
  }
  TokenScope(const TokenScope&) = delete;
  TokenScope& operator=(const TokenScope&) = delete;
  explicit operator bool() const noexcept { return held_; }

 private:
  ProgressToken& token_;
  bool held_;
};

}  // namespace proxy
