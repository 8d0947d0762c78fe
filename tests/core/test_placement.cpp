// Placement arithmetic as a pure function: compute_placement() checked exhaustively for 1..64 cores and 1..8
// unbound ranks per node; place_on_host() with given bindings (overlapping, disjoint, one core,
// launcher-bound, more ranks than cores, no core at all), with the exact describe() lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "proxy/error.hpp"
#include "proxy/placement.hpp"
#include "proxy/progress.hpp"

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
          EXPECT_TRUE(p.proxy_core_dedicated);
          EXPECT_EQ(p.proxy_sharing, proxy::ProxySharing::none);
          EXPECT_EQ(p.proxy_core, p.cores.back());
          EXPECT_EQ(p.compute_cores.size(), p.cores.size() - 1);
          EXPECT_EQ(std::count(p.compute_cores.begin(), p.compute_cores.end(), p.proxy_core), 0);
        } else {
          EXPECT_TRUE(p.shared_proxy);
          EXPECT_FALSE(p.proxy_core_dedicated);
          EXPECT_EQ(p.proxy_sharing, ranks == 1 ? proxy::ProxySharing::binding_has_one_core
                                                : proxy::ProxySharing::ranks_share_cores);
          EXPECT_EQ(p.proxy_core, p.cores.front());
          EXPECT_EQ(p.compute_cores, p.cores);
        }
        EXPECT_EQ(p.threads, static_cast<int>(p.compute_cores.size()));
        // Oversubscribed exactly when another rank gets the same core (more ranks than cores).
        const bool core_has_company = cores < ranks && (r + cores < ranks || r - cores >= 0);
        EXPECT_EQ(p.oversubscribed, core_has_company);
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
  EXPECT_TRUE(p.proxy_core_dedicated);
  EXPECT_EQ(p.proxy_sharing_reason, "");
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
  EXPECT_EQ(p.describe(), "cores 1: proxy on 1 (shared with 1 compute thread: 2 ranks share cores 0-1), "
                          "1 compute thread on 1");
}

