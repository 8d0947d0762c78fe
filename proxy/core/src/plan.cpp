// Plan: the handle of a committed plan (plan.hpp); what it refers to is a PlanOperation (plan_operation.cpp),
// kept alive by Plan::Owner (plan_registry.hpp).
#include <string>

#include "plan_operation.hpp"
#include "plan_registry.hpp"
#include "proxy/error.hpp"
#include "proxy/plan.hpp"

namespace proxy {

const std::string& Plan::name() const {
  if (!owner_) throw Error("empty Plan handle");
  return owner_->operation->name();
}

std::size_t Plan::transfer_count() const {
  if (!owner_) throw Error("empty Plan handle");
  return owner_->operation->transfer_count();
}

std::size_t Plan::collective_count() const {
  if (!owner_) throw Error("empty Plan handle");
  return owner_->operation->collective_count();
}

int Plan::part_count() const {
  if (!owner_) throw Error("empty Plan handle");
  return owner_->operation->part_count();
}

}  // namespace proxy
