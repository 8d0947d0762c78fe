// The task graph around docs/api.md's OpenMP bridge example (apps/heat/heat2d_tasks.cpp is the whole of it):
// one halo plan per buffer b, the dependence objects of each buffer's edge rows and ghost rows, the
// boundary update. Compiled, not run.
#include <proxy/openmp_tasks.hpp>
#include <proxy/proxy.hpp>

void update_boundary_rows();

void example(proxy::ProxyThread& proxy, const proxy::Plan (&halo)[2], int b) {
  const int nb = 1 - b;
  int edge[2], ghost[2];  // dependence objects only
  {
    // @example@
  }
}
