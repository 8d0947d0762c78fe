// proxy_thread_*, proxy_commit, proxy_start, proxy_ready, proxy_wait, proxy_test, proxy_progress_point,
// proxy_call, proxy_then: proxy::ProxyThread and proxy::Plan behind C handles. A proxy_ticket is (plan, epoch); the
// C++ Ticket is rebuilt from the plan's operation (the same for every epoch of a plan).
#include <chrono>
#include <memory>

#include "c_boundary.hpp"

using proxy::c::clear;
using proxy::c::guarded;
using proxy::c::require;

namespace {

proxy::ProxyThread& thread_of(proxy_thread* thread, const char* function) {
  return *require(thread, function, "thread").thread;
}
const proxy::ProxyThread& thread_of(const proxy_thread* thread, const char* function) {
  return *require(thread, function, "thread").thread;
}

proxy::Ticket ticket_of(const proxy_ticket& ticket, const char* function) {
  const proxy_plan& plan = require(ticket.plan, function, "ticket.plan");
  if (!plan.operation)
    throw proxy::c::ArgumentError(std::string(function) + ": plan '" + plan.plan.name() +
                                  "' has not been started: the ticket did not come from proxy_start");
  return proxy::Ticket{plan.operation, ticket.epoch};
}

}  // namespace

