// Umbrella header: the whole public API of the proxy runtime (proxy::proxy = proxy::core + proxy::collectives).
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include "proxy/collectives.hpp"
#include "proxy/core.hpp"
