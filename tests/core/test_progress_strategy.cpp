// The progress strategy's setting (PROXY_PROGRESS, Config::progress) and the automatic choice from the
// placement (proxy/progress.hpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "proxy/config.hpp"
#include "proxy/error.hpp"
#include "proxy/placement.hpp"
#include "proxy/progress.hpp"

#include "env_var.hpp"

namespace {

using proxy::ProgressStrategy;

proxy::Placement unbound(int cores, int ranks, int rank, int threads) {
  proxy::PlacementRequest request;
  request.cores_on_node = cores;
  request.ranks_on_node = ranks;
  request.local_rank = rank;
  request.threads = threads;
  return proxy::compute_placement(request);
}

TEST(ProgressStrategy, ParsesAndPrintsEachStrategy) {
  for (auto s : {ProgressStrategy::automatic, ProgressStrategy::dedicated, ProgressStrategy::cooperative,
                 ProgressStrategy::polling})
    EXPECT_EQ(proxy::parse_progress_strategy(proxy::to_string(s)), s);
  EXPECT_EQ(proxy::to_string(ProgressStrategy::automatic), "auto");
}

TEST(ProgressStrategy, DefaultIsAutoAndTheEnvironmentOverridesTheApi) {
  EXPECT_EQ(proxy::Config::from_env().progress, ProgressStrategy::automatic);
  proxy::Config api;
  api.progress = ProgressStrategy::dedicated;
  EXPECT_EQ(proxy::Config::from_env(api).progress, ProgressStrategy::dedicated);
  EnvVar v("PROXY_PROGRESS", "cooperative");
  EXPECT_EQ(proxy::Config::from_env(api).progress, ProgressStrategy::cooperative);
}

TEST(ProgressStrategy, BadValueIsRefusedByName) {
  EnvVar v("PROXY_PROGRESS", "eager");
  std::string message;
  try {
    proxy::Config::from_env();
  } catch (const proxy::Error& e) {
    message = e.what();
  }
  EXPECT_EQ(message, "PROXY_PROGRESS: unknown progress strategy 'eager' (expected auto, dedicated, cooperative or polling)");
}

TEST(ProgressStrategy, AutoIsDedicatedOnlyWithACoreNobodyElseUses) {
  // One rank on 2 cores, one compute thread per compute core: the proxy has core 1 to itself.
  EXPECT_EQ(proxy::choose_progress(ProgressStrategy::automatic, unbound(2, 1, 0, 0)), ProgressStrategy::dedicated);
  // 4 cores, 2 ranks: each has 2, one for compute and one for its proxy.
  EXPECT_EQ(proxy::choose_progress(ProgressStrategy::automatic, unbound(4, 2, 1, 0)), ProgressStrategy::dedicated);
  // Two ranks on 2 cores: every proxy shares its core with a compute thread.
  EXPECT_EQ(proxy::choose_progress(ProgressStrategy::automatic, unbound(2, 2, 0, 0)), ProgressStrategy::cooperative);
  // One core: nothing to spare.
  EXPECT_EQ(proxy::choose_progress(ProgressStrategy::automatic, unbound(1, 1, 0, 0)), ProgressStrategy::cooperative);
  // 2 compute threads do not fit on the one core beside the proxy: the placement gives the proxy's core to
  // compute too (it would sit idle), and cooperative keeps both cores computing.
  const proxy::Placement crowded = unbound(2, 1, 0, 2);
  ASSERT_FALSE(crowded.proxy_core_dedicated);
  EXPECT_EQ(crowded.compute_cores, (std::vector<int>{0, 1}));
  EXPECT_EQ(proxy::choose_progress(ProgressStrategy::automatic, crowded), ProgressStrategy::cooperative);
  // No proxy core at all (a placement without one).
  proxy::PlacementRequest none;
  none.cores_on_node = 2;
  none.with_proxy = false;
  EXPECT_EQ(proxy::choose_progress(ProgressStrategy::automatic, proxy::compute_placement(none)),
            ProgressStrategy::cooperative);
}

// Issue 21: auto keeps a core for the proxy only where it can pay for it (Environment::placement asks).
TEST(ProgressStrategy, AutoKeepsAProxyCoreOnlyWhereItCanPay) {
  // A world of one rank: no peer, nothing to hide, whatever the cores.
  for (int cores : {2, 4, 16}) EXPECT_FALSE(proxy::auto_keeps_a_proxy_core(unbound(cores, 1, 0, 0), 1)) << cores;
  // Ranks of 2 and 3 cores (8 ranks on 16 cores, 5 on 15): the proxy's core would cost the compute 2x or 1.5x.
  EXPECT_FALSE(proxy::auto_keeps_a_proxy_core(unbound(16, 8, 3, 0), 8));
  EXPECT_FALSE(proxy::auto_keeps_a_proxy_core(unbound(15, 5, 0, 0), 5));
  EXPECT_EQ(unbound(15, 5, 0, 0).cores.size(), 3u);
  // From kCoresForAProxyCore cores on, with a peer: kept.
  EXPECT_EQ(proxy::kCoresForAProxyCore, 4);
  EXPECT_TRUE(proxy::auto_keeps_a_proxy_core(unbound(16, 4, 1, 0), 4));
  EXPECT_TRUE(proxy::auto_keeps_a_proxy_core(unbound(16, 1, 0, 0), 2));  // one rank per node, 2 nodes
  // Never a core that choose_progress would not make dedicated: compute that does not fit beside it, or a
  // proxy core shared with another rank.
  EXPECT_FALSE(proxy::auto_keeps_a_proxy_core(unbound(4, 1, 0, 4), 2));
  EXPECT_FALSE(proxy::auto_keeps_a_proxy_core(unbound(4, 8, 0, 0), 8));
}

TEST(ProgressStrategy, AnExplicitChoiceWins) {
  EXPECT_EQ(proxy::choose_progress(ProgressStrategy::dedicated, unbound(2, 2, 0, 0)), ProgressStrategy::dedicated);
  EXPECT_EQ(proxy::choose_progress(ProgressStrategy::cooperative, unbound(2, 1, 0, 0)), ProgressStrategy::cooperative);
}

}  // namespace
