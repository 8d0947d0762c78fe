// The handler of a broken thread rule (proxy/detail/thread_rule.hpp).
#include "proxy/detail/thread_rule.hpp"

#include <atomic>
#include <cstdlib>
#include <string>

#include "proxy/environment.hpp"

namespace proxy::detail {

namespace {

void report_and_abort(const char* rule) {
  Environment::report(std::string("proxy: thread rule broken: ") + rule);
  std::abort();
}

std::atomic<ThreadRuleHandler> handler{report_and_abort};

}  // namespace

ThreadRuleHandler set_thread_rule_handler(ThreadRuleHandler next) noexcept {
  return handler.exchange(next != nullptr ? next : report_and_abort);
}

void thread_rule_broken(const char* rule) { handler.load()(rule); }

}  // namespace proxy::detail
