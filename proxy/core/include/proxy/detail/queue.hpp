// Internal to the runtime (not installed): the proxy's request queue.
// MpscQueue: a bounded lock-free multi-producer / single-consumer ring.
// Thread safety: ANY thread may call try_push(); exactly ONE thread (the proxy) may call try_pop().
// size_approx() and capacity() may be called from anywhere.
//
// Each cell carries a sequence number (Vyukov's bounded queue): a producer claims a slot by CAS on the
// tail, writes the item, then publishes it by a release store of the cell's sequence; the consumer owns
// the head outright and needs no CAS. Cells and indices sit on their own cache lines. A full queue makes
// try_push() return false: the caller applies back-pressure (waits) and never drops an item.
// Items are moved in and out (a command carries the shared_ptr that keeps its operation alive); a failed
// try_push() leaves the caller's item untouched, and try_pop() leaves a moved-from item in the cell.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "proxy/detail/thread_rule.hpp"
#include "proxy/error.hpp"

namespace proxy {

inline constexpr std::size_t kCacheLineSize = 64;

template <class T>
class MpscQueue {
  static_assert(std::is_nothrow_move_assignable_v<T>, "items move between threads inside noexcept push/pop");
  static_assert(std::is_default_constructible_v<T>);

 public:
  explicit MpscQueue(std::size_t capacity) : mask_(capacity - 1), cells_(new Cell[capacity]) {
    if (capacity < 2 || (capacity & (capacity - 1)) != 0)
      throw Error("MpscQueue: capacity " + std::to_string(capacity) + " is not a power of two >= 2");
    for (std::size_t i = 0; i < capacity; ++i) cells_[i].sequence.store(i, std::memory_order_relaxed);
  }
  MpscQueue(const MpscQueue&) = delete;
  MpscQueue& operator=(const MpscQueue&) = delete;

  // Any thread. False when the queue is full (then `item` is left as it was).
  template <class U>
  bool try_push(U&& item) noexcept {
    static_assert(std::is_nothrow_assignable_v<T&, U&&>);
    std::size_t pos = tail_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[pos & mask_];
      const std::size_t seq = cell.sequence.load(std::memory_order_acquire);
      const auto diff = static_cast<std::intptr_t>(seq) - static_cast<std::intptr_t>(pos);
      if (diff == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          cell.item = std::forward<U>(item);
          cell.sequence.store(pos + 1, std::memory_order_release);
          return true;
        }
      } else if (diff < 0) {
        return false;  // the consumer has not freed this cell yet: full
      } else {
        pos = tail_.load(std::memory_order_relaxed);
      }
    }
  }

  // Consumer thread only (checked where thread rules are: detail/thread_rule.hpp). False when empty.
  bool try_pop(T& item) noexcept {
    const detail::ExclusiveSection::Guard one_consumer(consumer_);
    const std::size_t pos = head_.load(std::memory_order_relaxed);
    Cell& cell = cells_[pos & mask_];
    const std::size_t seq = cell.sequence.load(std::memory_order_acquire);
    if (seq != pos + 1) return false;
    item = std::move(cell.item);
    cell.sequence.store(pos + mask_ + 1, std::memory_order_release);
    head_.store(pos + 1, std::memory_order_relaxed);
    return true;
  }

  std::size_t capacity() const noexcept { return mask_ + 1; }
  std::size_t size_approx() const noexcept {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    const std::size_t head = head_.load(std::memory_order_relaxed);
    return tail > head ? tail - head : 0;
  }

 private:
  struct alignas(kCacheLineSize) Cell {
    std::atomic<std::size_t> sequence;
    T item;
  };
  static_assert(alignof(Cell) == kCacheLineSize, "cells must not share cache lines");

  const std::size_t mask_;
  std::unique_ptr<Cell[]> cells_;
  alignas(kCacheLineSize) std::atomic<std::size_t> tail_{0};  // producers
  alignas(kCacheLineSize) std::atomic<std::size_t> head_{0};  // consumer
  detail::ExclusiveSection consumer_{"MpscQueue::try_pop: one consumer thread at a time"};
  char padding_[kCacheLineSize - sizeof(std::atomic<std::size_t>) - sizeof(detail::ExclusiveSection)];
};

}  // namespace proxy
