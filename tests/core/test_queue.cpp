// MpscQueue: exactly-once delivery in per-producer order under stress, wrap-around, full queue.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "proxy/detail/queue.hpp"

namespace {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr std::uint64_t kItemsPerProducer = 100'000;  // sanitizers run ~10x slower
#else
constexpr std::uint64_t kItemsPerProducer = 1'000'000;
#endif

// Item = producer id in the top 16 bits, sequence number below.
constexpr std::uint64_t item(std::uint64_t producer, std::uint64_t seq) { return (producer << 48) | seq; }

void stress(int producers, std::size_t capacity, std::uint64_t items_per_producer = kItemsPerProducer) {
  proxy::MpscQueue<std::uint64_t> queue(capacity);
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p)
    threads.emplace_back([&queue, p, items_per_producer] {
      for (std::uint64_t seq = 0; seq < items_per_producer; ++seq)
        while (!queue.try_push(item(static_cast<std::uint64_t>(p), seq))) std::this_thread::yield();
    });

  std::vector<std::uint64_t> next(static_cast<std::size_t>(producers), 0);
  std::uint64_t received = 0;
  std::uint64_t out_of_order = 0;
  const std::uint64_t total = items_per_producer * static_cast<std::uint64_t>(producers);
  std::uint64_t value = 0;
  while (received < total) {
    if (!queue.try_pop(value)) {
      std::this_thread::yield();
      continue;
    }
    const std::uint64_t p = value >> 48;
    const std::uint64_t seq = value & ((std::uint64_t{1} << 48) - 1);
    ASSERT_LT(p, static_cast<std::uint64_t>(producers)) << "corrupted item " << value;
    if (seq != next[p]) ++out_of_order;
    next[p] = seq + 1;
    ++received;
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(out_of_order, 0u);
  for (int p = 0; p < producers; ++p) EXPECT_EQ(next[static_cast<std::size_t>(p)], items_per_producer);
  EXPECT_FALSE(queue.try_pop(value)) << "an item was delivered twice or invented";
}

TEST(MpscQueue, SingleProducerStressDeliversEveryItemOnceInOrder) { stress(1, 1024); }

TEST(MpscQueue, FourProducerStressDeliversEveryItemOnceInPerProducerOrder) { stress(4, 1024); }

// Two slots: nearly every push or pop finds the queue full or empty and yields, so the time per item is a
// scheduler round trip, which on a loaded machine is a time slice of whatever else runs (with 1M items
// core.unit took 3.4 s idle and once over 300 s beside two busy loops). 25 000 items per producer still
// wrap the queue 50 000 times under four-way contention.
TEST(MpscQueue, TinyQueueUnderFourProducersStillLosesNothing) { stress(4, 2, 25'000); }

TEST(MpscQueue, WrapsAroundManyTimes) {
  proxy::MpscQueue<int> queue(4);
  int value = -1;
  for (int round = 0; round < 10'000; ++round) {
    ASSERT_TRUE(queue.try_push(3 * round));
    ASSERT_TRUE(queue.try_push(3 * round + 1));
    ASSERT_TRUE(queue.try_pop(value));
    ASSERT_EQ(value, 3 * round);
    ASSERT_TRUE(queue.try_push(3 * round + 2));
    ASSERT_TRUE(queue.try_pop(value));
    ASSERT_EQ(value, 3 * round + 1);
    ASSERT_TRUE(queue.try_pop(value));
    ASSERT_EQ(value, 3 * round + 2);
    ASSERT_FALSE(queue.try_pop(value));
  }
}

TEST(MpscQueue, FullQueueRefusesThenAcceptsAfterOnePop) {
  proxy::MpscQueue<int> queue(8);
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(queue.try_push(i));
  EXPECT_EQ(queue.size_approx(), 8u);
  EXPECT_FALSE(queue.try_push(99)) << "a full queue must refuse, never overwrite";
  int value = -1;
  ASSERT_TRUE(queue.try_pop(value));
  EXPECT_EQ(value, 0);
  EXPECT_TRUE(queue.try_push(8));
  for (int expected = 1; expected <= 8; ++expected) {
    ASSERT_TRUE(queue.try_pop(value));
    EXPECT_EQ(value, expected);
  }
}

TEST(MpscQueue, CapacityMustBeAPowerOfTwo) {
  EXPECT_THROW(proxy::MpscQueue<int>(6), proxy::Error);
  EXPECT_THROW(proxy::MpscQueue<int>(1), proxy::Error);
  try {
    proxy::MpscQueue<int> q(12);
  } catch (const proxy::Error& e) {
    EXPECT_STREQ(e.what(), "MpscQueue: capacity 12 is not a power of two >= 2");
  }
}

}  // namespace
