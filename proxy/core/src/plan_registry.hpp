// Private to proxy::core: the plans a ProxyThread has committed and not yet released, and the owner that
// the Plan handles share.
//
// A Plan's persistent requests belong to the proxy thread (only it may call MPI). When the last handle
// goes, Plan::Owner asks the registry to release the plan: the registry forgets it and sends the proxy a
// release command. When the proxy shuts down it releases every plan still registered and closes the
// registry; owners that go later find it closed and do nothing (their requests are already freed).
//
// Thread contract: add(), release(), snapshot() from any thread (one mutex); close_and_release_all() on
// the proxy thread, last thing before it exits.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "plan_operation.hpp"
#include "proxy/plan.hpp"

namespace proxy {

class PlanRegistry {
 public:
  // send_release: has the proxy free the plan's requests (a release command; on the proxy thread itself,
  // directly). Called under the registry's lock.
  explicit PlanRegistry(std::function<void(std::shared_ptr<PlanOperation>)> send_release)
      : send_release_(std::move(send_release)) {}

  void add(std::shared_ptr<PlanOperation> plan);
  // The last handle went: forget the plan and have the proxy free its requests (unless the proxy is gone).
  void release(const std::shared_ptr<PlanOperation>& plan);
  // The plans alive now, in commit order (for statistics).
  std::vector<std::shared_ptr<PlanOperation>> snapshot() const;
  // Proxy thread, at exit: run `drain` (the commands still queued) under the registry's lock, so that no
  // release command arrives after it; then free every registered plan's requests and close.
  void close_and_release_all(const std::function<void()>& drain);

 private:
  mutable std::mutex mutex_;
  bool closed_ = false;
  std::vector<std::shared_ptr<PlanOperation>> plans_;
  std::function<void(std::shared_ptr<PlanOperation>)> send_release_;
};

struct Plan::Owner {
  std::shared_ptr<PlanOperation> operation;
  std::shared_ptr<PlanRegistry> registry;

  Owner(std::shared_ptr<PlanOperation> op, std::shared_ptr<PlanRegistry> plans)
      : operation(std::move(op)), registry(std::move(plans)) {}
  ~Owner() { registry->release(operation); }
  Owner(const Owner&) = delete;
  Owner& operator=(const Owner&) = delete;
};

}  // namespace proxy
