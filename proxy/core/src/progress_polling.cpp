// The polling strategy (progress_driver.hpp): the proxy thread owns a core as with dedicated, but sleeps
// (condition variable) whenever nothing is queued or in flight, and polls only while MPI work is in flight,
// so a rank that reserves a core gets it back between communication phases (another process, the OS, a
// turbo budget), at the price of a wake-up on the first start after a quiet spell. Everything else is the
// dedicated strategy's, its pauses in flight included: spins, then yields, so that a proxy asked to poll
// on a core it shares with a compute thread (shared mode: no spins) does not hold that core for whole
// time slices (2 ranks x 8 threads on 16 cores took 4 ms per 8-byte plan allreduce when it only spun).
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
};

}  // namespace

std::unique_ptr<ProgressDriver> make_polling_driver(ProxyChannel& channel, ProgressLoop& loop, const Config& config) {
  return std::make_unique<PollingDriver>(channel, loop, config);
}

}  // namespace proxy
