#include "summa/problem.hpp"

#include <algorithm>
#include <climits>
#include <initializer_list>
#include <utility>
#include <vector>

#include "proxy/detail/counted.hpp"
#include "summa/distribution.hpp"

namespace summa {

namespace {

using proxy::detail::counted;

// "--m 8 --n 9", or "--size 8" once for the dimensions it set: each option named once, with its value.
std::string options_text(std::initializer_list<std::pair<const std::string*, std::int64_t>> dimensions) {
  std::string text;
  std::vector<std::string> named;
  for (const auto& [option, value] : dimensions) {
    if (std::find(named.begin(), named.end(), *option) != named.end()) continue;
    named.push_back(*option);
    text += (text.empty() ? "" : " ") + *option + " " + std::to_string(value);
  }
  return text;
}

void require_positive(std::string_view name, std::int64_t value) {
  if (value < 1)
    throw InvalidProblem(std::string(name) + " must be at least 1, got '" + std::to_string(value) + "'");
}

}  // namespace

void validate(const Problem& p, int ranks) {
  require_positive(p.m_option, p.m);
  require_positive(p.n_option, p.n);
  require_positive(p.k_option, p.k);
  require_positive("--panel", p.panel);
  // BLAS and MPI take int dimensions and counts.
  for (const auto& [name, value] : {std::pair<const std::string*, std::int64_t>{&p.m_option, p.m},
                                    {&p.n_option, p.n}, {&p.k_option, p.k}})
    if (value > INT_MAX) throw InvalidProblem(*name + " " + std::to_string(value) + " exceeds 2147483647 (2^31-1)");
  require_positive("--reps", p.reps);
  if (p.grid_rows < 1 || p.grid_cols < 1)
    throw InvalidProblem("--grid extents must be at least 1, got '" + p.grid() + "'");
  if (static_cast<long long>(p.grid_rows) * p.grid_cols != ranks)
    throw InvalidProblem("--grid " + p.grid() + " needs " +
                         counted(static_cast<long long>(p.grid_rows) * p.grid_cols, "rank") + ", but " +
                         std::to_string(ranks) + (ranks == 1 ? " is" : " are") + " running");
  proxy::harness::check_threads(p.mode, p.threads);
  if (p.has_node_layout()) {
    const std::string layout = std::to_string(p.node_rows) + "x" + std::to_string(p.node_cols);
    if (is_multi_tier(p.mode))
      throw InvalidProblem("--node-layout " + layout + " needs --mode sync or async (" +
                           std::string(to_string(p.mode)) + " runs one rank per node)");
    if (p.node_cols < 1 || p.grid_rows % p.node_rows != 0 || p.grid_cols % p.node_cols != 0)
      throw InvalidProblem("--node-layout " + layout + " does not tile --grid " + p.grid() +
                           " (its extents must divide the grid's)");
  }
  // Panels travel as one MPI message of (local rows) x width or width x (local columns) doubles.
  const std::int64_t rows = BlockDistribution(p.m, p.grid_rows).size(0);
  const std::int64_t cols = BlockDistribution(p.n, p.grid_cols).size(0);
  const std::int64_t widest = std::min<std::int64_t>(p.panel, p.k);
  if (rows * widest > INT_MAX || cols * widest > INT_MAX || rows * cols > INT_MAX)
    throw InvalidProblem(options_text({{&p.m_option, p.m}, {&p.n_option, p.n}}) + " --panel " +
                         std::to_string(p.panel) + ": a block or panel exceeds 2^31-1 elements");
}

std::string Problem::sizes() const { return options_text({{&m_option, m}, {&n_option, n}, {&k_option, k}}); }

double bytes_per_rank(const Problem& p) {
  // The largest blocks are those of grid row and column 0 (BlockDistribution gives them the remainder).
  const double rows = static_cast<double>(BlockDistribution(p.m, p.grid_rows).size(0));
  const double cols = static_cast<double>(BlockDistribution(p.n, p.grid_cols).size(0));
  const double a_cols = static_cast<double>(BlockDistribution(p.k, p.grid_cols).size(0));
  const double b_rows = static_cast<double>(BlockDistribution(p.k, p.grid_rows).size(0));
  const double width = static_cast<double>(std::min<std::int64_t>(p.panel, p.k));
  double doubles = rows * a_cols + b_rows * cols + rows * cols + 2.0 * width * (rows + cols);
  if (p.verify) doubles += rows * static_cast<double>(p.k) + static_cast<double>(p.k) * cols + rows * cols;
  return doubles * sizeof(double);
}

}  // namespace summa
