// CompletionCallback and ProxyThread::then (completion_callback.hpp).
#include "completion_callback.hpp"

#include <exception>

#include "proxy/error.hpp"
#include "proxy/proxy_thread.hpp"

namespace proxy {

CompletionCallback::CompletionCallback(Ticket target, std::function<void()> fn)
    : Operation("after " + target.operation->name() + " epoch " + std::to_string(target.epoch)),
      target_(std::move(target)), fn_(std::move(fn)) {}

bool CompletionCallback::progress() {
  if (target_.operation->completed_epoch() < target_.epoch) return false;
  try {
    fn_();
  } catch (const std::exception& e) {
    throw CommError(target_.operation->label(), -1, target_.epoch, std::string("completion callback threw: ") + e.what());
  } catch (...) {
    throw CommError(target_.operation->label(), -1, target_.epoch, "completion callback threw a non-standard exception");
  }
  return true;
}

std::string CompletionCallback::describe_outstanding() const {
  return "waiting for " + target_.operation->label() + " epoch " + std::to_string(target_.epoch);
}

Ticket ProxyThread::then(const Ticket& ticket, std::function<void()> fn) {
  if (!ticket) throw Error("then: empty ticket");
  if (!fn) throw Error("then: empty function for " + ticket.operation->label() + " epoch " + std::to_string(ticket.epoch));
  return enqueue_start(std::make_shared<CompletionCallback>(ticket, std::move(fn)), nullptr);
}

}  // namespace proxy
