// The thesis's Appendix A API on top of proxy::ProxyThread.
#include "proxy/appendix_a.hpp"

#include <cstdio>

#include "proxy/error.hpp"
#include "proxy/proxy_thread.hpp"

namespace proxy::appendix_a {

ProxyThread::ProxyThread() = default;
ProxyThread::~ProxyThread() = default;

int ProxyThread::init(int num_comp_threads, int (*commFn)(int iteration)) {
  if (num_comp_threads < 1 || commFn == nullptr) {
    std::fprintf(stderr, "proxy::appendix_a::init: need num_comp_threads >= 1 (got %d) and a commFn\n",
                 num_comp_threads);
    return 1;
  }
  try {
    proxy_ = std::make_unique<proxy::ProxyThread>(MPI_COMM_WORLD);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "proxy::appendix_a::init: %s\n", e.what());
    return 1;
  }
  comm_fn_ = commFn;
  num_threads_ = num_comp_threads;
  return 0;
}

int ProxyThread::startComm(int iteration) {
  if (!proxy_) {
    std::fprintf(stderr, "proxy::appendix_a::startComm(%d): init() was not called\n", iteration);
    return 1;
  }
  try {
    auto fn = comm_fn_;
    tickets_[iteration] = proxy_->submit([fn, iteration](ClosureContext&) {
      if (const int rc = fn(iteration); rc != 0)
        throw Error("commFn(" + std::to_string(iteration) + ") returned " + std::to_string(rc));
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "proxy::appendix_a::startComm(%d): %s\n", iteration, e.what());
    return 1;
  }
  return 0;
}

int ProxyThread::waitComm(int iteration) {
  const auto it = tickets_.find(iteration);
  if (it == tickets_.end()) {
    std::fprintf(stderr, "proxy::appendix_a::waitComm(%d): no startComm(%d) to wait for\n", iteration, iteration);
    return 1;
  }
  const Ticket ticket = it->second;
  tickets_.erase(it);
  try {
    proxy_->wait(ticket);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "proxy::appendix_a::waitComm(%d): %s\n", iteration, e.what());
    return 1;
  }
  return 0;
}

void ProxyThread::track(MPI_Request request) {
  ClosureContext* context = ClosureContext::current();
  if (context == nullptr) throw Error("appendix_a::ProxyThread::track called outside commFn");
  context->track(request);
}

MPI_Comm ProxyThread::comm() const noexcept { return proxy_ ? proxy_->comm() : MPI_COMM_NULL; }

}  // namespace proxy::appendix_a
