// How a rank's MPI progress is driven: the proxy thread spinning on a core of its own (`dedicated`, the
// thesis's design); on a core of its own but asleep whenever nothing is queued or in flight, spinning only
// while MPI work is (`polling`: the core comes back between communication phases, a start after a quiet
// spell pays a wake-up); or, when no core can be spared, by whichever thread needs it (`cooperative`): the
// thread that starts a plan, a thread that waits, and the progress points the applications' kernels call
// between chunks of work; the proxy thread then sleeps and is only a low-rate backstop.
// PROXY_PROGRESS=auto|dedicated|cooperative|polling (Config::progress); `auto` chooses dedicated or
// cooperative from the placement (never polling).
// Thread safety: plain values and pure functions, callable from any thread.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <string_view>

#include "proxy/placement.hpp"

namespace proxy {

enum class ProgressStrategy { automatic, dedicated, cooperative, polling };

// "auto", "dedicated", "cooperative", "polling".
std::string_view to_string(ProgressStrategy strategy) noexcept;
// Accepts those names; throws proxy::Error naming the value otherwise.
ProgressStrategy parse_progress_strategy(std::string_view text);

// Whether the strategy keeps a core for the proxy thread (dedicated, polling), so a placement should
// reserve one; cooperative gives every core to compute. (automatic: as dedicated.)
bool needs_a_core(ProgressStrategy strategy) noexcept;

// The strategy that runs: `requested` unless it is automatic; then dedicated when the placement gives the
// proxy a core nobody else uses and every compute thread a core of its own, else cooperative (a proxy
// spinning on a shared core only delays the threads it shares it with, and one reserved while compute
// threads double up on the other cores costs more than it hides).
ProgressStrategy choose_progress(ProgressStrategy requested, const Placement& placement) noexcept;

// The fewest cores a rank must own before `auto` keeps one of them for the proxy.
inline constexpr int kCoresForAProxyCore = 4;

// Whether `auto` keeps the core that `with_core` (a placement that reserves one) gives the proxy, in a
// world of world_size ranks. A core kept for the proxy costs the compute p/(p - 1) on a rank of p cores
// (the ideal-proxy model, T_p = (T_s - C_t) p/(p - 1)): it pays only for hidden communication C_t above
// T_s/p. So no: with no peer (world_size 1, C_t = 0), or with fewer than kCoresForAProxyCore cores (C_t
// would have to pass a third or half of T_s; measured: bench/RESULTS.md, "The README's recipe against plain
// MPI+OpenMP"), or when choose_progress would not pick dedicated anyway. Environment::placement asks it
// when the compute threads are its to size (threads 0): an explicit count that leaves a core spare leaves it
// to the proxy.
bool auto_keeps_a_proxy_core(const Placement& with_core, int world_size) noexcept;

}  // namespace proxy
