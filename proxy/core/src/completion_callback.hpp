// Private to proxy::core: CompletionCallback, the operation behind ProxyThread::then(). It completes once
// its target epoch has completed and it has run its function on the proxy thread; an exception from the
// function becomes its ticket's CommError, naming the target (plan, epoch). Its wait is timed like every
// other: when the target has not completed within the wait timeout, fn still runs (so that an OpenMP
// event it fulfils does not leave a task graph waiting for ever) and the callback's ticket fails with
// TimeoutError naming the target, its peer and what is outstanding.
//
// Thread contract: constructed on the calling thread; started and progressed ONLY on the proxy thread. It
// reads the target's completed epoch (acquire), so what the target's epoch wrote is visible to fn.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "proxy/operation.hpp"

namespace proxy {

class CompletionCallback final : public Operation {
 public:
  // timeout: from start(); rank: this rank, for the report.
  CompletionCallback(Ticket target, std::function<void()> fn, std::chrono::milliseconds timeout, int rank);
  const char* kind() const noexcept override { return "callback"; }
  void start(std::uint64_t) override;
  bool progress() override;
  std::string describe_outstanding() const override;
  bool unattended() const noexcept override { return true; }  // its waiters are wherever fn wakes them

 private:
  void run_fn();

  Ticket target_;
  std::function<void()> fn_;
  std::chrono::milliseconds timeout_;
  int rank_;
  std::chrono::steady_clock::time_point deadline_{};
  unsigned passes_ = 0;  // the clock is read once every kPassesPerClockRead passes, not on each
};

}  // namespace proxy