extern "C" {

proxy_status proxy_thread_create(MPI_Comm comm, proxy_thread** thread) {
  return guarded([&] {
    require(thread, "proxy_thread_create", "thread");
    *thread = nullptr;
    auto handle = std::make_unique<proxy_thread>();
    handle->thread = std::make_unique<proxy::ProxyThread>(comm);
    *thread = handle.release();
  });
}

proxy_status proxy_thread_create_placed(MPI_Comm comm, const proxy_placement* placement, proxy_thread** thread) {
  return guarded([&] {
    require(thread, "proxy_thread_create_placed", "thread");
    *thread = nullptr;
    const proxy::Placement& where = require(placement, "proxy_thread_create_placed", "placement").placement;
    auto handle = std::make_unique<proxy_thread>();
    handle->thread = std::make_unique<proxy::ProxyThread>(comm, where);
    *thread = handle.release();
  });
}

proxy_status proxy_thread_free(proxy_thread* thread) {
  return guarded([&] { delete thread; });
}

proxy_status proxy_thread_rank(const proxy_thread* thread, int* rank) {
  clear(rank, MPI_UNDEFINED);
  return guarded([&] { require(rank, "proxy_thread_rank", "rank") = thread_of(thread, "proxy_thread_rank").rank(); });
}

proxy_status proxy_thread_size(const proxy_thread* thread, int* size) {
  clear(size, 0);
  return guarded([&] { require(size, "proxy_thread_size", "size") = thread_of(thread, "proxy_thread_size").size(); });
}

proxy_status proxy_thread_comm(const proxy_thread* thread, MPI_Comm* comm) {
  clear(comm, MPI_COMM_NULL);
  return guarded([&] { require(comm, "proxy_thread_comm", "comm") = thread_of(thread, "proxy_thread_comm").comm(); });
}

proxy_status proxy_thread_progress_strategy(const proxy_thread* thread, const char** name) {
  clear(name, "");
  return guarded([&] {
    // to_string returns a view of a string literal: NUL-terminated, static.
    require(name, "proxy_thread_progress_strategy", "name") =
        proxy::to_string(thread_of(thread, "proxy_thread_progress_strategy").progress_strategy()).data();
  });
}

proxy_status proxy_commit(proxy_thread* thread, const proxy_plan_spec* spec, proxy_plan** plan) {
  return guarded([&] {
    require(plan, "proxy_commit", "plan");
    *plan = nullptr;
    proxy::ProxyThread& proxy = thread_of(thread, "proxy_commit");
    const proxy::PlanSpec& what = require(spec, "proxy_commit", "spec").spec;
    auto handle = std::make_unique<proxy_plan>();
    handle->plan = proxy.commit(what);
    *plan = handle.release();
  });
}

proxy_status proxy_plan_free(proxy_plan* plan) {
  return guarded([&] { delete plan; });
}

proxy_status proxy_plan_name(const proxy_plan* plan, const char** name) {
  clear(name, "");
  return guarded([&] { require(name, "proxy_plan_name", "name") = require(plan, "proxy_plan_name", "plan").plan.name().c_str(); });
}

proxy_status proxy_start(proxy_thread* thread, proxy_plan* plan, proxy_ticket* ticket) {
  clear(ticket, proxy_ticket{nullptr, 0});  // what proxy_wait refuses: "proxy_wait: ticket.plan is NULL"
  return guarded([&] {
    proxy::ProxyThread& proxy = thread_of(thread, "proxy_start");
    proxy_plan& started = require(plan, "proxy_start", "plan");
    require(ticket, "proxy_start", "ticket");
    const proxy::Ticket t = proxy.start(started.plan);
    if (!started.operation) started.operation = t.operation;
    *ticket = proxy_ticket{plan, t.epoch};
  });
}

proxy_status proxy_ready(proxy_thread* thread, proxy_ticket ticket, int part) {
  return guarded([&] { thread_of(thread, "proxy_ready").ready(ticket_of(ticket, "proxy_ready"), part); });
}

proxy_status proxy_wait(proxy_thread* thread, proxy_ticket ticket, int64_t timeout_ms) {
  return guarded([&] {
    const proxy::ProxyThread& proxy = thread_of(thread, "proxy_wait");
    const proxy::Ticket t = ticket_of(ticket, "proxy_wait");
    if (timeout_ms == PROXY_WAIT_DEFAULT_TIMEOUT)
      proxy.wait(t);
    else if (timeout_ms < 0)
      throw proxy::c::ArgumentError(std::string("proxy_wait: timeout_ms is ") + std::to_string(timeout_ms) +
                                    " (PROXY_WAIT_DEFAULT_TIMEOUT, -1, or a count of milliseconds >= 0)");
    else
      proxy.wait(t, std::chrono::milliseconds(timeout_ms));
  });
}

proxy_status proxy_test(proxy_thread* thread, proxy_ticket ticket, int* done) {
  return guarded([&] {
    require(done, "proxy_test", "done");
    *done = 0;
    *done = thread_of(thread, "proxy_test").test(ticket_of(ticket, "proxy_test")) ? 1 : 0;
  });
}

proxy_status proxy_progress_point(proxy_thread* thread) {
  return guarded([&] { thread_of(thread, "proxy_progress_point").progress_point(); });
}

proxy_status proxy_call(proxy_thread* thread, void (*function)(void* context), void* context, const char* name) {
  return guarded([&] {
    proxy::ProxyThread& proxy = thread_of(thread, "proxy_call");
    require(function, "proxy_call", "function");
    proxy.call([function, context] { function(context); }, name != nullptr ? name : "call");
  });
}

proxy_status proxy_then(proxy_thread* thread, proxy_ticket ticket, void (*function)(void* context), void* context,
                        proxy_completion** completion) {
  return guarded([&] {
    if (completion != nullptr) *completion = nullptr;
    proxy::ProxyThread& proxy = thread_of(thread, "proxy_then");
    const proxy::Ticket target = ticket_of(ticket, "proxy_then");
    require(function, "proxy_then", "function");
    // Allocated before the callback is handed over, so that a bad_alloc cannot leave it running unowned.
    auto handle = completion != nullptr ? std::make_unique<proxy_completion>() : nullptr;
    const proxy::Ticket callback = proxy.then(target, [function, context] { function(context); });
    if (handle) {
      handle->ticket = callback;
      *completion = handle.release();
    }
  });
}

proxy_status proxy_completion_wait(proxy_thread* thread, const proxy_completion* completion, int64_t timeout_ms) {
  return guarded([&] {
    const proxy::ProxyThread& proxy = thread_of(thread, "proxy_completion_wait");
    const proxy::Ticket& t = require(completion, "proxy_completion_wait", "completion").ticket;
    if (timeout_ms == PROXY_WAIT_DEFAULT_TIMEOUT)
      proxy.wait(t);
    else if (timeout_ms < 0)
      throw proxy::c::ArgumentError(std::string("proxy_completion_wait: timeout_ms is ") + std::to_string(timeout_ms) +
                                    " (PROXY_WAIT_DEFAULT_TIMEOUT, -1, or a count of milliseconds >= 0)");
    else
      proxy.wait(t, std::chrono::milliseconds(timeout_ms));
  });
}

proxy_status proxy_completion_test(proxy_thread* thread, const proxy_completion* completion, int* done) {
  return guarded([&] {
    require(done, "proxy_completion_test", "done");
    *done = 0;
    const proxy::Ticket& t = require(completion, "proxy_completion_test", "completion").ticket;
    *done = thread_of(thread, "proxy_completion_test").test(t) ? 1 : 0;
  });
}

proxy_status proxy_completion_free(proxy_completion* completion) {
  return guarded([&] { delete completion; });
}

}  // extern "C"
