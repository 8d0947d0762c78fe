// ProxyThread: the progress loop (drain the queue, start work, progress the active set, publish
// completions, idle per the wait policy) and the compute-side start/test/wait.
#include "proxy/proxy_thread.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include "plan_operation.hpp"
#include "proxy/error.hpp"
#include "proxy/detail/queue.hpp"
#include "proxy/detail/timer.hpp"
#include "proxy/topology.hpp"
#include "proxy/detail/notifier.hpp"

namespace proxy {

namespace {

struct Command {
  enum class Kind : std::uint8_t { start, stop };
  Kind kind = Kind::start;
  Operation* operation = nullptr;  // kept alive by Operation::keep_alive_ until the proxy takes it
  std::uint64_t epoch = 0;
};

std::string seconds_text(std::chrono::milliseconds ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(ms.count()) / 1000.0);
  return text;
}

}  // namespace

struct ProxyThread::Impl {
  explicit Impl(std::size_t capacity) : queue(capacity) {}

  MpscQueue<Command> queue;
  Notifier wakeup;       // producers -> idle proxy
  Notifier completions;  // proxy -> waiting compute threads
  Notifier space;        // proxy -> producers held back by a full queue
  std::atomic<bool> stop_requested{false};
  std::atomic<int> bound_core{-1};
  std::thread thread;

  // Proxy thread only.
  std::vector<std::shared_ptr<Operation>> active;
  bool stopping = false;
  Notifier::Clock::time_point drain_deadline;

  // Committed plans, for statistics and for release at shutdown.
  mutable std::mutex plans_mutex;
  std::vector<std::shared_ptr<Operation>> plans;

  // Statistics written by the proxy, read by statistics().
  double started_at = now_seconds();
  std::atomic<double> busy_seconds{0.0};
  std::atomic<std::uint64_t> commands{0};
  std::atomic<std::size_t> queue_high_water{0};
};

