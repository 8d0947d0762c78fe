#include "proxy/harness/session.hpp"

#include <omp.h>

#include <array>

#include "proxy/config.hpp"
#include "proxy/error.hpp"
#include "proxy/harness/timed_wait.hpp"
#include "proxy/progress.hpp"

#include "early_bird_loop.hpp"

namespace proxy::harness {

bool bind_compute_threads(const Environment& env, const Placement& placement) {
  if (!Config::from_env().bind) {  // PROXY_BIND=0: no thread of the run is bound, the teams are still sized
    if (placement.threads > 0) omp_set_num_threads(placement.threads);
    return false;
  }
  return env.bind_openmp_threads(placement);
}

Placement placement_for(const Environment& env, Mode mode, int threads) {
  if (mode == Mode::proxy) {
    // Asked without the Environment's notice about a shared proxy core: with cooperative progress there
    // is no proxy core to share.
    const Placement with_core = place_on_host(env.host(), env.host_rank(), threads, true);
    if (!needs_a_core(choose_progress(Config::from_env().progress, with_core)))
      return env.placement(threads, false);  // no proxy core: the proxy thread sleeps, unbound
  }
  return env.placement(is_multi_tier(mode) ? threads : 1, mode == Mode::proxy);
}

Session::Session(const Environment& env, Mode mode, int threads, const Config& proxy_defaults)
    : env_(env), mode_(mode), placement_(placement_for(env, mode, threads)) {
  std::array<int, 2> flags{placement_.shared_proxy ? 1 : 0, placement_.oversubscribed ? 1 : 0};
  collective("the set-up", [&](MPI_Comm world, MPI_Request& request) {
    MPI_Iallreduce(MPI_IN_PLACE, flags.data(), 2, MPI_INT, MPI_LOR, world, &request);
  });
  any_shared_proxy_ = flags[0] != 0;
  any_oversubscribed_ = flags[1] != 0;
  // Every rank learns rank 0's placement line so that a report is the same everywhere.
  std::array<char, 256> line{};
  placement_.describe().copy(line.data(), line.size() - 1);
  collective("the set-up", [&](MPI_Comm world, MPI_Request& request) {
    MPI_Ibcast(line.data(), static_cast<int>(line.size()), MPI_CHAR, 0, world, &request);
  });
  rank0_placement_ = line.data();
  bind_compute_threads(env, placement_);
  if (mode == Mode::proxy) proxy_.emplace(env.world(), placement_, proxy_defaults);
}

Session::~Session() = default;

SessionFacts Session::facts() const {
  SessionFacts facts;
  facts.threads = threads();
  facts.placement = rank0_placement();
  facts.progress = std::string(progress());
  facts.proxy_core = proxy_keeps_a_core();
  facts.shared_proxy = any_shared_proxy();
  facts.oversubscribed = any_oversubscribed();
  return facts;
}

bool Session::proxy_keeps_a_core() const noexcept { return proxy_ && needs_a_core(proxy_->progress_strategy()); }

std::string_view Session::progress() const noexcept {
  return proxy_ ? to_string(proxy_->progress_strategy()) : std::string_view("none");
}

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

void Session::fail_at(std::string_view where, const CommError& error) {
  if (dynamic_cast<const RunError*>(&error) != nullptr) fail(std::current_exception());
  fail(std::make_exception_ptr(RunError(mode_, where, env_.rank(), error)));
}

void Session::exchange_once(const Steps& steps, int e, std::string_view what) {
  try {
    if (proxy_) {
      proxy_->wait(start_with_every_part_ready(steps, *proxy_, e));  // no boundary compute marks its parts
    } else if (steps.exchange) {
      steps.exchange(e);
    } else {
      steps.post(e);
      steps.complete();
    }
  } catch (const CommError& error) {
    fail_at(what, error);
  }
}

void Session::collective(std::string_view what,
                         const std::function<void(MPI_Comm world, MPI_Request& request)>& post) {
  const MPI_Comm world = env_.world();
  try {
    if (proxy_) {
      // The request is the proxy's to progress; the closure only posts it (post runs before wait returns).
      proxy_->wait(proxy_->submit([post, world](ClosureContext& context) {
        MPI_Request request = MPI_REQUEST_NULL;
        post(world, request);
        context.track(request);
      }));
    } else {
      MPI_Request request = MPI_REQUEST_NULL;
      post(world, request);
      wait_collective(request);
    }
  } catch (const CommError& error) {
    fail_at(what, error);
  }
}

Timings Session::slowest_rank(const Timings& mine) {
  struct {
    double total;
    int rank;
  } local{mine.total_s, env_.rank()}, slowest{};
  collective("the timing reduction", [&](MPI_Comm world, MPI_Request& request) {
    MPI_Iallreduce(&local, &slowest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, world, &request);
  });
  std::array<double, 4> columns{mine.total_s, mine.compute_s, mine.comm_s, mine.wait_s};
  collective("the timing reduction", [&](MPI_Comm world, MPI_Request& request) {
    MPI_Ibcast(columns.data(), 4, MPI_DOUBLE, slowest.rank, world, &request);
  });
  return Timings{columns[0], columns[1], columns[2], columns[3]};
}

std::string Session::proxy_statistics() const { return proxy_ ? proxy_->statistics().format() : std::string(); }

}  // namespace proxy::harness
