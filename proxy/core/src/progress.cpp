// The progress strategies' names and the automatic choice (see proxy/progress.hpp).
#include "proxy/progress.hpp"

#include <string>

#include "proxy/error.hpp"

namespace proxy {

std::string_view to_string(ProgressStrategy strategy) noexcept {
  switch (strategy) {
    case ProgressStrategy::automatic: return "auto";
    case ProgressStrategy::dedicated: return "dedicated";
    case ProgressStrategy::cooperative: return "cooperative";
  }
  return "?";
}

ProgressStrategy parse_progress_strategy(std::string_view text) {
  if (text == "auto") return ProgressStrategy::automatic;
  if (text == "dedicated") return ProgressStrategy::dedicated;
  if (text == "cooperative") return ProgressStrategy::cooperative;
  throw Error("unknown progress strategy '" + std::string(text) + "' (expected auto, dedicated or cooperative)");
}

ProgressStrategy choose_progress(ProgressStrategy requested, const Placement& placement) noexcept {
  if (requested != ProgressStrategy::automatic) return requested;
  // A core reserved for the proxy while the compute threads crowd onto the others is no bargain either.
  const bool compute_fits = placement.threads <= static_cast<int>(placement.compute_cores.size());
  return placement.proxy_core >= 0 && placement.proxy_core_dedicated && compute_fits ? ProgressStrategy::dedicated
                                                                                     : ProgressStrategy::cooperative;
}

}  // namespace proxy
