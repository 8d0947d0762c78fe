// Phases: CG as the mode harness runs it (proxy/harness/steps.hpp, DESIGN.md "The applications"). A CG
// iteration is a fixed sequence of phases; each is one harness step (lookahead 0): an Exchange (the ghosts
// of one vector, a sum over the ranks of one or two values, or both in one plan), then a compute split into
// the part that may overlap it (inner) and the part that needs it (boundary).
//
// CG's iteration count depends on the data: the iterations run as one Session::run of up to max-iters
// units of the iteration's phases, and Steps::done_after decides after each unit, on the master, from
// reduced values that every rank holds bit for bit alike, whether to go on (solver.cpp).
//
// Thread contract: build Exchanges and Phases on the main thread, before the Session (the halo's
// datatypes); commit() in proxy mode once the Session's proxy runs. post/complete/start run where the
// harness calls the exchanges (the thread that may call MPI, or the proxy thread); inner and boundary are
// called by every thread of the team (steps.hpp) and may use `#pragma omp barrier` between kernels.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mpi.h>

#include <proxy/harness/steps.hpp>
#include <proxy/plan.hpp>
#include <proxy/proxy_thread.hpp>

#include "cg3d/kernels.hpp"
#include "redblack3d/decomposition.hpp"
#include "redblack3d/halo.hpp"

namespace cg3d {

// One exchange: the ghosts of `ghosts_of` (when not null) and the sum over the ranks of the first `values`
// (0, 1 or 2) entries of `partials`' total. Posted, it is the halo's MPI_Irecv/Isend and one
// MPI_Iallreduce, completed by the harness's timed waits; on the proxy it is one plan holding the halo
// transfers and a hierarchical allreduce element whose contributions are the partial sums, so the compute
// threads neither call MPI nor add the rows up: the proxy does both.
class Exchange {
 public:
  Exchange(std::string name, const redblack3d::Decomposition& decomposition, const redblack3d::Halo& halo,
           Grid* ghosts_of, int values, const PartialSums* partials);

  const std::string& name() const noexcept { return name_; }
  // The sums over the ranks; valid once the exchange has completed, the same bits on every rank.
  const std::array<double, 2>& sums() const noexcept { return sums_; }

  // Sync, async, mt: post everything without blocking, then complete it with deadlines.
  void post(MPI_Comm comm);
  void complete();
  // Proxy mode: commit the plan once (halo and allreduce on the ProxyThread's communicator), then start it
  // each time.
  void commit(proxy::ProxyThread& proxy);
  proxy::Ticket start(proxy::ProxyThread& proxy);

 private:
  void sum_partials() noexcept;  // local_ = this rank's total, parts in order

  std::string name_;
  const redblack3d::Halo& halo_;
  std::array<int, 6> neighbours_{};  // ranks of the faces that have one, in face order (Halo::post's order)
  int faces_ = 0;
  Grid* ghosts_of_;
  int values_;
  const PartialSums* partials_;
  std::array<double, 2> local_{};
  std::array<double, 2> sums_{};
  std::array<MPI_Request, 12> halo_requests_{};
  int halo_count_ = 0;
  MPI_Request sum_request_ = MPI_REQUEST_NULL;
  proxy::Plan plan_;
};

struct Phase {
  Exchange* exchange = nullptr;  // required
  std::function<void(proxy::harness::StepThread team)> inner;     // may overlap the exchange; may be empty
  std::function<void(proxy::harness::StepThread team)> boundary;  // after it; may be empty
};

// One harness step per phase, in order. Without `iterations`, once, unit "step" (a failure in the start reads
// "the start, step 2"); with it, that many times at most, unit "iteration" of one step per phase ("iteration
// 7, step 2"; the caller sets done_after, asked after each iteration's last phase, 1 iteration included).
// Throws proxy::harness::InvalidSettings when the steps would not fit an int.
proxy::harness::Steps make_steps(std::vector<Phase> phases, MPI_Comm comm, std::optional<int> iterations = {});

}  // namespace cg3d
