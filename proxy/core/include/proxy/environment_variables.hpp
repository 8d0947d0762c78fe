// The PROXY_* environment variables the runtime, its harness and the programs built on it honour (README
// "Environment"), listed once: the programs' --help footer and --show-config read this table (the C++ drivers
// through apps/common, the C and Fortran ones through proxy_settings_help and proxy_settings_show), so a new
// variable is documented everywhere by adding it here. Plain data, any thread.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace proxy {

struct EnvironmentVariable {
  std::string_view name;           // "PROXY_WAIT_POLICY"
  std::string_view default_value;  // what applies when it is unset ("spin-then-yield", "placement", ...)
  std::string_view meaning;        // one line
};

// Every PROXY_* variable the runtime, the harness and the drivers read.
std::span<const EnvironmentVariable> environment_variables() noexcept;

// The shared --help footer: the PROXY_* table, OMP_* note and the exit codes.
std::string environment_help();

// Every PROXY_* and OMP_* variable set in this process's environment, sorted by name.
std::vector<std::pair<std::string, std::string>> proxy_and_omp_settings();

}  // namespace proxy
