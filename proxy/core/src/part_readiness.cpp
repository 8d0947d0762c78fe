// ProxyThread::ready: the compute side of partitioned readiness (part_readiness.hpp).
#include "part_readiness.hpp"

#include "plan_operation.hpp"
#include "proxy/proxy_thread.hpp"

namespace proxy {

void ProxyThread::ready(const Ticket& ticket, int part) {
  if (!ticket) throw Error("ready: empty ticket");
  auto* plan = dynamic_cast<PlanOperation*>(ticket.operation.get());
  if (plan == nullptr) throw Error("ready: " + ticket.operation->label() + " is not a plan; only plans have parts");
  const std::uint64_t current = plan->started_epoch();
  if (ticket.epoch != current)
    throw Error("plan '" + plan->name() + "': part " + std::to_string(part) + " marked ready for epoch " +
                std::to_string(ticket.epoch) + ", but the plan's current epoch is " + std::to_string(current));
  // No wake-up needed: a plan with a held send stays in the proxy's active set, which it polls.
  plan->mark_ready(part, ticket.epoch);
}

}  // namespace proxy
