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

}  // namespace proxy
