// Umbrella header: the whole public API of the proxy runtime (proxy::proxy = proxy::core + proxy::collectives).
#pragma once

#include "proxy/collectives.hpp"
#include "proxy/core.hpp"
