// The polling strategy (progress_driver.hpp): the proxy thread owns a core as with dedicated, but sleeps
// (condition variable) whenever nothing is queued or in flight, and spins only while MPI work is in flight,
// so a rank that reserves a core gets it back between communication phases (another process, the OS, a
// turbo budget), at the price of a wake-up on the first start after a quiet spell. Everything else is the
// dedicated strategy's.
#include <chrono>
#include <memory>

#include "progress_driver.hpp"
#include "proxy/detail/notifier.hpp"

namespace proxy {

namespace {

class PollingDriver final : public DedicatedDriver {
 public:
  using DedicatedDriver::DedicatedDriver;
  ProgressStrategy strategy() const noexcept override { return ProgressStrategy::polling; }

 protected:
  void wait_for_work() override {
    channel_.wakeup.wait(
        [&] { return channel_.queue.size_approx() > 0 || channel_.stop_requested.load(std::memory_order_acquire); },
        WaitPolicy::block, Notifier::Clock::now() + std::chrono::milliseconds(50), 0);
  }
  void pause_in_flight(std::uint64_t) override { cpu_relax(); }
};

}  // namespace

std::unique_ptr<ProgressDriver> make_polling_driver(ProxyChannel& channel, ProgressLoop& loop, const Config& config) {
  return std::make_unique<PollingDriver>(channel, loop, config);
}

}  // namespace proxy
