// Internal to the runtime (not installed): the steady clock the proxy's statistics use, also used by the
// in-tree drivers and benchmarks. No MPI call: safe on any thread.
#pragma once

#include <chrono>

namespace proxy {

inline double now_seconds() noexcept {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace proxy
