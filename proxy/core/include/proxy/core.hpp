// Umbrella header of proxy::core: the runtime (environment, placement, the proxy thread, plans, operations).
// Internals (the request queue, the notifier, the clock) live under <proxy/detail/...> and are not part of
// the API.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include "proxy/appendix_a.hpp"
#include "proxy/config.hpp"
#include "proxy/environment.hpp"
#include "proxy/error.hpp"
#include "proxy/memory.hpp"
#include "proxy/operation.hpp"
#include "proxy/placement.hpp"
#include "proxy/plan.hpp"
#include "proxy/plan_collective.hpp"
#include "proxy/proxy_thread.hpp"
#include "proxy/statistics.hpp"
#include "proxy/topology.hpp"
#include "proxy/version.hpp"
