// ProxyThread: set-up and shutdown, and every member the compute side calls (commit, start, post, submit,
// then, ready, test, wait). The proxy thread itself runs ProgressLoop (progress_loop.cpp).
#include "proxy/proxy_thread.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>

#include <omp.h>

#include "closure_operation.hpp"
#include "communicator_cache.hpp"
#include "completion_callback.hpp"
#include "plan_checks.hpp"
#include "plan_collectives.hpp"
#include "plan_operation.hpp"
#include "plan_registry.hpp"
#include "progress_driver.hpp"
#include "progress_loop.hpp"
#include "world_error_handler.hpp"
#include "proxy/environment.hpp"
#include "environment_setup.hpp"
#include "proxy/detail/counted.hpp"
#include "proxy/error.hpp"
#include "proxy/topology.hpp"

namespace proxy {

using detail::seconds_text;

std::string still_running_report(const std::string& label, std::chrono::milliseconds timeout) {
  return label + " did not finish within " + seconds_text(timeout) +
         " (PROXY_WAIT_TIMEOUT) and is still running, perhaps in a blocking MPI call waiting for a peer: it cannot be "
         "abandoned, ending the job";
}

namespace {

// One ProxyThread per process at a time: two would be two threads calling MPI under SERIALIZED.
std::atomic<bool> a_proxy_is_alive{false};
std::atomic<std::uint64_t> last_proxy_id{0};

// begin_epoch's refusal, out of the start's path.
// `completed` is the completed epoch begin_epoch saw: read again here, it may have caught up with `previous` since
// (a start racing with its epoch's completion), and a failed plan's error would then be null.
[[noreturn, gnu::noinline, gnu::cold]] void refuse_start(const Operation& op, std::uint64_t previous,
                                                         std::uint64_t completed) {
  if (completed < previous)
    throw Error(op.label() + " started again (epoch " + std::to_string(previous + 1) + ") before epoch " +
                std::to_string(previous) + " completed: wait on its ticket first");
  std::rethrow_exception(op.error());  // a failed plan stays failed
}

}  // namespace

struct ProxyThread::Impl {
  explicit Impl(std::size_t capacity) : channel(capacity) {}

  std::uint64_t id = 0;  // told apart from earlier ProxyThreads at the same address
  // Where it was made: the destructor must run there, outside any OpenMP parallel region begun since.
  std::thread::id creator = std::this_thread::get_id();
  int creator_parallel_level = omp_get_active_level();
  ProxyChannel channel;
  std::shared_ptr<PlanRegistry> plans;  // shared with the Plan handles, which may outlive the proxy
  std::unique_ptr<ProgressLoop> loop;   // its passes run as the driver says
  std::unique_ptr<ProgressDriver> driver;  // the progress strategy (progress_driver.hpp)
  CommunicatorCache communicators;      // collective elements' duplicates: proxy thread, then the destructor
  std::thread thread;
};

bool a_proxy_thread_is_alive() noexcept { return a_proxy_is_alive.load(); }

ProxyThread::ProxyThread(MPI_Comm comm, Config config, int core) : config_(std::move(config)) {
  if (a_proxy_is_alive.exchange(true))
    throw Error("ProxyThread: another ProxyThread is alive in this process; only one thread may call MPI "
                "(MPI_THREAD_SERIALIZED): destroy the first before creating the next");
  try {
    construct(comm, core);
  } catch (...) {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    a_proxy_is_alive.store(false);
    throw;
  }
}

void ProxyThread::construct(MPI_Comm comm, int core) {
  const auto check = [](int code, const char* call) {
    if (code != MPI_SUCCESS) throw Error(std::string("ProxyThread: ") + call + " failed: " + mpi_error_string(code));
  };
  // Settings given through the API, held to the PROXY_* variables' bounds: a wait timeout of
  // milliseconds::max() overflowed the clock (every wait timed out at once), a queue of 2^62 slots crashed.
  check_bounds(config_, "ProxyThread");
  // Before any other MPI call: outside MPI_Init .. MPI_Finalize, MPI ends the process naming no cause.
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
    throw Error("ProxyThread: MPI has been finalised (the Environment is gone): construct and destroy the "
                "ProxyThread while the proxy::Environment lives");
  if (!initialized) throw Error("ProxyThread: MPI is not initialised: construct a proxy::Environment first");
  if (comm == MPI_COMM_NULL) throw Error("ProxyThread: the communicator is MPI_COMM_NULL");
  int provided = MPI_THREAD_SINGLE;
  check(MPI_Query_thread(&provided), "MPI_Query_thread");
  if (provided < MPI_THREAD_SERIALIZED)
    throw Error("ProxyThread needs MPI initialised with at least MPI_THREAD_SERIALIZED (use proxy::Environment)");
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");  // CommErrors, not aborts
  install_world_error_handler();  // (a program without an Environment: it has been installed otherwise)
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  int* tag_ub = nullptr;
  int found = 0;
  check(MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tag_ub, &found), "MPI_Comm_get_attr");
  if (found && tag_ub != nullptr) tag_upper_bound_ = *tag_ub;

