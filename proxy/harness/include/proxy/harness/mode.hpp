// The four ways an application runs (thesis II.A, IV.B; DESIGN.md "The applications"):
//   sync  - one rank per core: each step exchanges (nothing overlaps), then computes.
//   async - one rank per core: post the exchange, compute what does not need it, wait, compute the rest.
//   mt    - one rank per node with a thread team: the master exchanges while the team waits, then all
//           compute (Baden & Shalit's MT(k)+!OVLP baseline).
//   proxy - one rank per node: the proxy thread runs the exchange while the team computes; compute
//           threads never call MPI.
// Also the one check that ties threads to modes, and the exception for settings that cannot run.
// Pure functions, any thread.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <stdexcept>
#include <string_view>

namespace proxy::harness {

enum class Mode { sync, async, mt, proxy };

// Settings that cannot run: the message is one line naming the option and the bad value. Drivers turn
// it into a usage error (exit 2). Applications throw it from their validate(), before any communication.
class InvalidSettings : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

std::string_view to_string(Mode mode) noexcept;
// "sync", "async", "mt" or "proxy"; otherwise throws InvalidSettings
// "--mode: unknown value 'TEXT' (expected sync, async, mt or proxy)".
Mode parse_mode(std::string_view text);

// One rank per node with a thread team (mt, proxy) rather than one rank per core.
constexpr bool is_multi_tier(Mode mode) noexcept { return mode == Mode::mt || mode == Mode::proxy; }
// Overlaps communication with computation (async, proxy).
constexpr bool overlaps(Mode mode) noexcept { return mode == Mode::async || mode == Mode::proxy; }

// Throws InvalidSettings "--threads T needs --mode mt or proxy (MODE runs one thread per rank)" when a
// single-tier mode is given more than one thread; threads < 0 is "--threads must be at least 0 ...".
void check_threads(Mode mode, long long threads);

}  // namespace proxy::harness
