#include "cg3d/phases.hpp"

#include <cassert>
#include <limits>
#include <span>
#include <string>

#include <proxy/detail/counted.hpp>
#include <proxy/harness/timed_wait.hpp>

namespace cg3d {

Exchange::Exchange(std::string name, const redblack3d::Decomposition& decomposition, const redblack3d::Halo& halo,
                   Grid* ghosts_of, int values, const PartialSums* partials)
    : name_(std::move(name)), halo_(halo), ghosts_of_(ghosts_of), values_(values), partials_(partials) {
  assert(values >= 0 && values <= 2 && (values == 0 || partials != nullptr) && "Exchange: 0-2 sums of partials");
  for (const int rank : decomposition.neighbour)
    if (rank >= 0) neighbours_[faces_++] = rank;
}

void Exchange::sum_partials() noexcept {
  if (values_ > 0) local_ = partials_->total();
}

void Exchange::post(MPI_Comm comm) {
  sum_partials();
  halo_count_ = ghosts_of_ != nullptr ? halo_.post(*ghosts_of_, comm, halo_requests_) : 0;
  if (values_ > 0) MPI_Iallreduce(local_.data(), sums_.data(), values_, MPI_DOUBLE, MPI_SUM, comm, &sum_request_);
}

void Exchange::complete() {
  // Halo::post's order: a receive per neighbour (faces in order), then a send per neighbour.
  proxy::harness::wait_all(
      std::span<MPI_Request>(halo_requests_.data(), halo_count_), [this](int i) { return neighbours_[i % faces_]; },
      [this](int i) {
        const std::string peer = std::to_string(neighbours_[i % faces_]);
        return (i < faces_ ? "no message from rank " + peer : "rank " + peer + " did not receive our message") +
               " (" + name_ + ")";
      });
  if (values_ > 0) proxy::harness::wait_collective(sum_request_);
}

void Exchange::commit(proxy::ProxyThread& proxy) {
  proxy::PlanSpec spec = ghosts_of_ != nullptr ? halo_.plan(*ghosts_of_, name_) : proxy::PlanSpec(name_);
  // The parts' partial sums are the element's contributions: the proxy adds them (as total() does) and
  // sums over the ranks, so no compute thread adds them up.
  if (values_ > 0) spec.allreduce(proxy.comm(), partials_->parts(), sums_.data(), values_, MPI_DOUBLE, MPI_SUM);
  plan_ = proxy.commit(spec);
}

proxy::Ticket Exchange::start(proxy::ProxyThread& proxy) { return proxy.start(plan_); }

proxy::harness::Steps make_steps(std::vector<Phase> phases, MPI_Comm comm, std::optional<int> iterations) {
  // Shared by the closures: the phases and which exchange is in flight (lookahead 0: at most one).
  struct Table {
    std::vector<Phase> phases;
    int in_flight = 0;
    const Phase& of(int step) const { return phases[static_cast<std::size_t>(step) % phases.size()]; }
  };
  const auto per_unit = static_cast<long long>(phases.size());
  // A cap of 1 iteration is still iterations: done_after after its last phase (it was asked after each phase,
  // as for the start, and stopped classic CG after q = A p with x and r not updated).
  const bool once = !iterations.has_value();
  const int units = iterations.value_or(1);
  if (units < 1 || per_unit * units > std::numeric_limits<int>::max())
    throw proxy::harness::InvalidSettings(proxy::detail::counted(units, "iteration") + " of " +
                                          proxy::detail::counted(per_unit, "step") + " do not fit a run");
  auto table = std::make_shared<Table>(Table{std::move(phases), 0});
  proxy::harness::Steps steps;
  steps.count = static_cast<int>(per_unit * units);
  steps.lookahead = 0;
  steps.unit = once ? "step" : "iteration";
  steps.steps_per_unit = once ? 1 : static_cast<int>(per_unit);
  steps.part = once ? nullptr : "step";
  steps.post = [table, comm](int e) {
    table->in_flight = e;
    table->of(e).exchange->post(comm);
  };
  steps.complete = [table] { table->of(table->in_flight).exchange->complete(); };
  steps.start_on_proxy = [table](proxy::ProxyThread& proxy, int e) { return table->of(e).exchange->start(proxy); };
  steps.compute_inner = [table](int s, proxy::harness::StepThread team) {
    if (table->of(s).inner) table->of(s).inner(team);
  };
  steps.compute_boundary = [table](int s, proxy::harness::StepThread team) {
    if (table->of(s).boundary) table->of(s).boundary(team);
  };
  return steps;
}

}  // namespace cg3d