ProxyThread::ProxyThread(MPI_Comm comm, Config config, int core) : config_(std::move(config)) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_SERIALIZED)
    throw Error("ProxyThread needs MPI initialised with at least MPI_THREAD_SERIALIZED (use proxy::Environment)");
  if (MPI_Comm_dup(comm, &comm_) != MPI_SUCCESS) throw Error("ProxyThread: MPI_Comm_dup failed");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);  // failures become CommErrors, not aborts
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  int* tag_ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tag_ub, &found);
  if (found && tag_ub != nullptr) tag_upper_bound_ = *tag_ub;

  impl_ = std::make_unique<Impl>(config_.queue_capacity);
  const int target_core = core >= 0 ? core : config_.proxy_core;
  std::shared_ptr<Topology> topology;
  if (config_.bind && target_core >= 0) topology = std::make_shared<Topology>();

  impl_->thread = std::thread([this, topology, target_core] {
    if (topology && topology->bind_this_thread(target_core)) impl_->bound_core.store(target_core);
    Impl& s = *impl_;
    Command command;
    std::uint64_t idle_rounds = 0;
    double busy_since = -1.0;

    auto complete = [&](Operation& op) {
      const double elapsed = now_seconds() - op.start_time_;
      op.stat_epochs_.store(op.stat_epochs_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      op.stat_total_seconds_.store(op.stat_total_seconds_.load(std::memory_order_relaxed) + elapsed,
                                   std::memory_order_relaxed);
      if (elapsed > op.stat_max_seconds_.load(std::memory_order_relaxed))
        op.stat_max_seconds_.store(elapsed, std::memory_order_relaxed);
      op.completed_.store(op.running_epoch_, std::memory_order_release);
      s.completions.notify_all();
    };
    auto fail = [&](Operation& op, std::exception_ptr error) {
      if (!op.error_) {
        try {
          std::rethrow_exception(error);
        } catch (const CommError&) {
          op.error_ = error;
        } catch (const std::exception& e) {
          op.error_ = std::make_exception_ptr(CommError(op.label(), -1, op.running_epoch_, e.what()));
        } catch (...) {
          op.error_ = std::make_exception_ptr(CommError(op.label(), -1, op.running_epoch_, "unknown exception"));
        }
      }
      complete(op);
    };

    for (;;) {
      // 1. Drain the queue: start what was asked for.
      std::size_t drained = 0;
      const std::size_t waiting = s.queue.size_approx();
      if (waiting > s.queue_high_water.load(std::memory_order_relaxed))
        s.queue_high_water.store(waiting, std::memory_order_relaxed);
      while (s.queue.try_pop(command)) {
        ++drained;
        if (command.kind == Command::Kind::stop) {
          s.stopping = true;
          s.drain_deadline = Notifier::Clock::now() + config_.wait_timeout;
          continue;
        }
        Operation& op = *command.operation;
        std::shared_ptr<Operation> keep = std::move(op.keep_alive_);
        op.running_epoch_ = command.epoch;
        op.start_time_ = now_seconds();
        try {
          op.start(command.epoch);
          s.active.push_back(std::move(keep));
        } catch (...) {
          fail(op, std::current_exception());
        }
      }
      if (drained > 0) {
        s.commands.fetch_add(drained, std::memory_order_relaxed);
        s.space.notify_all();
      }

      // 2. Progress the active set; completed operations leave it (swap with the last).
      for (std::size_t i = 0; i < s.active.size();) {
        Operation& op = *s.active[i];
        bool done = false;
        try {
          done = op.progress();
          if (done) complete(op);
        } catch (...) {
          fail(op, std::current_exception());
          done = true;
        }
        if (done) {
          s.active[i] = std::move(s.active.back());
          s.active.pop_back();
        } else {
          ++i;
        }
      }

      // Busy time: from the first command or active operation until the loop is idle again.
      const bool busy = drained > 0 || !s.active.empty();
      if (busy && busy_since < 0) busy_since = now_seconds();
      if (!busy && busy_since >= 0) {
        s.busy_seconds.store(s.busy_seconds.load(std::memory_order_relaxed) + now_seconds() - busy_since,
                             std::memory_order_relaxed);
        busy_since = -1.0;
      }

      // 3. Shutdown: drained, or out of patience (cancel what is left and tell its waiters).
      if (s.stopping) {
        if (s.active.empty() && s.queue.size_approx() == 0) break;
        if (Notifier::Clock::now() >= s.drain_deadline) {
          for (auto& op : s.active) {
            op->cancel();
            fail(*op, std::make_exception_ptr(CommError(op->label(), op->outstanding_peer(), op->running_epoch_,
                                                        "cancelled at proxy shutdown; outstanding: " +
                                                            op->describe_outstanding())));
          }
          s.active.clear();
          break;
        }
      }

      // 4. Idle per the wait policy. With work in flight MPI needs polling, so even `block` only yields.
      if (drained > 0) {
        idle_rounds = 0;
        continue;
      }
      ++idle_rounds;
      if (!s.active.empty()) {
        // Yields before `block` starts sleeping between polls: enough to cover a typical exchange.
        constexpr std::uint64_t kYieldsBeforeSleep = 2000;
        const auto spins = static_cast<std::uint64_t>(config_.spin_count);
        if (config_.wait_policy == WaitPolicy::spin || idle_rounds < spins) {
          cpu_relax();
        } else if (config_.wait_policy == WaitPolicy::block && idle_rounds > spins + kYieldsBeforeSleep) {
          std::this_thread::sleep_for(std::chrono::microseconds(20));
        } else {
          std::this_thread::yield();
        }
      } else {
        s.wakeup.wait([&] { return s.queue.size_approx() > 0 || s.stop_requested.load(std::memory_order_acquire); },
                      config_.wait_policy, Notifier::Clock::now() + std::chrono::milliseconds(50), config_.spin_count);
      }
    }

    if (busy_since >= 0)
      s.busy_seconds.store(s.busy_seconds.load(std::memory_order_relaxed) + now_seconds() - busy_since,
                           std::memory_order_relaxed);
    // Free the persistent requests here: only this thread may call MPI until the join.
    std::lock_guard<std::mutex> lock(s.plans_mutex);
    for (auto& plan : s.plans) static_cast<PlanOperation&>(*plan).release();
  });
}

namespace {
Config for_placement(Config defaults, const Placement& placement) {
  if (placement.shared_proxy) defaults.spin_count = 0;
  return Config::from_env(defaults);
}
}  // namespace

ProxyThread::ProxyThread(MPI_Comm comm, const Placement& placement, Config defaults)
    : ProxyThread(comm, for_placement(std::move(defaults), placement), placement.proxy_core) {}