  impl_ = std::make_unique<Impl>(config_.queue_capacity);
  impl_->id = ++last_proxy_id;
  impl_->channel.rank = rank_;
  impl_->plans = std::make_shared<PlanRegistry>([this](std::shared_ptr<PlanOperation> plan) {
    // The last handle may go inside the loop itself (held by a closure): release directly, since waiting
    // there for queue space would wait for itself.
    if (ProgressLoop::running_on_this_thread()) {
      plan->release_when_idle();
      impl_->loop->keep_while_active(std::move(plan));
      return;
    }
    ProxyChannel& channel = impl_->channel;
    Command command;
    command.kind = Command::Kind::release;
    command.plan = plan.get();
    command.operation = std::move(plan);
    impl_->driver->command_queued();
    while (!channel.queue.try_push(std::move(command))) std::this_thread::yield();  // the proxy drains
    channel.wakeup.notify_all();
  });
  impl_->loop = std::make_unique<ProgressLoop>(impl_->channel, *impl_->plans, config_);
  impl_->driver = make_progress_driver(config_.progress, impl_->channel, *impl_->loop, config_);
  progress_ = impl_->driver->strategy();
  pending_ = &impl_->driver->demand();

  const int target_core = !impl_->driver->binds_proxy_thread() ? -1 : core >= 0 ? core : config_.proxy_core;
  std::shared_ptr<Topology> topology;
  if (config_.bind && target_core >= 0) topology = std::make_shared<Topology>();
  impl_->thread = std::thread([this, topology, target_core] {
    if (topology && topology->bind_this_thread(target_core)) impl_->channel.bound_core.store(target_core);
    impl_->loop->run(*impl_->driver);
  });
}

namespace {
// A waiter spinning on the core of a proxy thread that does the work only delays it, so a proxy with a
// core of its own that the placement shares with compute work (dedicated or polling, chosen explicitly)
// has its waiters yield at once (spin_count 0, unless PROXY_SPIN_COUNT says otherwise). A cooperative
// waiter runs the passes itself, as MPI_Waitall does: it keeps the default spins (8-byte plan round trip,
// 2 ranks on 2 cores: a yield per pass made it 1.6-2.5x direct).
Config for_placement(Config defaults, const Placement& placement) {
  if (placement.shared_proxy && needs_a_core(choose_progress(Config::from_env(defaults).progress, placement)))
    defaults.spin_count = 0;
  Config config = Config::from_env(defaults);
  config.progress = choose_progress(config.progress, placement);
  return config;
}
}  // namespace

ProxyThread::ProxyThread(MPI_Comm comm, const Placement& placement, Config defaults)
    : ProxyThread(comm, for_placement(std::move(defaults), placement), placement.proxy_core) {}

