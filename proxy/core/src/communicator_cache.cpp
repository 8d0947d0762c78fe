// CommunicatorCache: see communicator_cache.hpp.
#include "communicator_cache.hpp"

#include "proxy/error.hpp"

namespace proxy {

MPI_Comm CommunicatorCache::duplicate_of(MPI_Comm user) {
  for (const auto& [theirs, ours] : duplicates_) {
    if (theirs != user) continue;
    int relation = MPI_UNEQUAL;
    MPI_Comm_compare(user, ours, &relation);
    if (relation == MPI_CONGRUENT) return ours;
  }
  MPI_Comm ours = MPI_COMM_NULL;
  const int code = MPI_Comm_dup(user, &ours);
  if (code != MPI_SUCCESS) throw Error("duplicating a collective element's communicator failed: " + mpi_error_string(code));
  MPI_Comm_set_errhandler(ours, MPI_ERRORS_RETURN);  // failures become CommErrors, not aborts
  duplicates_.emplace_back(user, ours);
  return ours;
}

void CommunicatorCache::free_all() noexcept {
  for (auto& entry : duplicates_) MPI_Comm_free(&entry.second);
  duplicates_.clear();
}

}  // namespace proxy
