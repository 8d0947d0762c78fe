// The progress strategies (proxy/progress.hpp): their table, names and drivers, and the automatic choice.
#include "proxy/progress.hpp"

#include <array>
#include <memory>
#include <string>

#include "progress_driver.hpp"
#include "proxy/error.hpp"
#include "proxy/detail/enum_names.hpp"

namespace proxy {

namespace {

std::unique_ptr<ProgressDriver> make_dedicated_driver(ProxyChannel& channel, ProgressLoop& loop, const Config& config) {
  return std::make_unique<DedicatedDriver>(channel, loop, config);
}

// The strategies, one line each: the name PROXY_PROGRESS takes, whether the proxy thread keeps a core of
// its own, and its driver (progress_driver.hpp). A new strategy is its enum value, one file and one line.
struct Strategy {
  ProgressStrategy strategy;
  bool needs_a_core;
  std::unique_ptr<ProgressDriver> (*make)(ProxyChannel&, ProgressLoop&, const Config&);
};
constexpr std::array<Strategy, 3> kStrategies{{{ProgressStrategy::dedicated, true, make_dedicated_driver},
                                               {ProgressStrategy::cooperative, false, make_cooperative_driver},
                                               {ProgressStrategy::polling, true, make_polling_driver}}};
constexpr detail::EnumNames<ProgressStrategy, 4> kNames{{{ProgressStrategy::automatic, "auto"},
                                                        {ProgressStrategy::dedicated, "dedicated"},
                                                        {ProgressStrategy::cooperative, "cooperative"},
                                                        {ProgressStrategy::polling, "polling"}}};

const Strategy& entry(ProgressStrategy strategy) noexcept {
  for (const Strategy& s : kStrategies)
    if (s.strategy == strategy) return s;
  return kStrategies.front();  // automatic, outside a placement: dedicated
}

}  // namespace

std::string_view to_string(ProgressStrategy strategy) noexcept { return detail::name_of(kNames, strategy); }

ProgressStrategy parse_progress_strategy(std::string_view text) {
  if (const auto strategy = detail::value_named(kNames, text)) return *strategy;
  throw Error("unknown progress strategy '" + std::string(text) + "' (expected " + detail::expected_names(kNames) + ")");
}

bool needs_a_core(ProgressStrategy strategy) noexcept { return entry(strategy).needs_a_core; }

std::unique_ptr<ProgressDriver> make_progress_driver(ProgressStrategy strategy, ProxyChannel& channel,
                                                     ProgressLoop& loop, const Config& config) {
  return entry(strategy).make(channel, loop, config);
}

ProgressStrategy choose_progress(ProgressStrategy requested, const Placement& placement) noexcept {
  if (requested != ProgressStrategy::automatic) return requested;
  // A core reserved for the proxy while the compute threads crowd onto the others is no bargain either.
  const bool compute_fits = placement.threads <= static_cast<int>(placement.compute_cores.size());
  return placement.proxy_core >= 0 && placement.proxy_core_dedicated && compute_fits ? ProgressStrategy::dedicated
                                                                                     : ProgressStrategy::cooperative;
}

bool auto_keeps_a_proxy_core(const Placement& with_core, int world_size) noexcept {
  return world_size > 1 && static_cast<int>(with_core.cores.size()) >= kCoresForAProxyCore &&
         choose_progress(ProgressStrategy::automatic, with_core) == ProgressStrategy::dedicated;
}

}  // namespace proxy