TEST(Placement, MoreThreadsThanCoresIsOversubscribed) {
  const auto p = proxy::compute_placement({4, 1, 0, 6, true});
  EXPECT_EQ(p.threads, 6);
  EXPECT_TRUE(p.oversubscribed);
  // 6 threads do not fit beside the proxy: its core computes too rather than sit idle.
  EXPECT_EQ(p.compute_cores, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(p.proxy_sharing, proxy::ProxySharing::compute_does_not_fit);
  EXPECT_EQ(p.describe(), "cores 0-3: proxy on 3 (shared with 1 compute thread: 6 compute threads do not fit on "
                          "the other 3 cores), 6 compute threads on 0-3 (oversubscribed)");
}

// Issue 21: the README's recipe (env.placement(threads, true)) never leaves a core of the rank idle. Under
// the strategy auto then chooses, every core runs compute threads or a dedicated (spinning) proxy.
TEST(Placement, NoCoreSitsIdleWhateverTheThreadCount) {
  for (int cores = 1; cores <= 4; ++cores) {
    for (int threads = 0; threads <= 4; ++threads) {
      const auto p = proxy::compute_placement({cores, 1, 0, threads, true});
      const bool dedicated =
          proxy::choose_progress(proxy::ProgressStrategy::automatic, p) == proxy::ProgressStrategy::dedicated;
      std::vector<int> working = p.compute_cores;
      if (dedicated) working.push_back(p.proxy_core);
      std::sort(working.begin(), working.end());
      working.erase(std::unique(working.begin(), working.end()), working.end());
      EXPECT_EQ(working, p.cores) << cores << " cores, " << threads << " threads: " << p.describe();
      // A dedicated proxy never leaves the compute threads crowded onto fewer cores than they are.
      if (dedicated) EXPECT_LE(p.threads, static_cast<int>(p.compute_cores.size())) << p.describe();
    }
  }
  EXPECT_EQ(proxy::compute_placement({2, 1, 0, 2, true}).describe(),
            "cores 0-1: proxy on 1 (shared with 1 compute thread: 2 compute threads do not fit on the other 1 core), "
            "2 compute threads on 0-1");
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

// --- place_on_host: the bindings the launcher gave -------------------------------------------------

proxy::HostLayout host(int cores, std::vector<proxy::CoreSet> bindings, std::vector<int> world_ranks = {}) {
  proxy::HostLayout layout;
  layout.name = "h";
  layout.cores_on_host = cores;
  if (world_ranks.empty())
    for (std::size_t k = 0; k < bindings.size(); ++k) world_ranks.push_back(static_cast<int>(k));
  layout.world_ranks = std::move(world_ranks);
  layout.bindings = std::move(bindings);
  return layout;
}

std::string describe(const proxy::HostLayout& layout, int host_rank, int threads = 0, bool with_proxy = true) {
  return proxy::place_on_host(layout, host_rank, threads, with_proxy).describe();
}

TEST(PlaceOnHost, RanksWithTheSameBindingSplitIt) {
  // MPICH without binding and MPIR_CVAR_NOLOCAL=1: two "nodes", one host, both ranks see cores 0-1.
  const auto layout = host(2, {{0, 1}, {0, 1}});
  EXPECT_EQ(describe(layout, 0),
            "cores 0: proxy on 0 (shared with 1 compute thread: 2 ranks on host h share cores 0-1), 1 compute thread on 0");
  EXPECT_EQ(describe(layout, 1),
            "cores 1: proxy on 1 (shared with 1 compute thread: 2 ranks on host h share cores 0-1), 1 compute thread on 1");
  const auto p = proxy::place_on_host(layout, 1, 0, true);
  EXPECT_FALSE(p.proxy_core_dedicated);
  EXPECT_TRUE(p.shared_proxy);
  EXPECT_FALSE(p.oversubscribed);
  EXPECT_EQ(p.proxy_sharing, proxy::ProxySharing::ranks_share_cores);
  EXPECT_EQ(p.proxy_core_compute_threads, 1);
  EXPECT_TRUE(p.proxy_core_other_ranks.empty());
  EXPECT_EQ(p.binding, (proxy::CoreSet{0, 1}));

  const auto wide = host(8, std::vector<proxy::CoreSet>(3, {0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(describe(wide, 0), "cores 0-2: proxy on 2 (dedicated), 2 compute threads on 0-1");
  EXPECT_EQ(describe(wide, 2), "cores 6-7: proxy on 7 (dedicated), 1 compute thread on 6");
  const auto dedicated = proxy::place_on_host(wide, 2, 0, true);
  EXPECT_TRUE(dedicated.proxy_core_dedicated);
  EXPECT_FALSE(dedicated.shared_proxy);
  EXPECT_EQ(dedicated.proxy_core_compute_threads, 0);
  EXPECT_TRUE(dedicated.proxy_core_other_ranks.empty());
}

TEST(PlaceOnHost, DisjointBindingsKeepTheirOwnCores) {
  // Open MPI's default --bind-to core on 2 cores: each rank owns one core, nobody to split with.
  const auto per_core = host(2, {{0}, {1}});
  EXPECT_EQ(describe(per_core, 0),
            "cores 0: proxy on 0 (shared with 1 compute thread: binding gives this rank 1 core), 1 compute thread on 0");
  EXPECT_EQ(describe(per_core, 1),
            "cores 1: proxy on 1 (shared with 1 compute thread: binding gives this rank 1 core), 1 compute thread on 1");
  EXPECT_EQ(proxy::place_on_host(per_core, 1, 0, true).proxy_sharing, proxy::ProxySharing::binding_has_one_core);
  EXPECT_FALSE(proxy::place_on_host(per_core, 1, 0, true).oversubscribed);

  // Uneven disjoint bindings are kept as they are, not re-split evenly.
  const auto uneven = host(4, {{0, 1, 2}, {3}});
  EXPECT_EQ(describe(uneven, 0), "cores 0-2: proxy on 2 (dedicated), 2 compute threads on 0-1");
  EXPECT_EQ(describe(uneven, 1),
            "cores 3: proxy on 3 (shared with 1 compute thread: binding gives this rank 1 core), 1 compute thread on 3");

  // Two pairs of ranks, each pair bound to one socket's cores, split their own socket.
  const auto sockets = host(8, {{0, 1, 2, 3}, {0, 1, 2, 3}, {4, 5, 6, 7}, {4, 5, 6, 7}}, {10, 11, 12, 13});
  EXPECT_EQ(describe(sockets, 2), "cores 4-5: proxy on 5 (dedicated), 1 compute thread on 4");
  EXPECT_EQ(describe(sockets, 3), "cores 6-7: proxy on 7 (dedicated), 1 compute thread on 6");
}

TEST(PlaceOnHost, OneCoreForOneRank) {
  const auto layout = host(2, {{1}});
  EXPECT_EQ(describe(layout, 0),
            "cores 1: proxy on 1 (shared with 1 compute thread: binding gives this rank 1 core), 1 compute thread on 1");
  EXPECT_EQ(describe(layout, 0, 2),
            "cores 1: proxy on 1 (shared with 2 compute threads: binding gives this rank 1 core), 2 compute threads on 1 "
            "(oversubscribed)");
  EXPECT_EQ(describe(layout, 0, 0, false), "cores 1: 1 compute thread on 1");
  EXPECT_EQ(proxy::place_on_host(layout, 0, 0, false).proxy_core, -1);
}

TEST(PlaceOnHost, LauncherBoundRanksSplitOnlyWhatTheyWereGiven) {
  // taskset -c 0 mpiexec -n 2: both ranks on core 0; nobody is dedicated, and each says who it shares with.
  const auto one_core = host(2, {{0}, {0}});
  EXPECT_EQ(describe(one_core, 0),
            "cores 0: proxy on 0 (shared with 1 compute thread, rank 1's proxy and 1 compute thread: 2 ranks on host h "
            "share core 0), 1 compute thread on 0 (oversubscribed)");
  EXPECT_EQ(describe(one_core, 1),
            "cores 0: proxy on 0 (shared with 1 compute thread, rank 0's proxy and 1 compute thread: 2 ranks on host h "
            "share core 0), 1 compute thread on 0 (oversubscribed)");
  const auto p = proxy::place_on_host(one_core, 0, 0, true);
  EXPECT_EQ(p.proxy_core_compute_threads, 1);
  EXPECT_EQ(p.proxy_core_other_ranks, (std::vector<int>{1}));
  // taskset -c 2-5 on an 8-core host: the binding, not the host, is what the ranks split.
  const auto partial = host(8, {{2, 3, 4, 5}, {2, 3, 4, 5}});
  EXPECT_EQ(describe(partial, 0), "cores 2-3: proxy on 3 (dedicated), 1 compute thread on 2");
  EXPECT_EQ(describe(partial, 1), "cores 4-5: proxy on 5 (dedicated), 1 compute thread on 4");
  // A binding reaching past the host's cores keeps the part on the host.
  EXPECT_EQ(describe(host(4, {{2, 3, 4, 9}}), 0), "cores 2-3: proxy on 3 (dedicated), 1 compute thread on 2");
}

TEST(PlaceOnHost, MoreRanksThanCoresShareRoundRobinAndNameWhoShares) {
  const auto layout = host(2, std::vector<proxy::CoreSet>(5, {0, 1}));
  EXPECT_EQ(describe(layout, 0),
            "cores 0: proxy on 0 (shared with 1 compute thread, rank 2's proxy and 1 compute thread, rank 4's proxy and "
            "1 compute thread: 5 ranks on host h share cores 0-1), 1 compute thread on 0 (oversubscribed)");
  EXPECT_EQ(describe(layout, 3),
            "cores 1: proxy on 1 (shared with 1 compute thread, rank 1's proxy and 1 compute thread: 5 ranks on host h "
            "share cores 0-1), 1 compute thread on 1 (oversubscribed)");
  // Beyond three other ranks the list is cut short with a count.
  const auto crowd = host(1, std::vector<proxy::CoreSet>(6, {0}));
  EXPECT_EQ(describe(crowd, 5, 0, true),
            "cores 0: proxy on 0 (shared with 1 compute thread, rank 0's proxy and 1 compute thread, rank 1's proxy and "
            "1 compute thread, rank 2's proxy and 1 compute thread, 2 more ranks: 6 ranks on host h share core 0), "
            "1 compute thread on 0 (oversubscribed)");
  EXPECT_EQ(proxy::place_on_host(crowd, 5, 0, true).proxy_core_other_ranks, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(PlaceOnHost, OverlappingDifferentBindingsAreSharedAndSaySo) {
  const auto layout = host(2, {{0, 1}, {1}}, {4, 7});
  const auto p = proxy::place_on_host(layout, 0, 0, true);
  EXPECT_EQ(p.describe(),
            "cores 0-1: proxy on 1 (shared with rank 7's proxy and 1 compute thread: rank 7's binding (core 1) overlaps "
            "this rank's (cores 0-1)), 1 compute thread on 0 (oversubscribed)");
  EXPECT_EQ(p.proxy_sharing, proxy::ProxySharing::bindings_overlap);
  EXPECT_FALSE(p.proxy_core_dedicated);
  EXPECT_EQ(p.proxy_core_compute_threads, 0);
  EXPECT_EQ(p.proxy_core_other_ranks, (std::vector<int>{7}));
}

TEST(PlaceOnHost, ABindingWithNoCoreOnTheHostIsAClearError) {
  try {
    proxy::place_on_host(host(4, {{0, 1, 2, 3}, {4, 5}}, {0, 3}), 1, 0, true);
    FAIL() << "no error";
  } catch (const proxy::Error& e) {
    EXPECT_STREQ(e.what(), "placement: rank 3's binding (cores 4-5) has no core on host h (cores 0-3)");
  }
  try {
    proxy::place_on_host(host(1, {{}}), 0, 0, true);
    FAIL() << "no error";
  } catch (const proxy::Error& e) {
    EXPECT_STREQ(e.what(), "placement: rank 0's binding (no cores) has no core on host h (core 0)");
  }
  // The other ranks are not held up by one rank's empty binding: they place themselves without it.
  EXPECT_EQ(describe(host(4, {{0, 1, 2, 3}, {4, 5}}), 0), "cores 0-3: proxy on 3 (dedicated), 3 compute threads on 0-2");
  EXPECT_THROW(proxy::place_on_host(host(4, {{0}}), 1, 0, true), proxy::Error);
  EXPECT_THROW(proxy::place_on_host(host(4, {{0}}, {0, 1}), 0, 0, true), proxy::Error);
}

}  // namespace
