// PlanRegistry: committed plans from commit to release (see plan_registry.hpp).
#include "plan_registry.hpp"

#include <algorithm>

namespace proxy {

void PlanRegistry::add(std::shared_ptr<PlanOperation> plan) {
  std::lock_guard<std::mutex> lock(mutex_);
  plans_.push_back(std::move(plan));
}

void PlanRegistry::release(const std::shared_ptr<PlanOperation>& plan) {
  // The push happens under the lock: close_and_release_all() then cannot miss a release in flight.
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) return;
  const auto at = std::find(plans_.begin(), plans_.end(), plan);
  if (at == plans_.end()) return;
  plans_.erase(at);
  send_release_(plan);
}

std::vector<std::shared_ptr<PlanOperation>> PlanRegistry::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return plans_;
}

void PlanRegistry::close_and_release_all(const std::function<void()>& drain) {
  std::lock_guard<std::mutex> lock(mutex_);
  drain();
  for (auto& plan : plans_) plan->release();
  plans_.clear();
  closed_ = true;
}

}  // namespace proxy