namespace {
// Why the destructor may not run on this thread, or "" when it may. It joins the proxy thread and frees the
// communicator, and nothing may use the ProxyThread while or after it runs: so it runs on the thread that made it
// (the one that owns MPI, DESIGN.md "Plan lifecycle"), when no other thread can still be using it. On the proxy
// thread itself it would wait for itself; on another thread, or inside an OpenMP parallel region begun after the
// ProxyThread was made, the threads that use it may still be running (undefined behaviour, not a refusal).
std::string wrong_thread_to_destroy(std::thread::id proxy_thread, std::thread::id creator, int creator_level) {
  if (ProgressLoop::running_on_this_thread() || std::this_thread::get_id() == proxy_thread)
    return "from code the proxy runs (a then() callback, a closure or an operation): it would wait for itself: "
           "destroy it on the thread that created it";
  if (std::this_thread::get_id() != creator)
    return "on a thread other than the one that created it: destroy it where it was created (the thread that owns "
           "MPI), once no other thread uses it";
  if (omp_get_active_level() > creator_level)
    return "inside an OpenMP parallel region begun after it was created (thread " +
           std::to_string(omp_get_thread_num()) + " of " + std::to_string(omp_get_num_threads()) +
           "): the region's other threads may still use it: destroy it after the region";
  return {};
}
}  // namespace

ProxyThread::~ProxyThread() {
  if (impl_ && impl_->thread.joinable()) {
    // Refused with one line and the end of the job: a destructor cannot throw, and going on would be a use after free.
    if (const std::string wrong =
            wrong_thread_to_destroy(impl_->thread.get_id(), impl_->creator, impl_->creator_parallel_level);
        !wrong.empty())
      Environment::abort("proxy: error: rank " + std::to_string(rank_) + ": the ProxyThread was destroyed " + wrong, 1);
    ProxyChannel& channel = impl_->channel;
    Command stop;
    stop.kind = Command::Kind::stop;
    // Unwinding (an exception thrown in the proxy's scope and caught outside it): nobody will wait on what is
    // outstanding, so the proxy cancels it at once rather than drain it for the wait timeout before the
    // program can report. Set before the stop is pushed: the push publishes it to the loop.
    if (std::uncaught_exceptions() > uncaught_at_construction_)
      channel.stop_at_once.store(true, std::memory_order_release);
    impl_->driver->command_queued();
    while (!channel.queue.try_push(std::move(stop))) std::this_thread::yield();  // the proxy always drains
    channel.stop_requested.store(true, std::memory_order_release);
    impl_->driver->stop_queued();
    // The proxy drains for at most the wait timeout, then cancels or ends the job; as much again covers a
    // closure it is finishing. Longer means it is stuck inside a blocking MPI call: waiting for it would
    // keep the process alive forever, so report and end the job.
    const auto limit = 2 * config_.wait_timeout;
    if (!channel.completions.wait([&] { return channel.finished.load(std::memory_order_acquire); },
                                  WaitPolicy::block, Notifier::Clock::now() + limit, 0)) {
      // Read while the loop is held inside it (ProxyChannel::inside_label): it may return at this moment.
      std::string stuck = channel.inside_label(channel.inside.load(std::memory_order_acquire));
      if (stuck.empty()) stuck = "an MPI call";
      Environment::abort("proxy: error: rank " + std::to_string(rank_) + ": the proxy thread did not finish within " +
                             seconds_text(limit) + " at shutdown (2 x PROXY_WAIT_TIMEOUT), blocked in " + stuck +
                             " (perhaps waiting for a peer that is gone): ending the job",
                         1);
    }
    impl_->thread.join();
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && impl_) impl_->communicators.free_all();  // after the join: the plans' requests are freed
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  a_proxy_is_alive.store(false);
}

int ProxyThread::bound_core() const noexcept { return impl_->channel.bound_core.load(std::memory_order_acquire); }

