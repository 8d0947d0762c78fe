// Private to proxy::core: CompletionCallback, the operation behind ProxyThread::then(). It completes once
// its target epoch has completed and it has run its function on the proxy thread; an exception from the
// function becomes its ticket's CommError, naming the target (plan, epoch).
//
// Thread contract: constructed on the calling thread; started and progressed ONLY on the proxy thread. It
// reads the target's completed epoch (acquire), so what the target's epoch wrote is visible to fn.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "proxy/operation.hpp"

namespace proxy {

class CompletionCallback final : public Operation {
 public:
  CompletionCallback(Ticket target, std::function<void()> fn);
  const char* kind() const noexcept override { return "callback"; }
  void start(std::uint64_t) override {}
  bool progress() override;
  std::string describe_outstanding() const override;

 private:
  Ticket target_;
  std::function<void()> fn_;
};

}  // namespace proxy
