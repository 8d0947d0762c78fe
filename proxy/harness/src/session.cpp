#include "proxy/harness/session.hpp"

#include <array>

#include "proxy/config.hpp"
#include "proxy/error.hpp"

#include "early_bird_loop.hpp"

namespace proxy::harness {

bool bind_compute_threads(const Environment& env, const Placement& placement) {
  if (!Config::from_env().bind) return false;  // PROXY_BIND=0: no thread of the run is bound
  return env.bind_openmp_threads(placement);
}

Session::Session(const Environment& env, Mode mode, int threads)
    : env_(env), mode_(mode), placement_(env.placement(is_multi_tier(mode) ? threads : 1, mode == Mode::proxy)) {
  std::array<int, 2> flags{placement_.shared_proxy ? 1 : 0, placement_.oversubscribed ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, flags.data(), 2, MPI_INT, MPI_LOR, env.world());
  any_shared_proxy_ = flags[0] != 0;
  any_oversubscribed_ = flags[1] != 0;
  // Every rank learns rank 0's placement line so that a report is the same everywhere.
  std::array<char, 256> line{};
  placement_.describe().copy(line.data(), line.size() - 1);
  MPI_Bcast(line.data(), static_cast<int>(line.size()), MPI_CHAR, 0, env.world());
  rank0_placement_ = line.data();
  bind_compute_threads(env, placement_);
  if (mode == Mode::proxy) proxy_.emplace(env.world(), placement_);
}

Session::~Session() = default;

void Session::fail(std::exception_ptr failure) {
  if (on_comm_failure_) {
    try {
      std::rethrow_exception(failure);
    } catch (const CommError& error) {
      on_comm_failure_(error);
    } catch (...) {
    }
  }
  std::rethrow_exception(failure);
}

void Session::exchange_once(const Steps& steps, int e) {
  if (proxy_) {
    try {
      proxy_->wait(start_with_every_part_ready(steps, *proxy_, e));  // no boundary compute marks its parts
    } catch (const CommError&) {
      fail(std::current_exception());
    }
  } else if (steps.exchange) {
    steps.exchange(e);
  } else {
    steps.post(e);
    steps.complete();
  }
}

Timings Session::slowest_rank(const Timings& mine) {
  Timings slowest;
  on_mpi_thread([&] { slowest = harness::slowest_rank(mine, env_.world()); });
  return slowest;
}

std::string Session::proxy_statistics() const { return proxy_ ? proxy_->statistics().format() : std::string(); }

}  // namespace proxy::harness