Plan ProxyThread::commit(const PlanSpec& spec) {
  std::exception_ptr invalid;  // this rank's refusal of the spec
  try {
    validate_plan(spec, size_, tag_upper_bound_);
  } catch (...) {
    if (spec.collectives().empty()) throw;
    invalid = std::current_exception();
  }
  std::shared_ptr<PlanOperation> op;
  std::exception_ptr refused;  // rethrown here as thrown, rather than wrapped as the closure's CommError
  AgreementProgress comparing;
  const auto commit_here = [&] {
    try {
      // These need MPI (datatypes, the communicators' sizes, the comparison between ranks), so on the proxy
      // thread. The comparison runs even where this rank refused the spec, so that the other ranks learn of it.
      try {
        if (!invalid) validate_transfer_datatypes(spec, comm_);
        if (!invalid) validate_collectives(spec, comm_);
      } catch (...) {
        invalid = std::current_exception();
      }
      if (!spec.collectives().empty()) agree_on_collectives(spec, invalid != nullptr, comparing);
      if (invalid) std::rethrow_exception(invalid);
      op = std::make_shared<PlanOperation>(spec, comm_, impl_->id, impl_->communicators, impl_->channel.helpers);
    } catch (...) {
      refused = std::current_exception();
    }
  };
  // call(commit_here), with a report of its own if it does not finish: a rank that never joins the comparison.
  // The report is the caller's (await_call) where the proxy thread runs the closure, the cooperative strategy's
  // watchdog's where the calling thread runs it itself (progress_cooperative.cpp).
  const std::function<std::string()> running = [&]() -> std::string {
    const int element = comparing.element.load(std::memory_order_acquire);
    if (element < 0) return {};
    return "commit of plan '" + spec.name() + "' did not finish within " + seconds_text(config_.wait_timeout) +
           " (PROXY_WAIT_TIMEOUT): it waits in MPI_Allreduce, comparing its collective elements with the other "
           "ranks of the communicator of its " + kind_name(spec.collectives()[static_cast<std::size_t>(element)].kind) +
           " element " + std::to_string(element) + " (" +
           detail::counted(comparing.ranks.load(std::memory_order_relaxed), "rank") +
           "), and one of them has not committed a plan with collective elements there (every rank commits the "
           "same such plans in the same order): ending the job";
  };
  ProxyChannel& channel = impl_->channel;
  auto state = std::make_shared<detail::CallState>();
  const Ticket ticket = submit(
      [&commit_here, &running, &channel, state](ClosureContext&) {
        if (!state->begin()) return;  // abandoned: the frame may be gone
        detail::CallState::Finish finish{*state};
        {
          const std::lock_guard<std::mutex> lock(channel.call_report_mutex);
          channel.call_report = &running;
        }
        commit_here();
        const std::lock_guard<std::mutex> lock(channel.call_report_mutex);
        channel.call_report = nullptr;
      },
      "commit of plan " + spec.name());
  await_call(ticket, *state, running);
  if (refused) std::rethrow_exception(refused);
  impl_->plans->add(op);
  return Plan(std::make_shared<Plan::Owner>(std::move(op), impl_->plans));
}

Ticket ProxyThread::start(const Plan& plan) {
  if (!plan) throw Error("start: empty Plan handle (commit a PlanSpec first)");
  const std::shared_ptr<PlanOperation>& owner = plan.owner_->operation;
  PlanOperation& op = *owner;
  if (op.proxy_id() != impl_->id)
    throw Error("start: plan '" + op.name() +
                "' was committed by another ProxyThread; commit its PlanSpec on this one");
  const std::uint64_t epoch = begin_epoch(op);
  Command command;
  command.plan = &op;
  command.epoch = epoch;
  // Begun on this thread, the plan needs no keep-alive of the proxy's: its handle outlives the pass
  // (progress_loop.hpp). The ticket's reference is taken after the start has gone out: a locked add is a
  // full fence on x86, which waits for the start's stores; after them it overlaps the message's flight.
  if (!impl_->driver->start_here(command)) {
    command.operation = owner;
    queue_start(command);
  }
  return Ticket{owner, epoch};
}

Ticket ProxyThread::post(std::shared_ptr<Operation> operation) {
  if (!operation) throw Error("post: null operation");
  return start_operation(std::move(operation));
}

Ticket ProxyThread::submit(std::function<void(ClosureContext&)> fn, std::string name) {
  if (!fn) throw Error("submit: empty closure");
  return start_operation(std::make_shared<ClosureOperation>(std::move(fn), comm_, std::move(name)));
}

Ticket ProxyThread::then(const Ticket& ticket, std::function<void()> fn) {
  if (!ticket) throw Error("then: empty ticket");
  if (!fn) throw Error("then: empty function for " + ticket.operation->label() + " epoch " + std::to_string(ticket.epoch));
  return start_operation(std::make_shared<CompletionCallback>(ticket, std::move(fn), config_.wait_timeout, rank_));
}

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

