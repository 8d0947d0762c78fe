// MPI tests of the halo exchange (run on 2 and 4 ranks): the blocking exchange, the non-blocking post and
// the proxy plan must each fill exactly the ghost faces that have a neighbour with that neighbour's
// boundary values, and leave the domain-boundary ghosts alone. A plan whose peer never answers must end in
// proxy::TimeoutError naming the plan (the driver turns that into an error line and an abort).
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <optional>
#include <string>

#include <mpi.h>

#include "proxy/environment.hpp"
#include "proxy/error.hpp"
#include "proxy/proxy_thread.hpp"
#include "redblack3d/decomposition.hpp"
#include "redblack3d/halo.hpp"
#include "mpi_test_util.hpp"

namespace redblack3d {
namespace {

constexpr double kUntouched = -1.0;

// Global linear index of local point (i, j, k), which may be a ghost (one step outside the block).
double global_index(const Decomposition& d, int i, int j, int k) {
  const double x = d.offset[0] + i - 1, y = d.offset[1] + j - 1, z = d.offset[2] + k - 1;
  return x + d.global[0] * (y + d.global[1] * z);
}

// Interior points hold 1 + their global linear index; ghosts hold kUntouched.
Grid numbered_block(const Decomposition& d) {
  Grid u(d.local);
  for (std::size_t i = 0; i < u.size(); ++i) u.data()[i] = kUntouched;
  for (int k = 1; k <= d.local[2]; ++k)
    for (int j = 1; j <= d.local[1]; ++j)
      for (int i = 1; i <= d.local[0]; ++i) u.at(i, j, k) = 1.0 + global_index(d, i, j, k);
  return u;
}

// Checks every ghost point of the six faces (not edges or corners, which the 7-point stencil never reads).
void expect_ghosts(const Decomposition& d, const Grid& u) {
  const Extent& n = d.local;
  for (int face = 0; face < 6; ++face) {
    const int dim = face / 2;
    const int plane = face % 2 == 0 ? 0 : n[dim] + 1;
    const int a = (dim + 1) % 3, b = (dim + 2) % 3;
    for (int q = 1; q <= n[b]; ++q) {
      for (int p = 1; p <= n[a]; ++p) {
        Extent at{};
        at[dim] = plane;
        at[a] = p;
        at[b] = q;
        const double expected = d.neighbour[face] >= 0 ? 1.0 + global_index(d, at[0], at[1], at[2]) : kUntouched;
        ASSERT_EQ(u.at(at[0], at[1], at[2]), expected) << "face " << face << " at " << at[0] << "," << at[1] << ","
                                                         << at[2];
      }
    }
  }
}

std::vector<Extent> geometries(int ranks) {
  if (ranks == 2) return {{2, 1, 1}, {1, 2, 1}, {1, 1, 2}};
  if (ranks == 4) return {{2, 2, 1}, {1, 2, 2}, {4, 1, 1}, {1, 1, 4}};
  return {{ranks, 1, 1}};
}

using proxy::test_util::world_rank;
using proxy::test_util::world_size;

const Extent kGlobal{9, 8, 10};

TEST(HaloMpi, BlockingExchangeFillsNeighbourFaces) {
  for (const Extent& g : geometries(world_size())) {
    const Decomposition d = decompose(kGlobal, g, world_rank());
    Grid u = numbered_block(d);
    const Halo halo(d, u);
    halo.exchange(u, MPI_COMM_WORLD);
    expect_ghosts(d, u);
  }
}

// bytes_sent() against what arrives: over all ranks, the bytes the blocks say they send are the ghost
// points the exchange filled, 8 bytes each.
TEST(HaloMpi, BytesSentAreTheGhostPointsTheNeighboursFill) {
  for (const Extent& g : geometries(world_size())) {
    const Decomposition d = decompose(kGlobal, g, world_rank());
    Grid u = numbered_block(d);
    const Halo halo(d, u);
    halo.exchange(u, MPI_COMM_WORLD);
    long long filled = 0;
    for (int k = 0; k <= d.local[2] + 1; ++k)
      for (int j = 0; j <= d.local[1] + 1; ++j)
        for (int i = 0; i <= d.local[0] + 1; ++i) {
          const bool ghost = i == 0 || j == 0 || k == 0 || i > d.local[0] || j > d.local[1] || k > d.local[2];
          filled += ghost && u.at(i, j, k) != kUntouched;
        }
    long long mine[2] = {halo.bytes_sent(), filled * static_cast<long long>(sizeof(double))}, all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(all[0], all[1]) << "geometry " << g[0] << "x" << g[1] << "x" << g[2];
    if (world_size() > 1) EXPECT_GT(all[0], 0);  // every geometry of several ranks has a neighbour
  }
}

TEST(HaloMpi, PostedExchangeFillsNeighbourFaces) {
  for (const Extent& g : geometries(world_size())) {
    const Decomposition d = decompose(kGlobal, g, world_rank());
    Grid u = numbered_block(d);
    const Halo halo(d, u);
    std::array<MPI_Request, 12> requests;
    const int count = halo.post(u, MPI_COMM_WORLD, requests);
    MPI_Waitall(count, requests.data(), MPI_STATUSES_IGNORE);
    expect_ghosts(d, u);
  }
}

TEST(HaloMpi, ProxyPlanFillsNeighbourFacesEveryEpoch) {
  for (const Extent& g : geometries(world_size())) {
    const Decomposition d = decompose(kGlobal, g, world_rank());
    Grid u = numbered_block(d);
    const Halo halo(d, u);
    std::optional<proxy::Plan> plan;  // released after the proxy thread stopped
    {
      proxy::ProxyThread proxy(MPI_COMM_WORLD);
      plan = proxy.commit(halo.plan(u, "test halo"));
      for (int epoch = 0; epoch < 3; ++epoch) {
        proxy.wait(proxy.start(*plan));
        expect_ghosts(d, u);
      }
    }
  }
}

TEST(HaloMpi, UnansweredPlanTimesOutNamingThePlan) {
  const Decomposition d = decompose(kGlobal, {world_size(), 1, 1}, world_rank());
  Grid u = numbered_block(d);
  const Halo halo(d, u);
  std::optional<proxy::Plan> plan;
  {
    proxy::ProxyThread proxy(MPI_COMM_WORLD);
    plan = proxy.commit(halo.plan(u, "stalled halo"));
    if (world_rank() == 0) {
      // Rank 1 starts its half only after the barrier below, so rank 0's wait cannot complete in time.
      const proxy::Ticket ticket = proxy.start(*plan);
      try {
        proxy.wait(ticket, std::chrono::milliseconds(50));
        ADD_FAILURE() << "wait returned although rank 1 never sent";
      } catch (const proxy::TimeoutError& error) {
        EXPECT_NE(std::string(error.what()).find("stalled halo"), std::string::npos) << error.what();
      }
      proxy.call([] { MPI_Barrier(MPI_COMM_WORLD); });
      proxy.wait(ticket);  // rank 1 answers now: the same epoch completes
    } else {
      proxy.call([] { MPI_Barrier(MPI_COMM_WORLD); });
      proxy.wait(proxy.start(*plan));
    }
    expect_ghosts(d, u);
  }
}

}  // namespace
}  // namespace redblack3d

