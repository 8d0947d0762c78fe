// The MPI+OpenMP code docs/porting.md turns into plans, steps 2-7: its Environment, rows of n values (the
// edge rows it sends and the ghost rows it receives from the ranks up and down), its sums, its compute
// functions, and the placement, ProxyThread and halo plan the earlier steps made. Compiled, not run.
#include <string>

#include <proxy/harness/session.hpp>
#include <proxy/proxy.hpp>

void compute_interior();
void compute_interior_row(int row);
void compute_boundary();

void example(proxy::Environment& env, const proxy::Placement& placement, proxy::ProxyThread& proxy,
             const proxy::Plan& halo, int up, int down, int n, int rows, double* ghost_lo, double* ghost_hi,
             const double* edge_lo, const double* edge_hi, double& local, double& global, double local_time) {
  {
    // @example@
  }
}
