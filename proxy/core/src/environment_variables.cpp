#include "proxy/environment_variables.hpp"

#include <algorithm>
#include <array>

extern char** environ;

namespace proxy {
namespace {

constexpr std::array<EnvironmentVariable, 11> kVariables{{
    {"PROXY_WAIT_POLICY", "spin-then-yield", "spin, spin-then-yield or block: how the proxy and waiting threads wait"},
    {"PROXY_WAIT_TIMEOUT", "120", "seconds before a wait fails with a timeout (also the shutdown drain limit)"},
    {"PROXY_SPIN_COUNT", "2000", "pause iterations before yielding/sleeping"},
    {"PROXY_CORE", "placement", "logical core (hwloc) of the proxy thread"},
    {"PROXY_BIND", "1", "0 disables thread binding (proxy and compute threads)"},
    {"PROXY_PROGRESS", "auto", "auto, dedicated, cooperative or polling: who drives MPI progress"},
    {"PROXY_QUEUE_CAPACITY", "1024", "request-queue slots (a power of two)"},
    {"PROXY_TIMINGS", "0", "1: the proxy times plan epochs and its busy time for its statistics (--verbose does)"},
    {"PROXY_NODE_SIZE", "shared-memory node", "treat every k consecutive ranks as one node"},
    {"PROXY_COLLECTIVE_MODEL", "built-in", "collective cost model file written by calibrate"},
    {"PROXY_VERBOSE", "0", "1: as --verbose (placement, proxy statistics, effective configuration)"},
}};

}  // namespace

std::span<const EnvironmentVariable> environment_variables() noexcept { return kVariables; }

std::string environment_help() {
  std::size_t width = 0;
  for (const auto& v : kVariables) width = std::max(width, v.name.size());
  std::string text = "Environment (default in brackets):\n";
  for (const auto& v : kVariables) {
    text += "  " + std::string(v.name) + std::string(width - v.name.size() + 2, ' ') + std::string(v.meaning) +
            " [" + std::string(v.default_value) + "]\n";
  }
  text += "  OMP_*" + std::string(width - 3, ' ') + "read by OpenMP as usual; shown by --show-config\n";
  text += "Exit status: 0 success, 1 run-time failure, 2 usage error, 3 failed verification.\n";
  return text;
}

std::vector<std::pair<std::string, std::string>> proxy_and_omp_settings() {
  std::vector<std::pair<std::string, std::string>> settings;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text = *entry;
    if (!text.starts_with("PROXY_") && !text.starts_with("OMP_")) continue;
    const std::size_t eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    settings.emplace_back(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  std::sort(settings.begin(), settings.end());
  return settings;
}

}  // namespace proxy
