// The communication patterns the overlap benchmark measures, each runnable two ways: from the calling
// thread with non-blocking MPI (async, async-test, async-progress) or by the proxy thread (proxy). A Pattern owns its
// buffers and communicators; make_async()/make_proxy() give an Exchange that starts one step and waits
// for it. Construct patterns on the main thread BEFORE a ProxyThread exists (they may split communicators)
// and destroy them after it is gone.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "proxy/proxy_thread.hpp"

namespace overlap {

// One communication step: start() returns at once, wait() completes it. Main thread only.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual void start() = 0;
  virtual void wait() = 0;
  // Called between chunks of the overlapped compute: the proxy's progress point (cooperative progress
  // moves the exchange along there); MPI_Testall over the step's requests in async-test; nothing in plain
  // async, whose overlap is what MPI gives without help.
  virtual void progress_point() {}
};

class Pattern {
 public:
  virtual ~Pattern() = default;
  virtual std::string name() const = 0;            // "p2p", "halo", "bcast"
  virtual std::string shape() const = 0;           // e.g. "edge 64, 6 faces of 32 KiB"
  virtual std::size_t bytes() const = 0;           // bytes this rank sends + receives per step (the size axis)
  // test: progress_point() calls MPI_Testall (the async-test mode).
  virtual std::unique_ptr<Exchange> make_async(MPI_Comm comm, bool test) = 0;
  virtual std::unique_ptr<Exchange> make_proxy(proxy::ProxyThread& proxy) = 0;
};

// Point-to-point: ranks 2i and 2i+1 exchange `bytes` each way (an odd last rank talks to MPI_PROC_NULL).
std::unique_ptr<Pattern> make_point_to_point(MPI_Comm comm, std::size_t bytes);
// The RedBlack3D halo: a periodic Px x Py x Pz process grid (MPI_Dims_create), local blocks of edge^3
// doubles, one face of edge^2 doubles to each of the 6 neighbours (thesis II.A ghost exchange).
std::unique_ptr<Pattern> make_halo(MPI_Comm comm, int edge);
// The SUMMA panel broadcast: an r x c grid, C = A*B of order n; step k broadcasts a (n/r x panel) panel of
// A along each row from column k mod c and a (panel x n/c) panel of B down each column from row k mod r
// (thesis III, two MPI_Ibcast per step; the proxy runs them as a closure that tracks both requests).
std::unique_ptr<Pattern> make_panel_broadcast(MPI_Comm comm, int n, int panel);

}  // namespace overlap
