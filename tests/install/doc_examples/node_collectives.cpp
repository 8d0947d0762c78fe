// The rank around the node-collective examples of README.md and docs/collectives.md: its Environment,
// placement and ProxyThread, and what compute thread t holds (n doubles to send, room for the result). The
// examples run in each compute thread. Compiled, not run.
#include <cstddef>

#include <proxy/proxy.hpp>

void compute_something_else();

void example(proxy::Environment& env, const proxy::Placement& placement, proxy::ProxyThread& proxy, int threads,
             int t, const double* send, double* recv, std::size_t n) {
  {
    // @example@
  }
}
