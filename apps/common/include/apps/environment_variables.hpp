// The PROXY_* environment variables every program honours: the runtime's table (proxy/environment_variables.hpp),
// under the names the programs use. Plain data, any thread.
#pragma once

#include <span>

#include "proxy/environment_variables.hpp"

namespace apps {

using proxy::EnvironmentVariable;
using proxy::environment_help;
using proxy::proxy_and_omp_settings;

// Every PROXY_* variable the runtime, the harness and the drivers read.
inline std::span<const EnvironmentVariable> proxy_environment_variables() noexcept {
  return proxy::environment_variables();
}

}  // namespace apps
