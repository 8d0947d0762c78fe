// Internal to the runtime (not installed): checks of the thread rules the headers state ("one consumer
// thread", "the proxy thread or the token's holder, one at a time", "one thread per team index"), compiled
// in where PROXY_CHECK_THREAD_RULES is 1 (CMake's option of that name: ON in the debug, tsan and asan
// presets) and costing nothing otherwise. An ExclusiveSection guards code that one thread at a time may
// run, as UCX's worker guards its progress with `inprogress++ == 0`: a thread that enters while another,
// or itself, is inside has broken the rule. That is a bug in the caller, so the default handler writes one
// line naming the rule ("proxy: thread rule broken: MpscQueue::try_pop: one consumer thread at a time")
// and aborts; tests install one that records (or throws, where the guarded function may throw).
// Thread safety: Guard from any thread (that is the point); set the handler before the threads start.
#pragma once

#include <atomic>

namespace proxy::detail {

#if defined(PROXY_CHECK_THREAD_RULES) && PROXY_CHECK_THREAD_RULES
inline constexpr bool kCheckThreadRules = true;
#else
inline constexpr bool kCheckThreadRules = false;
#endif

using ThreadRuleHandler = void (*)(const char* rule);
// Installs the handler called with a broken rule's text; returns the previous one.
ThreadRuleHandler set_thread_rule_handler(ThreadRuleHandler handler) noexcept;
void thread_rule_broken(const char* rule);

class ExclusiveSection {
 public:
  explicit constexpr ExclusiveSection(const char* rule) noexcept : rule_(rule) {}
  ExclusiveSection(const ExclusiveSection&) = delete;
  ExclusiveSection& operator=(const ExclusiveSection&) = delete;

  // Holds the section for a scope; reports the rule when another holder is inside.
  class Guard {
   public:
    explicit Guard(ExclusiveSection& section) : section_(section) {
      if constexpr (kCheckThreadRules) {
        entered_ = !section_.inside_.exchange(true, std::memory_order_acquire);
        if (!entered_) thread_rule_broken(section_.rule_);
      }
    }
    ~Guard() {
      if constexpr (kCheckThreadRules)
        if (entered_) section_.inside_.store(false, std::memory_order_release);
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    ExclusiveSection& section_;
    bool entered_ = false;
  };

 private:
  const char* rule_;
  std::atomic<bool> inside_{false};
};

}  // namespace proxy::detail