ProxyThread::~ProxyThread() {
  if (impl_ && impl_->thread.joinable()) {
    Command stop;
    stop.kind = Command::Kind::stop;
    while (!impl_->queue.try_push(stop)) std::this_thread::yield();  // the proxy always drains eventually
    impl_->stop_requested.store(true, std::memory_order_release);
    impl_->wakeup.notify_all();
    impl_->thread.join();
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

int ProxyThread::bound_core() const noexcept { return impl_->bound_core.load(std::memory_order_acquire); }

Plan ProxyThread::commit(const PlanSpec& spec) {
  validate_plan(spec, size_, tag_upper_bound_);
  std::shared_ptr<Operation> op;
  call([&] { op = std::make_shared<PlanOperation>(spec, comm_); });
  std::lock_guard<std::mutex> lock(impl_->plans_mutex);
  impl_->plans.push_back(op);
  return Plan(std::move(op));
}

Ticket ProxyThread::start(const Plan& plan) {
  if (!plan) throw Error("start: empty Plan handle (commit a PlanSpec first)");
  return enqueue_start(plan.operation());
}

Ticket ProxyThread::post(std::shared_ptr<Operation> operation) {
  if (!operation) throw Error("post: null operation");
  return enqueue_start(operation);
}

Ticket ProxyThread::submit(std::function<void(ClosureContext&)> fn) {
  if (!fn) throw Error("submit: empty closure");
  return enqueue_start(std::make_shared<ClosureOperation>(std::move(fn), comm_));
}

Ticket ProxyThread::enqueue_start(const std::shared_ptr<Operation>& op) {
  const std::uint64_t previous = op->started_.load(std::memory_order_relaxed);
  if (op->completed_epoch() < previous)
    throw Error(op->label() + " started again (epoch " + std::to_string(previous + 1) + ") before epoch " +
                std::to_string(previous) + " completed: wait on its ticket first");
  if (op->error_) std::rethrow_exception(op->error_);  // a failed plan stays failed
  const std::uint64_t epoch = previous + 1;
  op->started_.store(epoch, std::memory_order_release);
  op->keep_alive_ = op;

  Command command;
  command.operation = op.get();
  command.epoch = epoch;
  if (!impl_->queue.try_push(command)) {
    // Back-pressure: wait for the proxy to make room; never drop.
    const auto deadline = Notifier::Clock::now() + config_.wait_timeout;
    impl_->wakeup.notify_all();
    if (!impl_->space.wait([&] { return impl_->queue.try_push(command); }, config_.wait_policy, deadline,
                           config_.spin_count)) {
      op->keep_alive_.reset();
      op->started_.store(previous, std::memory_order_release);
      throw TimeoutError(op->label(), -1, epoch, "the request queue stayed full for " + seconds_text(config_.wait_timeout));
    }
  }
  impl_->wakeup.notify_all();
  return Ticket{op, epoch};
}

bool ProxyThread::test(const Ticket& ticket) const {
  if (!ticket) throw Error("test: empty ticket");
  if (ticket.operation->completed_epoch() < ticket.epoch) return false;
  if (auto error = ticket.operation->error()) std::rethrow_exception(error);
  return true;
}

void ProxyThread::wait(const Ticket& ticket) const { wait(ticket, config_.wait_timeout); }

void ProxyThread::wait(const Ticket& ticket, std::chrono::milliseconds timeout) const {
  if (!ticket) throw Error("wait: empty ticket");
  const Operation& op = *ticket.operation;
  auto done = [&] { return op.completed_epoch() >= ticket.epoch; };
  if (!done() && !impl_->completions.wait(done, config_.wait_policy, Notifier::Clock::now() + timeout,
                                          config_.spin_count)) {
    std::string outstanding = op.describe_outstanding();
    if (outstanding.empty()) outstanding = "(nothing reported)";
    throw TimeoutError(op.label(), op.outstanding_peer(), ticket.epoch,
                       "wait timed out after " + seconds_text(timeout) + " on rank " + std::to_string(rank_) +
                           "; outstanding: " + outstanding);
  }
  if (auto error = op.error()) std::rethrow_exception(error);
}

ProxyStatistics ProxyThread::statistics() const {
  ProxyStatistics stats;
  stats.uptime_seconds = now_seconds() - impl_->started_at;
  stats.busy_fraction = stats.uptime_seconds > 0 ? impl_->busy_seconds.load() / stats.uptime_seconds : 0.0;
  stats.queue_high_water = impl_->queue_high_water.load();
  stats.commands = impl_->commands.load();
  std::lock_guard<std::mutex> lock(impl_->plans_mutex);
  for (const auto& op : impl_->plans) {
    OperationStatistics p;
    p.name = op->name();
    p.starts = op->stat_epochs_.load(std::memory_order_relaxed);
    p.bytes = p.starts * op->bytes_per_epoch();
    p.total_seconds = op->stat_total_seconds_.load(std::memory_order_relaxed);
    p.max_seconds = op->stat_max_seconds_.load(std::memory_order_relaxed);
    stats.plans.push_back(std::move(p));
  }
  return stats;
}

}  // namespace proxy
