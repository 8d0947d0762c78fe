// The thesis's Appendix A API (Lau 2003, ch. VII), kept so that a stencil code written against it works
// unchanged, implemented on top of proxy::ProxyThread:
//
//   proxy::appendix_a::ProxyThread proxy;
//   proxy.init(num_comp_threads, handleCommunication);  // commFn(iter) runs on the proxy thread
//   for (iter...) { proxy.startComm(iter); doInner(); proxy.waitComm(iter); doAnnulus(); }
//
// commFn posts non-blocking MPI calls and stores their requests with track(request) (the thesis's
// v_handles); waitComm(iter) returns when commFn(iter) has returned and every tracked request completed.
// Return values follow the thesis: 0 on success, non-zero on error (the error is printed to stderr).
// Thread contract: init/startComm/waitComm from one compute thread; track() only inside commFn.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <map>
#include <memory>

#include <mpi.h>

#include "proxy/operation.hpp"

namespace proxy {
class ProxyThread;
}

namespace proxy::appendix_a {

class ProxyThread {
 public:
  ProxyThread();
  ~ProxyThread();

  int init(int num_comp_threads, int (*commFn)(int iteration));
  int startComm(int iteration);
  int waitComm(int iteration);

  // Inside commFn: hand a request to the proxy so that waitComm can find it.
  static void track(MPI_Request request);
  // The communicator commFn should use (the proxy's duplicate of MPI_COMM_WORLD).
  MPI_Comm comm() const noexcept;
  int num_threads() const noexcept { return num_threads_; }

 private:
  std::unique_ptr<proxy::ProxyThread> proxy_;
  int (*comm_fn_)(int) = nullptr;
  int num_threads_ = 0;
  std::map<int, Ticket> tickets_;
};

}  // namespace proxy::appendix_a
