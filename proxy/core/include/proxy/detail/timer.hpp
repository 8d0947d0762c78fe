// Internal to the runtime (not installed): the steady clock (now_seconds, also used by the in-tree drivers
// and benchmarks) and the progress loop's cheaper tick clock for its statistics. No MPI call: safe on any
// thread.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace proxy {

inline double now_seconds() noexcept {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// The progress loop's clock, for its statistics (a few reads per plan epoch): the time-stamp counter on
// x86-64 (~10 ns a read against ~25 ns for steady_clock in a KVM guest; constant and synchronised across
// cores wherever the kernel uses it as its clock source, as on every x86-64 CPU of the last decade),
// steady_clock's nanoseconds elsewhere. TickRate turns ticks into seconds.
inline std::uint64_t now_ticks() noexcept {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

// Ticks per second, measured against steady_clock from construction to each call (statistics are read
// rarely, and the longer the run the better the rate).
class TickRate {
 public:
  TickRate() noexcept : ticks_(now_ticks()), seconds_(now_seconds()) {}
  double seconds(std::uint64_t ticks) const noexcept {
    const double elapsed_ticks = static_cast<double>(now_ticks() - ticks_);
    const double elapsed_seconds = now_seconds() - seconds_;
    return elapsed_ticks > 0.0 ? static_cast<double>(ticks) * elapsed_seconds / elapsed_ticks : 0.0;
  }

 private:
  std::uint64_t ticks_;
  double seconds_;
};

// Ticks from `start` to `end`; 0 if they run backwards (a counter not synchronised across cores).
inline std::uint64_t ticks_between(std::uint64_t start, std::uint64_t end) noexcept {
  return end > start ? end - start : 0;
}

}  // namespace proxy
