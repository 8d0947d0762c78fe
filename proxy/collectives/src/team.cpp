// Team (HPDC'13, seed 001): construction, configuration and what the model chooses. The collectives are
// one file each (team_barrier.cpp, team_broadcast.cpp, team_reduce.cpp, team_allreduce.cpp), the hierarchy
// team_hierarchy.cpp, and the state they share team_impl.hpp.
#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "proxy/topology.hpp"
#include "team_impl.hpp"

namespace proxy {

using team_detail::kCacheLine;

void team_detail::check_index(const char* what, int value, int size) {
  if (value < 0 || value >= size)
    throw Error(std::string("team collective: ") + what + " " + std::to_string(value) + " is outside [0, " +
                std::to_string(size) + ")");
}

TeamConfig TeamConfig::from(const Config& config) {
  TeamConfig team;
  team.wait_policy = config.wait_policy;
  team.spin_count = config.spin_count;
  team.wait_timeout = config.wait_timeout;
  team.model = CollectiveModel::from_env();
  return team;
}

TeamConfig TeamConfig::from(const Config& config, const Topology& topology, const Placement& placement) {
  TeamConfig team = from(config);
  std::vector<int> thread_cores;
  for (int t = 0; t < placement.threads && !placement.compute_cores.empty(); ++t)
    thread_cores.push_back(placement.compute_cores[static_cast<std::size_t>(t) % placement.compute_cores.size()]);
  if (!thread_cores.empty()) team.levels = team_levels(topology, thread_cores);
  if (const std::size_t llc = topology.last_level_cache_bytes(); llc > 0) team.last_level_cache_bytes = llc;
  return team;
}

Team::Impl::Impl(int threads, TeamConfig cfg) : config(std::move(cfg)), p(threads), slots(threads) {
  build_hierarchy();
  const std::size_t llc = config.last_level_cache_bytes ? config.last_level_cache_bytes : (32u << 20);
  // HPDC'13 sec. 2: strips sized so that the p inputs, the output and scratch of a strip fit the LLC.
  strip_bytes = config.strip_bytes ? config.strip_bytes
                                   : std::clamp<std::size_t>(llc / (3 * std::size_t(p)), 32u << 10, 1u << 20);
  strip_bytes = std::max(kCacheLine, strip_bytes / kCacheLine * kCacheLine);
  const std::size_t total = 2 * strip_bytes * std::size_t(p);
  scratch_memory.reset(static_cast<unsigned char*>(std::aligned_alloc(kCacheLine, total)));
  if (!scratch_memory) throw std::bad_alloc();
  for (int t = 0; t < p; ++t)
    for (int k = 0; k < 2; ++k) slots[t].scratch[k] = scratch_memory.get() + (2 * std::size_t(t) + k) * strip_bytes;
}

Team::Team(int threads, TeamConfig config) {
  if (threads < 1) throw Error("team size must be at least 1, got " + std::to_string(threads));
  // The bounds of PROXY_WAIT_TIMEOUT and PROXY_SPIN_COUNT (config.hpp): a huge timeout overflows the deadline.
  if (const std::string refusal = wait_timeout_refusal(config.wait_timeout); !refusal.empty())
    throw Error("Team: TeamConfig::wait_timeout " + refusal);
  if (const std::string refusal = spin_count_refusal(config.spin_count); !refusal.empty())
    throw Error("Team: TeamConfig::spin_count " + refusal);
  impl_ = std::make_unique<Impl>(threads, std::move(config));
}

Team::~Team() = default;

int Team::size() const noexcept { return impl_->p; }
const TeamConfig& Team::config() const noexcept { return impl_->config; }
TeamShape Team::shape() const noexcept { return impl_->shape; }
std::size_t Team::strip_bytes() const noexcept { return impl_->strip_bytes; }

void Team::abandon(int thread, const std::string& why) noexcept {
  Impl& m = *impl_;
  if (m.abandoning.exchange(true, std::memory_order_relaxed)) return;  // the first reason stands
  const std::size_t n = std::min(why.size(), sizeof(m.abandon_reason) - 1);
  std::memcpy(m.abandon_reason, why.data(), n);
  m.abandon_reason[n] = '\0';
  m.abandoned_by.store(thread, std::memory_order_release);
  m.notifier.notify_all();
}

AllreduceAlgorithm Team::choose_allreduce(std::size_t bytes) const noexcept {
  const std::uint64_t last = impl_->last_allreduce_choice.load(std::memory_order_relaxed);
  if ((last >> 3) == bytes) return static_cast<AllreduceAlgorithm>(last & 7);
  const AllreduceAlgorithm choice = impl_->config.model.choose_allreduce(impl_->shape, bytes);
  if (bytes < (std::uint64_t{1} << 60))
    impl_->last_allreduce_choice.store((std::uint64_t{bytes} << 3) | static_cast<std::uint64_t>(choice),
                                       std::memory_order_relaxed);
  return choice;
}

}  // namespace proxy
