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
  TickRate() noexcept : start_(now()) {}
  double seconds(std::uint64_t ticks) const noexcept {
    const Reading end = now();
    const double elapsed_ticks = static_cast<double>(end.ticks - start_.ticks);
    return elapsed_ticks > 0.0 ? static_cast<double>(ticks) * (end.seconds - start_.seconds) / elapsed_ticks : 0.0;
  }

 private:
  struct Reading {
    std::uint64_t ticks;
    double seconds;
  };
  // A tick reading and the steady_clock time it was taken at: the middle of the tightest of three
  // steady_clock brackets around it (a thread descheduled between two plain reads would skew the rate).
  static Reading now() noexcept {
    Reading best{0, 0.0};
    double best_width = -1.0;
    for (int attempt = 0; attempt < 3; ++attempt) {
      const double before = now_seconds();
      const std::uint64_t ticks = now_ticks();
      const double after = now_seconds();
      if (best_width < 0.0 || after - before < best_width) {
        best = {ticks, (before + after) / 2};
        best_width = after - before;
      }
    }
    return best;
  }

  Reading start_;
};

// Ticks from `start` to `end`; 0 if they run backwards (a counter not synchronised across cores).
inline std::uint64_t ticks_between(std::uint64_t start, std::uint64_t end) noexcept {
  return end > start ? end - start : 0;
}

}  // namespace proxy
