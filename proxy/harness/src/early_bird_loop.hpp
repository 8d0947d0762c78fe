// Private to proxy::harness: the proxy-mode loop for Steps with early-bird parts (steps.hpp), starting
// an exchange with all its parts already marked (the first exchange of a run, Session::exchange_once), and
// the end of a step that both proxy-mode loops share.
// Thread contract: as the other mode loops (session.hpp): called on the main thread of every rank.
#pragma once

#include "proxy/harness/steps.hpp"
#include "proxy/harness/timings.hpp"
#include "proxy/proxy_thread.hpp"

namespace proxy::harness {

// Starts exchange `e` on the proxy and marks its steps.ready_parts parts ready at once (none: a plain start).
Ticket start_with_every_part_ready(const Steps& steps, ProxyThread& proxy, int e);

// The proxy-mode loop when steps.ready_parts > 0. Throws proxy::Error for lookahead != 0; rethrows the
// proxy's CommError / TimeoutError, or a refused mark, after the team has left its parallel region.
Timings run_proxy_early_bird(const Steps& steps, ProxyThread& proxy, int threads, int& at);

// The end of step s in both proxy-mode loops, called by every thread of the team once the master has set
// `failed` (after the exchange's wait): a barrier, then all leave together if it is set (read between two
// barriers, so every thread sees the same value) and false is returned; else the team's boundary compute
// and a barrier, which the master charges to t.compute_s from `since` (its own reading of the clock).
bool finish_proxy_step(const Steps& steps, int s, const StepThread& team, const bool& failed, double since, Timings& t);

}  // namespace proxy::harness
