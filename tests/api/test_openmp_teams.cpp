// The README's recipe on real ranks: the placement's thread count reaches the program's own parallel
// regions (after Environment::bind_openmp_threads a `#pragma omp parallel` without num_threads runs
// placement.threads threads, as heat2d's loops are written, not one per core the process may use), and
// env.placement(threads, true) leaves no core of the rank idle under the strategy the ProxyThread chooses.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "mpi_test_util.hpp"
#include "proxy/environment.hpp"
#include "proxy/placement.hpp"
#include "proxy/proxy_thread.hpp"

namespace {

int team_size_of_a_plain_region() {
  std::atomic<int> threads{0};
#pragma omp parallel
  threads.fetch_add(1, std::memory_order_relaxed);
  return threads.load();
}

TEST(OpenMPTeams, LaterRegionsRunThePlacementsThreadCount) {
  const proxy::Environment& env = proxy::test_util::environment();
  const int before = omp_get_max_threads();
  for (int threads : {1, 3, 2}) {
    const proxy::Placement placement = env.placement(threads, false);
    ASSERT_EQ(placement.threads, threads);
    env.bind_openmp_threads(placement);  // bound or not (a binding may be refused), the teams are sized
    EXPECT_EQ(omp_get_max_threads(), threads);
    EXPECT_EQ(team_size_of_a_plain_region(), threads);
  }
  omp_set_num_threads(before);
}

TEST(OpenMPTeams, TheReadmeRecipeLeavesNoCoreIdle) {
  const proxy::Environment& env = proxy::test_util::environment();
  const int before = omp_get_max_threads();
  for (int threads = 1; threads <= 4; ++threads) {
    const proxy::Placement placement = env.placement(threads, true);
    proxy::ProxyThread proxy(MPI_COMM_WORLD, placement);
    const bool dedicated = proxy.progress_strategy() == proxy::ProgressStrategy::dedicated;
    std::vector<int> working = placement.compute_cores;
    if (dedicated) working.push_back(placement.proxy_core);  // a dedicated proxy spins on its core
    std::sort(working.begin(), working.end());
    working.erase(std::unique(working.begin(), working.end()), working.end());
    EXPECT_EQ(working, placement.cores) << threads << " threads: " << placement.describe();
    env.bind_openmp_threads(placement);
    EXPECT_EQ(team_size_of_a_plain_region(), threads) << placement.describe();
  }
  omp_set_num_threads(before);
}

}  // namespace
