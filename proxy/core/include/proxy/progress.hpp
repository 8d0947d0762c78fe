// How a rank's MPI progress is driven: the proxy thread spinning on a core of its own (`dedicated`, the
// thesis's design), or, when no core can be spared, by whichever thread needs it (`cooperative`): the
// thread that starts a plan, a thread that waits, and the progress points the applications' kernels call
// between chunks of work; the proxy thread then sleeps and is only a low-rate backstop.
// PROXY_PROGRESS=auto|dedicated|cooperative (Config::progress); `auto` chooses from the placement.
// Thread safety: plain values and pure functions, callable from any thread.
#pragma once

#include <string_view>

#include "proxy/placement.hpp"

namespace proxy {

enum class ProgressStrategy { automatic, dedicated, cooperative };

// "auto", "dedicated", "cooperative".
std::string_view to_string(ProgressStrategy strategy) noexcept;
// Accepts "auto", "dedicated" and "cooperative"; throws proxy::Error naming the value otherwise.
ProgressStrategy parse_progress_strategy(std::string_view text);

// The strategy that runs: `requested` unless it is automatic; then dedicated when the placement gives the
// proxy a core nobody else uses and every compute thread a core of its own, else cooperative (a proxy
// spinning on a shared core only delays the threads it shares it with, and one reserved while compute
// threads double up on the other cores costs more than it hides).
ProgressStrategy choose_progress(ProgressStrategy requested, const Placement& placement) noexcept;

}  // namespace proxy
