// ProxyThread: the one thread of a rank that calls MPI. Compute threads hand it work through a lock-free
// queue (start a plan, post an operation, run a closure) and wait on tickets under the wait policy.
//
// Thread contract ("only one thread dispatches; any thread adds"):
//   - One ProxyThread per process at a time (a second one while the first is alive throws proxy::Error).
//   - Construct and destroy on the thread that owns MPI (the main thread), and destroy it once no other thread uses
//     it: the destructor run on another thread, inside an OpenMP parallel region begun after construction, or on
//     the proxy thread itself (a closure, a then() callback) ends the job with one line. The constructor duplicates
//     the communicator (MPI_ERRORS_RETURN on the copy; the first one also replaces MPI_COMM_WORLD's handler,
//     where it is still MPI's default, with one that stays fatal outside the proxy's loop: MPICH reports
//     the loop's MPI_Testsome errors there) BEFORE the proxy thread starts; from then until the
//     destructor returns, only the proxy thread may call MPI on this rank (MPI_THREAD_SERIALIZED).
//   - commit(), start(), ready(), post(), submit(), then(), call(), test(), wait(), progress_point(),
//     statistics(): any thread.
//   - Functions given to then() run on the proxy thread (cooperative: on the thread holding the progress
//     token): keep them short and never wait in them (wait() from there, or from a closure or an
//     operation, throws proxy::Error at once: it would wait for itself).
//   - Progress (proxy/progress.hpp): with the dedicated strategy the proxy thread alone calls MPI; with the
//     cooperative one, start(), test(), wait() and progress_point() may run a step of the proxy's loop on
//     the calling thread while they hold the progress token, so MPI calls come from several threads, one
//     at a time, ordered by the token (MPI_THREAD_SERIALIZED still suffices; closures may run there too).
//   - A given Plan is started by one thread at a time; any thread may wait on its ticket.
//   - The destructor drains outstanding work within the wait timeout, cancelling what can be cancelled
//     (plans' point-to-point requests) and naming each cancelled epoch on stderr in one line ("proxy:
//     warning: ..."; the exit status stays the program's). What cannot be cancelled (requests a closure
//     tracked, which may be collectives) or a proxy stuck in a blocking MPI call ends the job instead: one
//     line on stderr naming the operation, the rank and the time, then MPI_Abort (exit status 1). It never
//     waits for the proxy forever and never leaves a detached thread behind in a process that goes on.
//     Run while an exception unwinds through it (thrown in its scope, caught outside), it does not drain:
//     it cancels what can be cancelled at once, silently (the program reports the exception), and ends the
//     job at once, with one line, for what cannot.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include "proxy/config.hpp"
#include "proxy/call_state.hpp"
#include "proxy/closure_context.hpp"
#include "proxy/operation.hpp"
#include "proxy/placement.hpp"
#include "proxy/plan.hpp"
#include "proxy/progress.hpp"
#include "proxy/statistics.hpp"

namespace proxy {

// Library-private, here because needs_progress() reads it inline: the cooperative strategy's work in
// flight. `queued`: commands pushed by threads that could not run the pass themselves (any thread adds;
// the pass's runner takes off what it drained). `active`: the loop's active set, written by the pass's
// runner alone with a plain store, so that a start and its completion on the runner's thread take no
// locked add (a full fence on x86, ~10-20 ns each on a plan's round trip).
struct ProgressDemand {
  std::atomic<std::int64_t> queued{0};
  std::atomic<std::int64_t> active{0};
  bool any() const noexcept {
    return queued.load(std::memory_order_relaxed) > 0 || active.load(std::memory_order_relaxed) > 0;
  }
};

class PlanOperation;  // private to the library
struct Command;       // private to the library

class ProxyThread {
 public:
  // comm: the communicator plans address (duplicated). core: logical core to bind the proxy to, or -1 for
  // config.proxy_core / no binding. Without a placement, config.progress `auto` means dedicated. A setting of
  // `config` outside its documented bounds (config.hpp) throws proxy::Error naming it.
  explicit ProxyThread(MPI_Comm comm = MPI_COMM_WORLD, Config config = Config::from_env(), int core = -1);
  // The usual way: bind the proxy where the placement says. When the placement shares the proxy's core with
  // compute work, waits default to no spinning (a waiter spinning on the core of the thread it waits for only
  // delays it: measured 105 us vs 6 us per 8-byte plan round trip); PROXY_* variables still override.
  // The progress strategy is choose_progress(config.progress, placement); a cooperative proxy is not bound.
  ProxyThread(MPI_Comm comm, const Placement& placement, Config defaults = Config{});
  ~ProxyThread();
  ProxyThread(const ProxyThread&) = delete;
  ProxyThread& operator=(const ProxyThread&) = delete;