void ProxyThread::await_call(const Ticket& ticket, detail::CallState& state,
                             const std::function<std::string()>& running) const {
  try {
    wait(ticket);
    return;
  } catch (const TimeoutError&) {
    if (state.abandon())
      throw TimeoutError(ticket.operation->label(), -1, ticket.epoch,
                         "wait timed out after " + seconds_text(config_.wait_timeout) + " on rank " +
                             std::to_string(rank_) + " before the proxy began it (the proxy was busy), so it was "
                             "abandoned and will not run");
    if (!state.finished()) {
      // fn runs on the proxy and may use the caller's frame: unwinding would free it under fn's feet.
      if (const std::string report = running ? running() : std::string(); !report.empty())
        Environment::abort("proxy: error: rank " + std::to_string(rank_) + ": " + report, 1);
      Environment::abort("proxy: error: rank " + std::to_string(rank_) + ": " +
                             still_running_report(ticket.operation->label(), config_.wait_timeout),
                         1);
    }
  }
  wait(ticket);  // fn returned just as the wait gave up; its ticket completes at once
}

Ticket ProxyThread::start_operation(std::shared_ptr<Operation> op) {
  const std::uint64_t epoch = begin_epoch(*op);
  Command command;
  command.epoch = epoch;
  command.operation = op;  // the proxy's keep-alive, moved into its active-set entry
  if (!impl_->driver->start_here(command)) queue_start(command);
  return Ticket{std::move(op), epoch};
}

// Inlined into start(): a call's prologue is about 1 % of an 8-byte round trip (progress_loop.hpp).
[[gnu::always_inline]] inline std::uint64_t ProxyThread::begin_epoch(Operation& op) {
  const std::uint64_t previous = op.started_.load(std::memory_order_relaxed);
  const std::uint64_t completed = op.completed_epoch();
  if (completed < previous || op.error_) [[unlikely]]
    refuse_start(op, previous, completed);
  op.started_.store(previous + 1, std::memory_order_release);
  return previous + 1;
}

void ProxyThread::queue_start(Command& command) {
  ProxyChannel& channel = impl_->channel;
  ProgressDriver& driver = *impl_->driver;
  driver.command_queued();
  if (!channel.queue.try_push(std::move(command))) {
    // Back-pressure: wait for the proxy to make room; never drop.
    const auto deadline = Notifier::Clock::now() + config_.wait_timeout;
    channel.wakeup.notify_all();
    const auto pushed = [&] {
      if (channel.queue.try_push(std::move(command))) return true;
      driver.make_room();
      return false;
    };
    if (!channel.space.wait(pushed, config_.wait_policy, deadline, config_.spin_count)) {
      driver.command_withdrawn();
      Operation& op = command.plan != nullptr ? *command.plan : *command.operation;
      op.started_.store(command.epoch - 1, std::memory_order_release);
      throw TimeoutError(op.label(), -1, command.epoch,
                         "the request queue stayed full for " + seconds_text(config_.wait_timeout));
    }
  }
  driver.start_queued();
}

bool ProxyThread::progress_step() const { return impl_->driver->step(); }

namespace {
// A plan's ticket names an epoch start() returned; one past the last start (a copied and altered ticket, a C
// proxy_ticket written by hand) would only time out. Only plans: other operations' tickets may name an epoch
// another thread is about to start (a node collective's slot, whose waiters build their tickets themselves).
bool names_an_unstarted_plan_epoch(const Ticket& ticket) {
  return ticket.epoch > ticket.operation->started_epoch() &&
         dynamic_cast<const PlanOperation*>(ticket.operation.get()) != nullptr;
}
// Epoch 0 (a hand-written ticket, {plan, 0}), which no start() returns: it would pass as completed.
bool names_epoch_zero_of_a_plan(const Ticket& ticket) {
  return ticket.epoch == 0 && dynamic_cast<const PlanOperation*>(ticket.operation.get()) != nullptr;
}

[[noreturn, gnu::noinline, gnu::cold]] void refuse_unstarted_epoch(const char* call, const Ticket& ticket) {
  const std::string which = ticket.epoch == 0 ? ": start() numbers epochs from 1"
                                              : ": it was started up to epoch " +
                                                    std::to_string(ticket.operation->started_epoch()) + " only";
  throw Error(std::string(call) + " on " + ticket.operation->label() + " epoch " + std::to_string(ticket.epoch) +
              which + ": use the ticket start() returned");
}
}  // namespace

