// The four ways to run SUMMA's step loop (DESIGN.md "The applications"; thesis II.B Fig. II.10, IV.D):
//   sync   every rank: blocking MPI_Bcast of the A panel along its row, the B panel along its column,
//          then one dgemm (no overlap).
//   async  every rank: double-buffered MPI_Ibcast of panel i+1 while panel i is multiplied, then wait
//          (whatever overlap MPI gives; panel 0 is fetched before the loop, as in the thesis).
//   mt     one rank per node: the master broadcasts (blocking) while the threads idle, then the node's
//          threads multiply, each a single-threaded dgemm on its tile (Baden & Shalit MT(k)+!OVLP).
//   proxy  one rank per node: the proxy thread broadcasts panel i+1 (MPI_Ibcast in a closure) while the
//          compute threads multiply panel i; the kernels never call MPI.
// Each computes C += A * B into operands.c() (zero it first) and returns this rank's timings.
// Thread contract: call on the thread that owns MPI (sync, async, mt) or, in proxy mode, on a compute
// thread while `proxy` runs (the only MPI calls are in closures on the proxy thread).
#pragma once

#include "summa/grid_context.hpp"
#include "summa/operands.hpp"

namespace proxy {
class ProxyThread;
}

namespace summa {

// Seconds one rank spent. comm: in communication on the compute side (whole blocking broadcasts; starting
// and waiting for non-blocking ones). wait: the part of comm spent waiting for completion (equal to comm
// for the blocking modes). compute: in the local multiplies.
struct Timings {
  double total = 0.0;
  double compute = 0.0;
  double comm = 0.0;
  double wait = 0.0;
};

Timings multiply_sync(const GridContext& grid, Operands& operands);
Timings multiply_async(const GridContext& grid, Operands& operands);
Timings multiply_mt(const GridContext& grid, Operands& operands, int threads);
Timings multiply_proxy(const GridContext& grid, Operands& operands, int threads, proxy::ProxyThread& proxy);

}  // namespace summa
