// CommunicatorCache: see communicator_cache.hpp.
#include "communicator_cache.hpp"

#include <algorithm>

#include "proxy/error.hpp"

namespace proxy {

void CollectiveQueue::push(const void* element) {
  if (waiting_.size() == waiting_.capacity() && head_ > 0) {  // reuse the started entries' room
    waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  waiting_.push_back(element);
}

void CollectiveQueue::pop_front() noexcept {
  if (++head_ == waiting_.size()) {
    waiting_.clear();
    head_ = 0;
  }
}

void CollectiveQueue::remove(const void* element) noexcept {
  const auto begin = waiting_.begin() + static_cast<std::ptrdiff_t>(head_);
  waiting_.erase(std::remove(begin, waiting_.end(), element), waiting_.end());
  if (empty()) {
    waiting_.clear();
    head_ = 0;
  }
}

CommunicatorCache::Duplicate CommunicatorCache::duplicate_of(MPI_Comm user) {
  for (const auto& entry : duplicates_) {
    if (entry->user != user) continue;
    int relation = MPI_UNEQUAL;
    MPI_Comm_compare(user, entry->ours, &relation);
    if (relation == MPI_CONGRUENT) return {entry->ours, &entry->queue};
  }
  MPI_Comm ours = MPI_COMM_NULL;
  const int code = MPI_Comm_dup(user, &ours);
  if (code != MPI_SUCCESS) throw Error("duplicating a collective element's communicator failed: " + mpi_error_string(code));
  MPI_Comm_set_errhandler(ours, MPI_ERRORS_RETURN);  // failures become CommErrors, not aborts
  duplicates_.push_back(std::make_unique<Entry>(Entry{user, ours, {}}));
  return {ours, &duplicates_.back()->queue};
}

void CommunicatorCache::free_all() noexcept {
  for (auto& entry : duplicates_) MPI_Comm_free(&entry->ours);
  duplicates_.clear();
}

}  // namespace proxy
