#include "redblack3d/modes.hpp"

#include <array>
#include <span>
#include <string>
#include <utility>
#include <vector>

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
  steps.compute_inner = [&block, inner = split.inner](int s, proxy::harness::StepThread team) {
    relax(block.u, block.f, block.stencil, colour_of(s), block.decomposition.offset, inner,
          [team] { team.progress_point(); });
  };
  // Early-bird (an early-bird plan, proxy mode): each thread marks a face once it has relaxed its rows of
  // the last annulus box touching that face's plane; faces without a neighbour have no transfers to release.
  steps.ready_parts = mode == Mode::proxy && plan != nullptr ? plan->part_count() : 0;
  const int marking_threads = steps.ready_parts / 6;
  std::array<bool, 6> has_neighbour{};
  for (int face = 0; face < 6; ++face) has_neighbour[face] = block.decomposition.neighbour[face] >= 0;
  std::vector<std::vector<int>> finished = faces_finished_after(split, block.decomposition.local, has_neighbour);
  if (!split.annulus.empty()) {
    steps.compute_boundary = [&block, annulus = split.annulus, finished = std::move(finished), has_neighbour,
                              marking_threads](int s, proxy::harness::StepThread team) {
      // Threads the plan counts but this team lacks (OpenMP gave fewer) have no rows: done with every face.
      if (team.thread == 0)
        for (int absent = team.threads; absent < marking_threads; ++absent)
          for (int face = 0; face < 6; ++face)
            if (has_neighbour[face]) team.ready(face_part(face, absent, marking_threads));
      for (std::size_t b = 0; b < annulus.size(); ++b) {
        relax(block.u, block.f, block.stencil, colour_of(s), block.decomposition.offset, annulus[b]);
        if (marking_threads > 0)
          for (int face : finished[b]) team.ready(face_part(face, team.thread, marking_threads));
      }
    };
  }
  return steps;
}

}  // namespace redblack3d
