// SUMMA's steps for the mode harness (proxy/harness; DESIGN.md "The applications"; thesis II.B Fig. II.10,
// IV.D). Step i multiplies panel i (C += A_panel * B_panel); exchange i broadcasts panel i, the A panel
// along its grid row and the B panel along its column, into receive buffer i % 2 (lookahead 1: double
// buffered, so panel i+1 travels while panel i is multiplied). What each mode makes of it:
//   sync   broadcast of panel i (posted, then completed by a timed wait), then one dgemm (no overlap).
//   async  MPI_Ibcast of panel i+1 while panel i is multiplied, then wait (whatever overlap MPI gives;
//          panel 0 is fetched before the loop, as in the thesis).
//   mt     the master broadcasts (post, timed wait) while the threads idle, then each thread multiplies its tile
//          of C with a single-threaded dgemm (Baden & Shalit MT(k)+!OVLP).
//   proxy  the proxy thread broadcasts panel i+1 (a plan of two persistent broadcasts) while the threads multiply
//          panel i; the kernels never call MPI.
// The loops, their timings and the proxy's lifetime are the harness's. Zero C before each run.
// Thread contract: build on the main thread; the harness calls the steps as proxy/harness/steps.hpp says.
#pragma once

#include <array>
#include <vector>

#include <mpi.h>

#include <proxy/harness/steps.hpp>

#include "summa/grid_context.hpp"
#include "summa/local_multiply.hpp"
#include "summa/operands.hpp"

namespace summa {

// The requests of a posted (async) exchange.
struct PanelRequests {
  std::array<MPI_Request, 2> requests{MPI_REQUEST_NULL, MPI_REQUEST_NULL};  // async mode
  int panel = 0;  // the exchange they belong to
  std::vector<proxy::Plan> panels;  // proxy mode: one plan per panel (both broadcasts), committed once
};

// `threads`: the team's size in mt/proxy (C is split into that many tiles), 1 otherwise. grid, operands,
// tiles and requests must outlive the Steps.
proxy::harness::Steps make_steps(const GridContext& grid, Operands& operands, const std::vector<Tile>& tiles,
                                 PanelRequests& requests);

}  // namespace summa
