// The four modes' iteration loops (thesis II.A, III.D, IV.C; DESIGN.md "The applications"). Each
// iteration is a red half-sweep then a black one, and each half-sweep needs its own ghost exchange first:
//   sync  - one rank per core: exchange (post + wait at once, nothing overlaps), then relax.
//   async - one rank per core: MPI_Isend/Irecv, relax the inner box, wait, relax the annulus.
//   mt    - one rank per node, OpenMP team: the master exchanges while the others wait, then all relax
//           (Baden & Shalit's MT(k)+!OVLP baseline).
//   proxy - one rank per node: the master starts the halo plan on the proxy thread, the team relaxes the
//           inner box, the master waits on the ticket, then the team relaxes the annulus. No MPI here.
// Timings are the calling (master) thread's: compute = relaxing (including the team barrier that ends
// each relax phase), comm = everything spent on communication, wait = its waiting part.
#pragma once

#include <string>
#include <string_view>

#include <mpi.h>

#include "proxy/plan.hpp"
#include "proxy/proxy_thread.hpp"
#include "redblack3d/decomposition.hpp"
#include "redblack3d/grid.hpp"
#include "redblack3d/halo.hpp"
#include "redblack3d/problem.hpp"

namespace redblack3d {

enum class Mode { sync, async, mt, proxy };

std::string_view to_string(Mode mode) noexcept;
// "sync", "async", "mt" or "proxy"; throws std::invalid_argument otherwise (drivers validate first).
Mode mode_from_string(std::string_view text);
// One rank per node with a thread team (mt, proxy) rather than one rank per core.
inline bool is_multi_tier(Mode mode) noexcept { return mode == Mode::mt || mode == Mode::proxy; }
// Splits each half-sweep into inner box and annulus (needs blocks with an inner region).
inline bool overlaps(Mode mode) noexcept { return mode == Mode::async || mode == Mode::proxy; }

struct Timings {
  double total_s = 0.0;
  double compute_s = 0.0;
  double comm_s = 0.0;
  double wait_s = 0.0;
};

// This rank's share of the problem: its block of u (with ghosts) and f, and the stencil coefficients.
struct Block {
  Block(const Extent& global, const Extent& geometry, int rank, double omega);
  Decomposition decomposition;
  Stencil stencil;
  Grid u;
  Grid f;
};

Timings run_sync(Block& block, const Halo& halo, int iterations, MPI_Comm comm);
Timings run_async(Block& block, const Halo& halo, int iterations, MPI_Comm comm);
Timings run_mt(Block& block, const Halo& halo, int iterations, int threads, MPI_Comm comm);
// Rethrows the proxy's CommError / TimeoutError after the thread team has left its parallel region.
Timings run_proxy(Block& block, proxy::ProxyThread& proxy, const proxy::Plan& plan, int iterations, int threads);

}  // namespace redblack3d