  // The proxy's private duplicate of the communicator; use it (through closures) for anything you submit.
  MPI_Comm comm() const noexcept { return comm_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  const Config& config() const noexcept { return config_; }

  // Validates the spec (peers inside the communicator, counts >= 0, collective roots inside their
  // communicator, parts declared; throws proxy::Error naming the plan and the bad value) and creates its
  // persistent requests on the proxy thread. Collective elements: every rank of their communicator commits
  // the same plans in the same order (commit duplicates the communicator the first time it is named).
  Plan commit(const PlanSpec& spec);

  // Starts the next epoch of a plan. Throws proxy::Error if its previous epoch has not completed, or if
  // another ProxyThread committed it.
  Ticket start(const Plan& plan);

  // Partitioned readiness: part `part` of the epoch `ticket` started is ready (its data written). The proxy
  // starts each send_when_ready() / recv_when_ready() transfer and *_when_ready() collective element once
  // all its parts are. Throws proxy::Error naming the plan,
  // part and epoch for a part outside [0, parts), a part marked twice in one epoch, or a ticket that is
  // not the plan's current epoch. Lock-free: one atomic exchange.
  void ready(const Ticket& ticket, int part);

  // Runs fn() on the proxy thread once the ticket's epoch has completed, successfully or not (fn may call
  // test(ticket) to tell). Returns the callback's own ticket: waiting on it rethrows an exception fn threw,
  // as CommError "plan 'halo' epoch 3: completion callback threw: <what>". fn must be short and must not
  // wait: it runs on the thread that progresses all communication. Timed like wait(): if the epoch has not
  // completed after config().wait_timeout, fn runs all the same and the returned ticket fails with
  // TimeoutError naming the epoch's operation, peer and what is outstanding.
  Ticket then(const Ticket& ticket, std::function<void()> fn);

  // Starts a custom operation (its next epoch). Same restart rule as plans.
  Ticket post(std::shared_ptr<Operation> operation);

  // Runs fn(context) on the proxy thread; the ticket completes when fn has returned and every request it
  // tracked has completed. An exception thrown by fn is rethrown to the waiter (as CommError). `name` is
  // how errors and reports call it ("closure 'NAME'").
  Ticket submit(std::function<void(ClosureContext&)> fn, std::string name = "closure");

  // Runs fn() on the proxy thread and waits for it: the way to make a one-off MPI call (a reduction of
  // timings, a barrier) while the proxy owns MPI. Returns fn's result. fn may use the caller's frame:
  //   - if the wait times out before the proxy began fn, fn is abandoned (it will never run) and
  //     TimeoutError is thrown;
  //   - if fn is already running when the wait times out (a blocking MPI call waiting for a peer that is
  //     gone), the caller cannot unwind over it: the job ends with one line naming the closure, the rank
  //     and how long it ran (exit through MPI_Abort with code 1).
  template <class Fn>
  auto call(Fn&& fn, std::string name = "call") -> std::invoke_result_t<Fn&> {
    using R = std::invoke_result_t<Fn&>;
    auto state = std::make_shared<detail::CallState>();
    if constexpr (std::is_void_v<R>) {
      await_call(submit(
                     [&fn, state](ClosureContext&) {
                       if (!state->begin()) return;  // abandoned: fn's frame may be gone
                       detail::CallState::Finish finish{*state};
                       fn();
                     },
                     name),
                 *state);
    } else {
      std::optional<R> result;
      await_call(submit(
                     [&fn, &result, state](ClosureContext&) {
                       if (!state->begin()) return;  // abandoned: fn's and result's frame may be gone
                       detail::CallState::Finish finish{*state};
                       result.emplace(fn());
                     },
                     name),
                 *state);
      return std::move(*result);
    }
  }

  // True when the ticket's epoch has completed; rethrows a stored CommError.
  bool test(const Ticket& ticket) const;
  // Waits under the wait policy; throws TimeoutError (naming the operation, epoch and what is outstanding)
  // after config().wait_timeout (or `timeout`: negative is refused, more than 1e6 s waits 1e6 s, so
  // milliseconds::max() waits without practical end), or the stored CommError.
  void wait(const Ticket& ticket) const;
  void wait(const Ticket& ticket, std::chrono::milliseconds timeout) const;

  // A progress point for compute kernels, called between chunks of work (a plane, a tile block, a row
  // chunk). One relaxed load when nothing is in flight or when the strategy is dedicated; otherwise one
  // step of the proxy's loop on this thread if no other thread holds the progress token. Any thread.
  void progress_point() {
    if (needs_progress()) progress_step();
  }
  // Whether progress points would do anything now: work in flight under the cooperative strategy (always
  // false with dedicated and polling). Two relaxed loads of one cache line. A kernel that splits its work
  // only to call progress points (SUMMA's dgemm in column blocks) stops splitting once this is false. Any
  // thread.
  bool needs_progress() const noexcept { return pending_->any(); }
  // The strategy that runs: dedicated, cooperative or polling (never automatic).
  ProgressStrategy progress_strategy() const noexcept { return progress_; }

  ProxyStatistics statistics() const;

  // Where the proxy runs: the core it is bound to, or -1 (not bound, or binding refused).
  int bound_core() const noexcept;

 private:
  struct Impl;
  void construct(MPI_Comm comm, int core);
  // call()'s wait: on a timeout abandons the closure and rethrows, or ends the job if it is running, with the
  // line `running` returns where it returns one (what the closure waits in; commit's comparison between ranks).
  void await_call(const Ticket& ticket, detail::CallState& state,
                  const std::function<std::string()>& running = nullptr) const;
  Ticket start_operation(std::shared_ptr<Operation> op);  // post(), submit(), then()
  // The epoch `op` starts next, recorded as started; refused before its last epoch completed, or after a failure.
  std::uint64_t begin_epoch(Operation& op);
  // A start the driver could not begin on this thread: into the queue, waiting for room up to the timeout.
  void queue_start(Command& command);
  // One pass of the proxy's loop on this thread if the strategy lets compute threads run them (cooperative)
  // and no other thread is; true when it ran one.
  bool progress_step() const;

  Config config_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int tag_upper_bound_ = 32767;
  ProgressStrategy progress_ = ProgressStrategy::dedicated;
  const ProgressDemand* pending_ = nullptr;  // the driver's demand(): work progress points can move
  std::unique_ptr<Impl> impl_;
  // std::uncaught_exceptions() when constructed: more at destruction means an exception is unwinding through
  // the destructor (it then cancels outstanding work at once instead of draining it).
  int uncaught_at_construction_ = std::uncaught_exceptions();
};

}  // namespace proxy
