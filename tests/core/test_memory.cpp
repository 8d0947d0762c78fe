// The memory check's refusal line and the vote every rank reduces with one MPI_MINLOC (<proxy/memory.hpp>):
// the reduction is done here by hand, element by element, as MPI_MINLOC does it.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "proxy/memory.hpp"

namespace {

// MPI_MINLOC over the ranks' votes: per pair the smallest value, and among equal values the smallest code.
proxy::MemoryVote minloc(const std::vector<proxy::MemoryVote>& votes) {
  proxy::MemoryVote reduced = votes.front();
  for (const proxy::MemoryVote& vote : votes) {
    for (int i = 0; i < 2; ++i) {
      const auto& a = reduced[i];
      const auto& b = vote[i];
      if (b.value < a.value || (b.value == a.value && b.code < a.code)) reduced[i] = b;
    }
  }
  return reduced;
}

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
using proxy::MemoryLimit;
using proxy::memory_vote;

TEST(MemoryCheck, RefusalNamesTheNeedTheShareAndTheLimit) {
  EXPECT_EQ(proxy::memory_refusal("--n 1000", 16.1 * GiB, 2, {11.8 * GiB, MemoryLimit::cgroup}),
            "--n 1000 needs 16.1 GiB per rank (2 ranks on this node), 11.8 GiB available per rank "
            "(the cgroup's memory limit)");
  EXPECT_EQ(proxy::memory_refusal("--size 4G", 2.0 * GiB, 1, {512.0 * 1024 * 1024, MemoryLimit::address_space}),
            "--size 4G needs 2.0 GiB per rank (1 rank on this node), 512.0 MiB available per rank (RLIMIT_AS)");
  EXPECT_EQ(proxy::memory_refusal("--n 8", 1.0 * GiB, 4, {1.0 * GiB, MemoryLimit::host_available}), "");
  EXPECT_EQ(proxy::memory_refusal("--n 8", 1e30, 4, {}), "");  // nothing could be read: no limit
}

TEST(MemoryCheck, EveryRankDecidesFromTheSmallestShareAndTheLargestNeed) {
  // Rank 1 has the least room (its cgroup); rank 2 needs the most.
  const proxy::MemoryVote reduced = minloc({memory_vote({8.0 * GiB, MemoryLimit::host_available}, 1.0 * GiB),
                                            memory_vote({3.0 * GiB, MemoryLimit::cgroup}, 1.0 * GiB),
                                            memory_vote({8.0 * GiB, MemoryLimit::host_available}, 4.0 * GiB)});
  EXPECT_EQ(proxy::memory_refusal("--n 512", reduced, 3),
            "--n 512 needs 4.0 GiB per rank (3 ranks on this node), 3.0 GiB available per rank "
            "(the cgroup's memory limit)");
  const proxy::MemoryVote alone = minloc({memory_vote({8.0 * GiB, MemoryLimit::cgroup}, 2.0 * GiB)});
  EXPECT_EQ(proxy::memory_refusal("--n 512", alone, 1), "");
}

TEST(MemoryCheck, EqualSharesNameTheLowestLimitCode) {
  const proxy::MemoryVote reduced = minloc({memory_vote({2.0 * GiB, MemoryLimit::address_space}, 3.0 * GiB),
                                            memory_vote({2.0 * GiB, MemoryLimit::host_available}, 3.0 * GiB)});
  EXPECT_EQ(proxy::memory_refusal("--n 9", reduced, 2),
            "--n 9 needs 3.0 GiB per rank (2 ranks on this node), 2.0 GiB available per rank "
            "(the host's MemAvailable)");
}

TEST(MemoryCheck, NoLimitReadIsInfiniteAndNeverRefuses) {
  const proxy::MemoryVote reduced = minloc({memory_vote({}, std::numeric_limits<double>::max())});
  EXPECT_EQ(reduced[0].value, std::numeric_limits<double>::infinity());
  EXPECT_EQ(proxy::memory_refusal("--n 9", reduced, 1), "");
}

}  // namespace
