// Private to proxy::core: a submitted closure as an Operation (the thesis's commFn): arbitrary MPI code run
// on the proxy thread, complete when the requests it tracked have completed.
//
// Thread contract: started, progressed and cancelled ONLY on the proxy thread; describe_outstanding() from
// any thread (one atomic).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include <mpi.h>

#include "proxy/closure_context.hpp"
#include "proxy/operation.hpp"

namespace proxy {

class ClosureOperation final : public Operation {
 public:
  ClosureOperation(std::function<void(ClosureContext&)> fn, MPI_Comm comm, std::string name = "closure");
  const char* kind() const noexcept override { return "closure"; }
  void start(std::uint64_t epoch) override;
  bool progress() override;
  // What it tracked may be collectives, which MPI cannot cancel: a shutdown that cannot drain it ends the job.
  bool cancellable() const noexcept override { return false; }
  std::string describe_outstanding() const override;

 private:
  std::function<void(ClosureContext&)> fn_;
  ClosureContext context_;
  std::uint64_t epoch_ = 0;
  std::atomic<int> outstanding_{0};
};

}  // namespace proxy
