// Wall-clock helpers shared by the drivers and benchmarks (no MPI call: safe on any thread).
#pragma once

#include <chrono>

namespace proxy {

inline double now_seconds() noexcept {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace proxy
