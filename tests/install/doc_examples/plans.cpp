// The application around the plan examples of README.md ("Plans also hold collectives...") and docs/api.md:
// its ProxyThread, communicators, peers and buffers, the spec, plan and ticket the one-line examples use, and
// the work they call. Compiled, not run.
#include <atomic>

#include <proxy/openmp_tasks.hpp>
#include <proxy/proxy.hpp>

void compute(int part);

void example(proxy::ProxyThread& proxy, proxy::PlanSpec& spec, const proxy::Plan& halo,
             const proxy::Ticket& ticket, MPI_Comm row_comm, MPI_Comm col_comm, int root, int left, int right,
             int n, double* panel, double* row, double* ghost, double* out, double* in,         // README
             int a_root, double* a_panel, int a_count, int b_root, double* b_panel, int b_count,  // api.md
             int threads, double& global, std::atomic<bool>& ghosts_ready,
             omp_event_handle_t ev, int& ghosts) {  // an OpenMP event and a dependence object
  {
    // @example@
  }
}
