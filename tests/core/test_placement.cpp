// compute_placement(): pure arithmetic, checked exhaustively for 1..64 cores and 1..8 ranks per node.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "proxy/error.hpp"
#include "proxy/placement.hpp"

namespace {

TEST(Placement, SlicesPartitionTheNodeEvenlyWithADedicatedProxyCoreWhenPossible) {
  for (int cores = 1; cores <= 64; ++cores) {
    for (int ranks = 1; ranks <= 8; ++ranks) {
      std::multiset<int> used;
      int smallest = 1 << 30, largest = 0;
      for (int r = 0; r < ranks; ++r) {
        const auto p = proxy::compute_placement({cores, ranks, r, 0, true});
        SCOPED_TRACE(testing::Message() << cores << " cores, " << ranks << " ranks, rank " << r << ": " << p.describe());
        ASSERT_FALSE(p.cores.empty());
        used.insert(p.cores.begin(), p.cores.end());
        smallest = std::min<int>(smallest, static_cast<int>(p.cores.size()));
        largest = std::max<int>(largest, static_cast<int>(p.cores.size()));
        for (int c : p.cores) ASSERT_TRUE(c >= 0 && c < cores);
        ASSERT_TRUE(std::is_sorted(p.cores.begin(), p.cores.end()));
        if (p.cores.size() >= 2) {
          EXPECT_FALSE(p.shared_proxy);
          EXPECT_EQ(p.proxy_core, p.cores.back());
          EXPECT_EQ(p.compute_cores.size(), p.cores.size() - 1);
          EXPECT_EQ(std::count(p.compute_cores.begin(), p.compute_cores.end(), p.proxy_core), 0);
        } else {
          EXPECT_TRUE(p.shared_proxy);
          EXPECT_EQ(p.proxy_core, p.cores.front());
          EXPECT_EQ(p.compute_cores, p.cores);
        }
        EXPECT_EQ(p.threads, static_cast<int>(p.compute_cores.size()));
        EXPECT_EQ(p.oversubscribed, cores < ranks);
      }
      if (cores >= ranks) {
        // Every core used exactly once, slices differ by at most one core.
        EXPECT_EQ(used.size(), static_cast<std::size_t>(cores));
        EXPECT_EQ(std::set<int>(used.begin(), used.end()).size(), static_cast<std::size_t>(cores));
        EXPECT_LE(largest - smallest, 1);
      } else {
        EXPECT_EQ(used.size(), static_cast<std::size_t>(ranks));  // one core each, shared round-robin
      }
    }
  }
}

TEST(Placement, WithoutAProxyAllCoresCompute) {
  const auto p = proxy::compute_placement({16, 2, 1, 0, false});
  EXPECT_EQ(p.cores, (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(p.proxy_core, -1);
  EXPECT_EQ(p.threads, 8);
  EXPECT_EQ(p.describe(), "cores 8-15: 8 compute threads on 8-15");
}

TEST(Placement, DescribesADedicatedProxy) {
  const auto p = proxy::compute_placement({16, 4, 0, 0, true});
  EXPECT_EQ(p.describe(), "cores 0-3: proxy on 3 (dedicated), 3 compute threads on 0-2");
}

TEST(Placement, UnevenSplitGivesTheFirstRanksOneMoreCore) {
  EXPECT_EQ(proxy::compute_placement({10, 4, 0, 0, true}).cores, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(proxy::compute_placement({10, 4, 1, 0, true}).cores, (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(proxy::compute_placement({10, 4, 2, 0, true}).cores, (std::vector<int>{6, 7}));
  EXPECT_EQ(proxy::compute_placement({10, 4, 3, 0, true}).cores, (std::vector<int>{8, 9}));
}

TEST(Placement, OneCorePerRankRunsTheProxySharedAndSaysSo) {
  const auto p = proxy::compute_placement({2, 2, 1, 0, true});
  EXPECT_TRUE(p.shared_proxy);
  EXPECT_EQ(p.describe(), "cores 1: proxy on 1 (shared), 1 compute thread on 1");
}

TEST(Placement, MoreThreadsThanCoresIsOversubscribed) {
  const auto p = proxy::compute_placement({4, 1, 0, 6, true});
  EXPECT_EQ(p.threads, 6);
  EXPECT_TRUE(p.oversubscribed);
  EXPECT_EQ(p.compute_cores, (std::vector<int>{0, 1, 2}));
}

TEST(Placement, BadCountsAreRefusedNamingTheValue) {
  try {
    proxy::compute_placement({0, 1, 0, 0, true});
    FAIL() << "no error";
  } catch (const proxy::Error& e) {
    EXPECT_STREQ(e.what(), "placement: cores_on_node 0 < 1");
  }
  try {
    proxy::compute_placement({8, 2, 2, 0, true});
    FAIL() << "no error";
  } catch (const proxy::Error& e) {
    EXPECT_STREQ(e.what(), "placement: local_rank 2 outside [0, 2)");
  }
  EXPECT_THROW(proxy::compute_placement({8, 2, 0, -1, true}), proxy::Error);
}

}  // namespace
