// CompletionCallback (completion_callback.hpp).
#include "completion_callback.hpp"

#include <cstdio>
#include <exception>

#include "proxy/detail/counted.hpp"
#include "proxy/error.hpp"

namespace proxy {

namespace {

constexpr unsigned kPassesPerClockRead = 64;

}  // namespace

CompletionCallback::CompletionCallback(Ticket target, std::function<void()> fn, std::chrono::milliseconds timeout,
                                       int rank)
    : Operation("after " + target.operation->name() + " epoch " + std::to_string(target.epoch)),
      target_(std::move(target)), fn_(std::move(fn)), timeout_(timeout), rank_(rank) {}

void CompletionCallback::start(std::uint64_t) {
  deadline_ = std::chrono::steady_clock::now() + timeout_;
  passes_ = 0;
}

bool CompletionCallback::progress() {
  if (target_.operation->completed_epoch() < target_.epoch) {
    if (++passes_ % kPassesPerClockRead != 0 || std::chrono::steady_clock::now() < deadline_) return false;
    // The target's wait expired: run fn all the same (a detached OpenMP task must be fulfilled, or its graph
    // waits for ever), then fail this ticket with the target's diagnostic.
    std::string outstanding = target_.operation->describe_outstanding();
    if (outstanding.empty()) outstanding = "(nothing reported)";
    run_fn();
    throw TimeoutError(target_.operation->label(), target_.operation->outstanding_peer(), target_.epoch,
                       "wait timed out after " + detail::seconds_text(timeout_) + " on rank " + std::to_string(rank_) +
                           " (completion callback); outstanding: " + outstanding);
  }
  run_fn();
  return true;
}

void CompletionCallback::run_fn() {
  try {
    fn_();
  } catch (const std::exception& e) {
    throw CommError(target_.operation->label(), -1, target_.epoch, std::string("completion callback threw: ") + e.what());
  } catch (...) {
    throw CommError(target_.operation->label(), -1, target_.epoch, "completion callback threw a non-standard exception");
  }
}

std::string CompletionCallback::describe_outstanding() const {
  return "waiting for " + target_.operation->label() + " epoch " + std::to_string(target_.epoch);
}

}  // namespace proxy
