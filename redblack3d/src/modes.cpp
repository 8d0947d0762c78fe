#include "redblack3d/modes.hpp"

#include <array>
#include <exception>
#include <stdexcept>

#include <omp.h>

#include "proxy/detail/timer.hpp"
#include "redblack3d/kernel.hpp"

namespace redblack3d {

std::string_view to_string(Mode mode) noexcept {
  switch (mode) {
    case Mode::sync: return "sync";
    case Mode::async: return "async";
    case Mode::mt: return "mt";
    case Mode::proxy: return "proxy";
  }
  return "?";
}

Mode mode_from_string(std::string_view text) {
  for (Mode mode : {Mode::sync, Mode::async, Mode::mt, Mode::proxy}) {
    if (text == to_string(mode)) return mode;
  }
  throw std::invalid_argument("unknown mode '" + std::string(text) + "'");
}

Block::Block(const Extent& global, const Extent& geometry, int rank, double omega)
    : decomposition(decompose(global, geometry, rank)),
      stencil(make_stencil(global, omega)),
      u(decomposition.local),
      f(make_rhs(global, decomposition.offset, decomposition.local)) {}

namespace {

constexpr std::array<Colour, 2> kColours{Colour::red, Colour::black};

OverlapSplit split_for(const Decomposition& d) {
  std::array<bool, 6> has_neighbour{};
  for (int face = 0; face < 6; ++face) has_neighbour[face] = d.neighbour[face] >= 0;
  return split_inner_annulus(d.local, has_neighbour);
}

// Posts the exchange and waits for it; adds the posting and waiting times. Returns when it finished.
double exchange_timed(Grid& u, const Halo& halo, MPI_Comm comm, Timings& t) {
  std::array<MPI_Request, 12> requests;
  const double start = proxy::now_seconds();
  const int count = halo.post(u, comm, requests);
  const double posted = proxy::now_seconds();
  MPI_Waitall(count, requests.data(), MPI_STATUSES_IGNORE);
  const double done = proxy::now_seconds();
  t.comm_s += done - start;
  t.wait_s += done - posted;
  return done;
}

}  // namespace

Timings run_sync(Block& block, const Halo& halo, int iterations, MPI_Comm comm) {
  Timings t;
  const Box all = interior_box(block.decomposition.local);
  const double begin = proxy::now_seconds();
  for (int it = 0; it < iterations; ++it) {
    for (Colour colour : kColours) {
      exchange_timed(block.u, halo, comm, t);
      const double relax_start = proxy::now_seconds();
      relax(block.u, block.f, block.stencil, colour, block.decomposition.offset, all);
      t.compute_s += proxy::now_seconds() - relax_start;
    }
  }
  t.total_s = proxy::now_seconds() - begin;
  return t;
}

Timings run_async(Block& block, const Halo& halo, int iterations, MPI_Comm comm) {
  Timings t;
  const OverlapSplit split = split_for(block.decomposition);
  const Extent& offset = block.decomposition.offset;
  const double begin = proxy::now_seconds();
  for (int it = 0; it < iterations; ++it) {
    for (Colour colour : kColours) {
      std::array<MPI_Request, 12> requests;
      const double post_start = proxy::now_seconds();
      const int count = halo.post(block.u, comm, requests);
      const double inner_start = proxy::now_seconds();
      relax(block.u, block.f, block.stencil, colour, offset, split.inner);
      const double wait_start = proxy::now_seconds();
      MPI_Waitall(count, requests.data(), MPI_STATUSES_IGNORE);
      const double annulus_start = proxy::now_seconds();
      for (const Box& box : split.annulus) relax(block.u, block.f, block.stencil, colour, offset, box);
      const double end = proxy::now_seconds();
      t.comm_s += (inner_start - post_start) + (annulus_start - wait_start);
      t.wait_s += annulus_start - wait_start;
      t.compute_s += (wait_start - inner_start) + (end - annulus_start);
    }
  }
  t.total_s = proxy::now_seconds() - begin;
  return t;
}

Timings run_mt(Block& block, const Halo& halo, int iterations, int threads, MPI_Comm comm) {
  Timings t;
  const Box all = interior_box(block.decomposition.local);
  const Extent& offset = block.decomposition.offset;
  const double begin = proxy::now_seconds();
#pragma omp parallel num_threads(threads)
  {
    for (int it = 0; it < iterations; ++it) {
      for (Colour colour : kColours) {
        double exchanged = 0.0;
#pragma omp master
        exchanged = exchange_timed(block.u, halo, comm, t);
#pragma omp barrier
        const double relax_start = proxy::now_seconds();
#pragma omp master
        {
          // The team idles until this barrier releases it after the exchange: that is waiting too.
          t.comm_s += relax_start - exchanged;
          t.wait_s += relax_start - exchanged;
        }
        relax(block.u, block.f, block.stencil, colour, offset, all);
#pragma omp barrier
#pragma omp master
        t.compute_s += proxy::now_seconds() - relax_start;
      }
    }
  }
  t.total_s = proxy::now_seconds() - begin;
  return t;
}

Timings run_proxy(Block& block, proxy::ProxyThread& proxy, const proxy::Plan& plan, int iterations, int threads) {
  Timings t;
  const OverlapSplit split = split_for(block.decomposition);
  const Extent& offset = block.decomposition.offset;
  proxy::Ticket ticket;            // master only
  std::exception_ptr failure;      // set by the master, read by all after a barrier
  bool failed = false;
  const double begin = proxy::now_seconds();
#pragma omp parallel num_threads(threads)
  {
    bool stop = false;  // this thread's copy of `failed`, taken right after the barrier that publishes it
    for (int it = 0; it < iterations && !stop; ++it) {
      for (Colour colour : kColours) {
        double relax_start = 0.0, wait_end = 0.0;  // master's
#pragma omp master
        {
          const double start = proxy::now_seconds();
          try {
            ticket = proxy.start(plan);
          } catch (...) {
            failure = std::current_exception();
          }
          relax_start = proxy::now_seconds();
          t.comm_s += relax_start - start;
        }
        // The inner box reads no ghost and writes no face the plan sends: it runs while the proxy works.
        relax(block.u, block.f, block.stencil, colour, offset, split.inner);
#pragma omp master
        {
          const double wait_start = proxy::now_seconds();
          t.compute_s += wait_start - relax_start;
          try {
            if (!failure) proxy.wait(ticket);
          } catch (...) {
            failure = std::current_exception();
          }
          wait_end = proxy::now_seconds();
          t.comm_s += wait_end - wait_start;
          t.wait_s += wait_end - wait_start;
          failed = failure != nullptr;
        }
#pragma omp barrier
        stop = failed;  // read between two barriers, so every thread sees the same value and all leave together
        if (stop) break;
        for (const Box& box : split.annulus) relax(block.u, block.f, block.stencil, colour, offset, box);
#pragma omp barrier
#pragma omp master
        {
          // From the ticket to the barrier the master waited for the team's inner relax: compute imbalance.
          t.compute_s += proxy::now_seconds() - wait_end;
        }
      }
    }
  }
  t.total_s = proxy::now_seconds() - begin;
  if (failure) std::rethrow_exception(failure);
  return t;
}

}  // namespace redblack3d
