// Private to proxy::core: partitioned readiness (early-bird) of a plan's outgoing data. Each part records
// the last epoch in which a compute thread marked it ready; a send waiting for parts {p...} may start in
// epoch e once every one of them reads e. Own counters rather than MPI_Psend_init/MPI_Pready: see
// docs/api.md ("Partitioned readiness") for the measurement behind the choice.
//
// Thread contract: mark() from any compute thread (one atomic exchange per part, release); all_ready() on the
// proxy thread (acquire), so what a thread wrote before marking its part is visible to the MPI call that
// sends it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "proxy/detail/queue.hpp"  // kCacheLineSize
#include "proxy/error.hpp"

namespace proxy {

class PartReadiness {
 public:
  explicit PartReadiness(int count)
      : count_(count), ready_epoch_(std::make_unique<Part[]>(static_cast<std::size_t>(count))) {}

  int count() const noexcept { return count_; }

  // Any thread: part `part` of epoch `epoch` is ready. Throws proxy::Error naming the plan, part and epoch
  // for a part out of range or marked twice in one epoch.
  void mark(const std::string& plan, int part, std::uint64_t epoch) {
    if (part < 0 || part >= count_)
      throw Error("plan '" + plan + "': part " + std::to_string(part) + " marked ready in epoch " +
                  std::to_string(epoch) + " is outside [0, " + std::to_string(count_) + ")");
    if (ready_epoch_[static_cast<std::size_t>(part)].epoch.exchange(epoch, std::memory_order_acq_rel) == epoch)
      throw Error("plan '" + plan + "': part " + std::to_string(part) + " marked ready twice in epoch " +
                  std::to_string(epoch));
  }

  // Proxy thread: have all of `parts` been marked in `epoch`?
  bool all_ready(const std::vector<int>& parts, std::uint64_t epoch) const noexcept {
    for (int p : parts)
      if (ready_epoch_[static_cast<std::size_t>(p)].epoch.load(std::memory_order_acquire) != epoch) return false;
    return true;
  }

  // Any thread: the parts of `parts` not yet marked in `epoch`, as "0, 2" (for timeout reports).
  std::string missing(const std::vector<int>& parts, std::uint64_t epoch) const {
    std::string text;
    for (int p : parts)
      if (ready_epoch_[static_cast<std::size_t>(p)].epoch.load(std::memory_order_relaxed) != epoch)
        text += (text.empty() ? "" : ", ") + std::to_string(p);
    return text;
  }

 private:
  // A line per part: the threads marking their parts do not contend for one, nor with the pass reading them.
  struct alignas(kCacheLineSize) Part {
    std::atomic<std::uint64_t> epoch{0};
  };
  int count_;
  std::unique_ptr<Part[]> ready_epoch_;
};

}  // namespace proxy
