// Umbrella header of proxy::collectives: thread teams, hierarchical node collectives through the proxy,
// their cost model, and the copy and reduction kernels they use.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include "proxy/collective_model.hpp"
#include "proxy/copy.hpp"
#include "proxy/node_collectives.hpp"
#include "proxy/reduction.hpp"
#include "proxy/reduction_mpi.hpp"
#include "proxy/team.hpp"
