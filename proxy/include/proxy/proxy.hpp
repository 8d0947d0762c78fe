// Umbrella header: the whole public API of the proxy runtime.
#pragma once

#include "proxy/appendix_a.hpp"
#include "proxy/config.hpp"
#include "proxy/environment.hpp"
#include "proxy/error.hpp"
#include "proxy/operation.hpp"
#include "proxy/placement.hpp"
#include "proxy/plan.hpp"
#include "proxy/proxy_thread.hpp"
#include "proxy/queue.hpp"
#include "proxy/statistics.hpp"
#include "proxy/topology.hpp"
#include "proxy/wait_policy.hpp"
#include "proxy/timer.hpp"