bool ProxyThread::test(const Ticket& ticket) const {
  if (!ticket) throw Error("test: empty ticket");
  if (names_epoch_zero_of_a_plan(ticket)) [[unlikely]]
    refuse_unstarted_epoch("test", ticket);
  if (ticket.operation->completed_epoch() < ticket.epoch) {
    if (names_an_unstarted_plan_epoch(ticket)) refuse_unstarted_epoch("test", ticket);
    impl_->driver->step_for(*ticket.operation);  // cooperative: testing drives progress, as MPI_Test does
    if (ticket.operation->completed_epoch() < ticket.epoch) return false;
  }
  if (auto error = ticket.operation->error()) std::rethrow_exception(error);
  return true;
}

void ProxyThread::wait(const Ticket& ticket) const { wait(ticket, config_.wait_timeout); }

void ProxyThread::wait(const Ticket& ticket, std::chrono::milliseconds timeout) const {
  if (!ticket) throw Error("wait: empty ticket");
  const Operation& op = *ticket.operation;
  if (timeout.count() < 0) [[unlikely]]
    throw Error("wait on " + op.label() + " epoch " + std::to_string(ticket.epoch) + ": the timeout, " +
                std::to_string(timeout.count()) + " ms, is negative");
  // A longer wait waits 1e6 s (PROXY_WAIT_TIMEOUT's bound): milliseconds::max(), "forever", overflowed the
  // clock's deadline and timed out at once.
  timeout = std::min(timeout, std::chrono::milliseconds(static_cast<long long>(kMaxWaitTimeoutSeconds * 1000)));
  // Refused whether or not the epoch has completed: a wait that would wait for the proxy itself, or on an epoch
  // no start() returned, is refused every time, not only when the timing leaves it pending.
  if (ProgressLoop::running_on_this_thread()) [[unlikely]]
    throw Error("wait on " + op.label() + " epoch " + std::to_string(ticket.epoch) +
                " from code the proxy runs (a then() callback, a closure or an operation): it would wait for "
                "itself; start work there and wait on its ticket outside");
  if (names_epoch_zero_of_a_plan(ticket)) [[unlikely]]
    refuse_unstarted_epoch("wait", ticket);
  auto done = [&] { return op.completed_epoch() >= ticket.epoch; };
  if (done()) {  // the common case once the data are needed: no clock read
    if (auto error = op.error()) std::rethrow_exception(error);
    return;
  }
  if (names_an_unstarted_plan_epoch(ticket)) refuse_unstarted_epoch("wait", ticket);
  if (!impl_->driver->wait(op, ticket.epoch, timeout)) {
    std::string outstanding = op.describe_outstanding();
    if (outstanding.empty()) outstanding = "(nothing reported)";
    throw TimeoutError(op.label(), op.outstanding_peer(), ticket.epoch,
                       "wait timed out after " + seconds_text(timeout) + " on rank " + std::to_string(rank_) +
                           "; outstanding: " + outstanding);
  }
  if (auto error = op.error()) std::rethrow_exception(error);
}

ProxyStatistics ProxyThread::statistics() const {
  const ProxyChannel& channel = impl_->channel;
  ProxyStatistics stats;
  stats.uptime_seconds = now_seconds() - channel.started_at;
  stats.timed = config_.timings;
  stats.busy_fraction =
      stats.uptime_seconds > 0 ? channel.tick_rate.seconds(channel.busy_ticks.load()) / stats.uptime_seconds : 0.0;
  stats.queue_high_water = channel.queue_high_water.load();
  stats.commands = channel.commands.load();
  stats.strips = channel.helpers.strips();
  stats.strips_by_waiters = channel.helpers.strips_by_waiters();
  for (const auto& plan : impl_->plans->snapshot()) {
    OperationStatistics p;
    p.name = plan->name();
    p.starts = plan->completed_epoch();
    p.bytes = p.starts * plan->bytes_per_epoch();
    p.total_seconds = channel.tick_rate.seconds(plan->timings().total_ticks.load(std::memory_order_relaxed));
    p.max_seconds = channel.tick_rate.seconds(plan->timings().max_ticks.load(std::memory_order_relaxed));
    stats.plans.push_back(std::move(p));
  }
  return stats;
}

}  // namespace proxy
