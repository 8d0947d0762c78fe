// Private to proxy::core: the proxy's duplicates of the communicators that plans' collective elements name.
// One duplicate per user communicator and ProxyThread, shared by every plan on it, so that a SUMMA with one
// plan per panel costs two MPI_Comm_dup in all, not two per panel.
//
// Thread contract: duplicate_of() on the proxy thread only; free_all() on the thread that owns MPI once the
// proxy thread has been joined (ProxyThread's destructor).
#pragma once

#include <utility>
#include <vector>

#include <mpi.h>

namespace proxy {

class CommunicatorCache {
 public:
  // The proxy's duplicate of `user` (created on first use). A cached entry is reused only while it is still
  // congruent with `user`: a freed communicator's handle may be reused for a different group.
  MPI_Comm duplicate_of(MPI_Comm user);
  void free_all() noexcept;

 private:
  std::vector<std::pair<MPI_Comm, MPI_Comm>> duplicates_;  // (user's, ours)
};

}  // namespace proxy
