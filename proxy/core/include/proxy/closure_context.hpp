// ClosureContext: what a closure running on the proxy thread (ProxyThread::submit, call) is handed: the
// proxy's communicator, and the requests it tracks, whose completion completes the closure's ticket.
// Thread contract: used only by the closure it is handed to, on the thread running it.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <vector>

#include <mpi.h>

namespace proxy {

// Handed to a closure running on the proxy thread: the MPI requests it tracks complete its ticket.
class ClosureContext {
 public:
  MPI_Comm comm() const noexcept { return comm_; }
  // Track a request; the closure's ticket completes when every tracked request has completed.
  void track(MPI_Request request) { requests_.push_back(request); }
  // The context of the closure now running on this thread, or nullptr (for Appendix A style callbacks).
  static ClosureContext* current() noexcept;

 private:
  friend class ClosureOperation;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<MPI_Request> requests_;
};

}  // namespace proxy
