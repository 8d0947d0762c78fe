// A plan of the shape PRK's transpose needs: one block to and from every rank (itself included), size
// peers in each direction under one tag, checked bit for bit against MPI_Alltoall on the same data for
// many epochs; plain sends, and sends held until their block is marked (send_when_ready), marked from the
// last block to the first. Run on 1-4 ranks (core.mpi.*ranks, core.all_to_all.1ranks).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "proxy/core.hpp"

namespace {

// Doubles whose bits depend on sender, receiver, index and epoch (no two blocks alike), so a block that
// lands at another peer's offset, or a stale one, differs.
double all_to_all_value(int from, int to, int index, int epoch) {
  const std::uint64_t mix = (std::uint64_t(from) * 1000003u + std::uint64_t(to)) * 1000033u +
                            std::uint64_t(index) * 7919u + std::uint64_t(epoch) * 104729u;
  return static_cast<double>(mix) / 3.0;
}

void expect_all_to_all_matches_mpi(bool held_sends) {
  proxy::ProxyThread proxy;
  const int rank = proxy.rank(), size = proxy.size();
  constexpr int kBlock = 37;  // odd: offsets that are multiples of nothing convenient
  constexpr int kEpochs = 60;
  std::vector<double> out(std::size_t(size) * kBlock), in(out.size()), expected(out.size());
  proxy::PlanSpec spec(held_sends ? "all-to-all-held" : "all-to-all");
  if (held_sends) spec.parts(size);
  for (int peer = 0; peer < size; ++peer) {
    spec.recv(peer, 0, &in[std::size_t(peer) * kBlock], kBlock, MPI_DOUBLE);
    const double* block = &out[std::size_t(peer) * kBlock];
    if (held_sends)
      spec.send_when_ready({peer}, peer, 0, block, kBlock, MPI_DOUBLE);
    else
      spec.send(peer, 0, block, kBlock, MPI_DOUBLE);
  }
  const proxy::Plan plan = proxy.commit(spec);
  ASSERT_EQ(plan.transfer_count(), 2u * std::size_t(size));
  int first_bad_epoch = -1;
  for (int epoch = 1; epoch <= kEpochs; ++epoch) {
    for (int peer = 0; peer < size; ++peer)
      for (int i = 0; i < kBlock; ++i)
        out[std::size_t(peer) * kBlock + std::size_t(i)] = all_to_all_value(rank, peer, i, epoch);
    // The reference first, on the proxy (it owns MPI), while the plan's buffers are not in flight.
    proxy.call([&] {
      MPI_Alltoall(out.data(), kBlock, MPI_DOUBLE, expected.data(), kBlock, MPI_DOUBLE, proxy.comm());
    });
    std::fill(in.begin(), in.end(), -1.0);
    const proxy::Ticket ticket = proxy.start(plan);
    if (held_sends)
      for (int peer = size - 1; peer >= 0; --peer) proxy.ready(ticket, peer);
    proxy.wait(ticket);
    if (std::memcmp(in.data(), expected.data(), in.size() * sizeof(double)) != 0 && first_bad_epoch < 0)
      first_bad_epoch = epoch;
  }
  EXPECT_EQ(first_bad_epoch, -1) << "rank " << rank << ": blocks differ from MPI_Alltoall's from epoch "
                                 << first_bad_epoch;
  const auto stats = proxy.statistics();
  ASSERT_EQ(stats.plans.size(), 1u);
  EXPECT_EQ(stats.plans[0].starts, std::uint64_t(kEpochs));
  EXPECT_EQ(stats.plans[0].bytes, std::uint64_t(kEpochs) * 2u * std::uint64_t(size) * kBlock * sizeof(double));
}

TEST(Plan, AllToAllPlanMatchesMpiAlltoallBitwise) { expect_all_to_all_matches_mpi(false); }

TEST(Plan, AllToAllPlanWithHeldSendsMatchesMpiAlltoallBitwise) { expect_all_to_all_matches_mpi(true); }

}  // namespace
