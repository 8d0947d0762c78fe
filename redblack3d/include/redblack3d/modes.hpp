// RedBlack3D's steps for the mode harness (proxy/harness; DESIGN.md "The applications"): a run of
// `iterations` is 2 * iterations steps, a red half-sweep then a black one, and each half-sweep needs its
// own ghost exchange first (lookahead 0). The inner box reads no ghost and writes no face the exchange
// sends, so it relaxes while the exchange is in flight (async, proxy); the annulus relaxes after it. The
// modes without overlap relax the whole interior as the "inner" step. In proxy mode with an early-bird plan
// (Halo::plan with marking threads), the annulus releases each face's transfers as soon as the team is
// done with that face (steps.hpp "Early-bird"); the order of the updates, and so the result, is unchanged. The loops, their timings and the
// proxy's lifetime are the harness's; this file only says what an exchange and a relax are here.
// Thread contract: build the Steps on the main thread; the harness calls them as steps.hpp says.
#pragma once

#include <proxy/harness/mode.hpp>
#include <proxy/harness/steps.hpp>

#include <mpi.h>

#include "proxy/plan.hpp"
#include "redblack3d/decomposition.hpp"
#include "redblack3d/grid.hpp"
#include "redblack3d/halo.hpp"
#include "redblack3d/kernel.hpp"
#include "redblack3d/problem.hpp"

namespace redblack3d {

using proxy::harness::Mode;

// This rank's share of the problem: its block of u (with ghosts) and f, and the stencil coefficients.
struct Block {
  Block(const Extent& global, const Extent& geometry, int rank, double omega);
  Decomposition decomposition;
  Stencil stencil;
  Grid u;
  Grid f;
};

// The relaxation of one block in `mode` and its ghost exchange: through `halo` on `comm` (sync, async,
// mt) or by starting `plan` on the proxy (proxy mode; plan is unused otherwise). A plan with parts
// (6 per compute thread, Halo::plan) makes the proxy mode early-bird. Everything referenced
// must outlive the returned Steps; the requests of a posted exchange live in `state`.
struct HaloRequests {
  std::array<MPI_Request, 12> requests{};
  int count = 0;
};
proxy::harness::Steps make_steps(Block& block, const Halo& halo, Mode mode, int iterations, MPI_Comm comm,
                                 const proxy::Plan* plan, HaloRequests& state);

}  // namespace redblack3d
