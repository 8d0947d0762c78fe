// The OpenMP bridge: completion of a proxy ticket fulfils an OpenMP event, so a task created with
// `detach(event)` completes when its communication has, and task dependencies express "the boundary once
// the ghosts are in" with no thread blocking in wait(). Stock OpenMP 5.0 (GCC's libgomp supports detach).
//
//   omp_event_handle_t ghosts_in;
//   #pragma omp task detach(ghosts_in) depend(in: rows) depend(out: ghosts)
//   proxy::fulfill_when_complete(proxy, proxy.start(halo), ghosts_in);
//   #pragma omp task depend(in: ghosts)
//   update_boundary();   // runs once the halo epoch has completed
//
// Thread contract: call from inside the detached task (any compute thread). omp_fulfill_event then runs on
// the proxy thread, which libgomp allows from a thread outside the team. The event is fulfilled whether the
// epoch succeeded, failed or did not complete within the wait timeout (a failed or lost epoch must not leave
// the task graph hanging): a dependent task waits on the returned ticket, which is complete by then and
// rethrows the TimeoutError of an epoch that never completed, then test(ticket) to rethrow a failed one.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <omp.h>

#include "proxy/proxy_thread.hpp"

namespace proxy {

inline Ticket fulfill_when_complete(ProxyThread& proxy, const Ticket& ticket, omp_event_handle_t event) {
  return proxy.then(ticket, [event] { omp_fulfill_event(event); });
}

}  // namespace proxy
