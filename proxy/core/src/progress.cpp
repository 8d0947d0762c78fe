// The progress strategies' names and the automatic choice (see proxy/progress.hpp).
#include "proxy/progress.hpp"

#include <string>

#include "proxy/error.hpp"
#include "proxy/detail/enum_names.hpp"

namespace proxy {

namespace {
constexpr detail::EnumNames<ProgressStrategy, 3> kStrategies{{{ProgressStrategy::automatic, "auto"},
                                                             {ProgressStrategy::dedicated, "dedicated"},
                                                             {ProgressStrategy::cooperative, "cooperative"}}};
}  // namespace

std::string_view to_string(ProgressStrategy strategy) noexcept { return detail::name_of(kStrategies, strategy); }

ProgressStrategy parse_progress_strategy(std::string_view text) {
  if (const auto strategy = detail::value_named(kStrategies, text)) return *strategy;
  throw Error("unknown progress strategy '" + std::string(text) + "' (expected " + detail::expected_names(kStrategies) +
              ")");
}

ProgressStrategy choose_progress(ProgressStrategy requested, const Placement& placement) noexcept {
  if (requested != ProgressStrategy::automatic) return requested;
  // A core reserved for the proxy while the compute threads crowd onto the others is no bargain either.
  const bool compute_fits = placement.threads <= static_cast<int>(placement.compute_cores.size());
  return placement.proxy_core >= 0 && placement.proxy_core_dedicated && compute_fits ? ProgressStrategy::dedicated
                                                                                     : ProgressStrategy::cooperative;
}

}  // namespace proxy
