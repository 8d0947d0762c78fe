#include "redblack3d/modes.hpp"

#include <array>
#include <span>
#include <string>

#include <proxy/harness/timed_wait.hpp>
#include <proxy/proxy_thread.hpp>

namespace redblack3d {

Block::Block(const Extent& global, const Extent& geometry, int rank, double omega)
    : decomposition(decompose(global, geometry, rank)),
      stencil(make_stencil(global, omega)),
      u(decomposition.local),
      f(make_rhs(global, decomposition.offset, decomposition.local)) {}

namespace {

OverlapSplit split_for(const Decomposition& d, Mode mode) {
  if (!proxy::harness::overlaps(mode)) return OverlapSplit{interior_box(d.local), {}};
  std::array<bool, 6> has_neighbour{};
  for (int face = 0; face < 6; ++face) has_neighbour[face] = d.neighbour[face] >= 0;
  return split_inner_annulus(d.local, has_neighbour);
}

Colour colour_of(int step) noexcept { return step % 2 == 0 ? Colour::red : Colour::black; }

}  // namespace

proxy::harness::Steps make_steps(Block& block, const Halo& halo, Mode mode, int iterations, MPI_Comm comm,
                                 const proxy::Plan* plan, HaloRequests& state) {
  proxy::harness::Steps steps;
  steps.count = 2 * iterations;
  steps.lookahead = 0;
  steps.unit = "iteration";
  steps.steps_per_unit = 2;  // a red and a black half-sweep
  steps.post = [&block, &halo, comm, &state](int) { state.count = halo.post(block.u, comm, state.requests); };
  steps.complete = [&block, &state] {
    // Halo::post's order: a receive per neighbour (faces in order), then a send per neighbour.
    std::array<int, 6> neighbours{};
    int faces = 0;
    for (const int rank : block.decomposition.neighbour)
      if (rank >= 0) neighbours[faces++] = rank;
    proxy::harness::wait_all(
        std::span<MPI_Request>(state.requests.data(), state.count),
        [&](int i) { return neighbours[i % faces]; },
        [&](int i) {
          const std::string peer = std::to_string(neighbours[i % faces]);
          return i < faces ? "no message from rank " + peer : "rank " + peer + " did not receive our message";
        });
  };
  steps.start_on_proxy = [plan](proxy::ProxyThread& proxy, int) { return proxy.start(*plan); };
  // Captured by value: the split is computed once and copied into the closures.
  const OverlapSplit split = split_for(block.decomposition, mode);
  steps.compute_inner = [&block, inner = split.inner](int s, proxy::harness::Team) {
    relax(block.u, block.f, block.stencil, colour_of(s), block.decomposition.offset, inner);
  };
  if (!split.annulus.empty()) {
    steps.compute_boundary = [&block, annulus = split.annulus](int s, proxy::harness::Team) {
      for (const Box& box : annulus) relax(block.u, block.f, block.stencil, colour_of(s), block.decomposition.offset, box);
    };
  }
  return steps;
}

}  // namespace redblack3d
