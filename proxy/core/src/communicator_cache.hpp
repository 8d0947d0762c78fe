// Private to proxy::core: the proxy's duplicates of the communicators that plans' collective elements name,
// and the order the elements on each start in.
// One duplicate per user communicator and ProxyThread, shared by every plan on it, so that a SUMMA with one
// plan per panel costs two MPI_Comm_dup in all, not two per panel.
//
// Thread contract: duplicate_of() and the queues on the thread running the progress loop only; free_all() on
// the thread that owns MPI once the proxy thread has been joined (ProxyThread's destructor).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <mpi.h>

namespace proxy {

// The collective elements on one communicator that wait for their turn, oldest first. MPI matches collectives
// by the order each rank starts them in; an element that waits for parts (a *_when_ready element, or one
// reducing contributions) must not be overtaken by a later one on the same communicator, in its own plan or in
// a plan started after it, or a rank whose parts came in another order would match them crosswise. So an
// element starts only once every element queued before it has started. No allocation while progressing:
// capacity is reserved at commit, one entry per collective element on the communicator.
class CollectiveQueue {
 public:
  void reserve_one_more() { waiting_.reserve(++elements_); }  // a committed element on the communicator
  void release_one() noexcept { --elements_; }                 // ... released
  bool empty() const noexcept { return head_ == waiting_.size(); }
  bool at_front(const void* element) const noexcept { return !empty() && waiting_[head_] == element; }
  void push(const void* element);
  void pop_front() noexcept;
  void remove(const void* element) noexcept;  // a cancelled or failed epoch's element that never started

 private:
  std::vector<const void*> waiting_;  // [head_, size) queued
  std::size_t head_ = 0;
  std::size_t elements_ = 0;
};

class CommunicatorCache {
 public:
  struct Duplicate {
    MPI_Comm comm;
    CollectiveQueue* queue;  // lives as long as the cache
  };
  // The proxy's duplicate of `user` (created on first use). A cached entry is reused only while it is still
  // congruent with `user`: a freed communicator's handle may be reused for a different group.
  Duplicate duplicate_of(MPI_Comm user);
  void free_all() noexcept;

 private:
  struct Entry {
    MPI_Comm user;
    MPI_Comm ours;
    CollectiveQueue queue;
  };
  std::vector<std::unique_ptr<Entry>> duplicates_;
};

}  // namespace proxy
