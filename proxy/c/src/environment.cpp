// proxy_environment_* and proxy_placement_*: proxy::Environment and proxy::Placement behind C handles.
#include <algorithm>
#include <cstring>
#include <memory>

#include "c_boundary.hpp"

using proxy::c::clear;
using proxy::c::guarded;
using proxy::c::require;

extern "C" {

proxy_status proxy_environment_create(int* argc, char*** argv, proxy_environment** environment) {
  return guarded([&] {
    require(environment, "proxy_environment_create", "environment");
    *environment = nullptr;
    int no_argc = 0;
    char** no_argv = nullptr;
    auto handle = std::make_unique<proxy_environment>();
    handle->environment = std::make_unique<proxy::Environment>(argc != nullptr ? *argc : no_argc,
                                                               argv != nullptr ? *argv : no_argv);
    *environment = handle.release();
  });
}

proxy_status proxy_environment_free(proxy_environment* environment) {
  return guarded([&] { delete environment; });
}

proxy_status proxy_environment_rank(const proxy_environment* environment, int* rank) {
  clear(rank, MPI_UNDEFINED);
  return guarded([&] {
    require(rank, "proxy_environment_rank", "rank") =
        require(environment, "proxy_environment_rank", "environment").environment->rank();
  });
}

proxy_status proxy_environment_size(const proxy_environment* environment, int* size) {
  clear(size, 0);
  return guarded([&] {
    require(size, "proxy_environment_size", "size") =
        require(environment, "proxy_environment_size", "environment").environment->size();
  });
}

proxy_status proxy_environment_placement(const proxy_environment* environment, int threads, int with_proxy,
                                         proxy_placement** placement) {
  return guarded([&] {
    require(placement, "proxy_environment_placement", "placement");
    *placement = nullptr;
    const auto& env = *require(environment, "proxy_environment_placement", "environment").environment;
    *placement = new proxy_placement{env.placement(threads, with_proxy != 0)};
  });
}

proxy_status proxy_environment_bind_openmp_threads(const proxy_environment* environment,
                                                   const proxy_placement* placement, int* bound) {
  clear(bound, 0);
  return guarded([&] {
    const auto& env = *require(environment, "proxy_environment_bind_openmp_threads", "environment").environment;
    const bool ok =
        env.bind_openmp_threads(require(placement, "proxy_environment_bind_openmp_threads", "placement").placement);
    if (bound != nullptr) *bound = ok ? 1 : 0;
  });
}

void proxy_abort(const char* line, int code) {
  if (line != nullptr) proxy::Environment::abort(line, code);
  proxy::Environment::abort(code);
}

proxy_status proxy_placement_free(proxy_placement* placement) {
  return guarded([&] { delete placement; });
}

proxy_status proxy_placement_threads(const proxy_placement* placement, int* threads) {
  clear(threads, 0);
  return guarded([&] {
    require(threads, "proxy_placement_threads", "threads") =
        require(placement, "proxy_placement_threads", "placement").placement.threads;
  });
}

proxy_status proxy_placement_describe(const proxy_placement* placement, char* text, size_t size) {
  if (size > 0) clear(text, '\0');
  return guarded([&] {
    const std::string line = require(placement, "proxy_placement_describe", "placement").placement.describe();
    require(text, "proxy_placement_describe", "text");
    if (size == 0) return;
    const std::size_t length = std::min(line.size(), size - 1);
    std::memcpy(text, line.data(), length);
    text[length] = '\0';
  });
}

}  // extern "C"
