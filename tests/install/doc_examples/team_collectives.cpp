// What docs/collectives.md's team example uses: the proxy's Config, the team's size, each thread's buffers
// (send[t], recv[t], buf[t], buffer[t]), a user operation, the reduce's root and its output. Compiled, not run.
#include <cstddef>
#include <cstdint>

#include <omp.h>

#include <proxy/proxy.hpp>

void example(const proxy::Config& proxy_config, int threads, const double* const* send, double* const* recv,
             std::int64_t* const* buf, double* out, void* const* buffer, std::size_t n, std::size_t bytes,
             int root, proxy::UserFunction fn, void* ctx, proxy::DataType type, proxy::ReduceOp op) {
  {
    // @example@
  }
}
