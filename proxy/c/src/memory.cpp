// proxy_check_memory: proxy::memory_share and proxy::memory_refusal (<proxy/memory.hpp>), the check the C++
// programs make through proxy::harness::check_memory, with its reduction over the ranks made by a plan on the
// proxy thread (which, once it runs, is the one thread that calls MPI).
#include <string>

#include <proxy/memory.hpp>

#include "c_boundary.hpp"

using proxy::c::guarded;
using proxy::c::require;

extern "C" {

proxy_status proxy_check_memory(proxy_thread* thread, const proxy_environment* environment, const char* what,
                                double bytes_per_rank) {
  std::string refusal;
  const proxy_status status = guarded([&] {
    proxy::ProxyThread& proxy = *require(thread, "proxy_check_memory", "thread").thread;
    const int ranks_on_node = require(environment, "proxy_check_memory", "environment").environment->node().size;
    require(what, "proxy_check_memory", "what");
    if (const std::string bad = proxy::need_refusal(bytes_per_rank); !bad.empty())
      throw proxy::c::ArgumentError("proxy_check_memory: bytes_per_rank " + bad);
    const proxy::MemoryVote mine = proxy::memory_vote(proxy::memory_share(ranks_on_node), bytes_per_rank);
    proxy::MemoryVote reduced;
    proxy::PlanSpec spec("memory check");
    spec.allreduce(proxy.comm(), mine.data(), reduced.data(), 2, MPI_DOUBLE_INT, MPI_MINLOC);
    proxy.wait(proxy.start(proxy.commit(spec)));
    refusal = proxy::memory_refusal(what, reduced, ranks_on_node);
  });
  if (status != PROXY_SUCCESS || refusal.empty()) return status;
  return proxy::c::fail(PROXY_ERROR_SETTINGS, refusal.c_str());
}

}  // extern "C"
