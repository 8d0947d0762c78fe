#include "summa/panel_schedule.hpp"

#include <algorithm>
#include <cassert>

#include "summa/distribution.hpp"

namespace summa {

std::vector<Panel> panel_schedule(std::int64_t k, int grid_rows, int grid_cols, int panel) {
  assert(k >= 1 && grid_rows >= 1 && grid_cols >= 1 && panel >= 1);
  const BlockDistribution a_columns(k, grid_cols);  // A's k columns over the grid columns
  const BlockDistribution b_rows(k, grid_rows);     // B's k rows over the grid rows
  std::vector<Panel> schedule;
  for (std::int64_t begin = 0; begin < k;) {
    const int a_owner = a_columns.owner(begin);
    const int b_owner = b_rows.owner(begin);
    const std::int64_t a_end = a_columns.offset(a_owner) + a_columns.size(a_owner);
    const std::int64_t b_end = b_rows.offset(b_owner) + b_rows.size(b_owner);
    const std::int64_t end = std::min({begin + panel, a_end, b_end});
    schedule.push_back(Panel{begin, static_cast<int>(end - begin), a_owner, begin - a_columns.offset(a_owner),
                             b_owner, begin - b_rows.offset(b_owner)});
    begin = end;
  }
  return schedule;
}

int widest_panel(const std::vector<Panel>& schedule) noexcept {
  int widest = 0;
  for (const Panel& p : schedule) widest = std::max(widest, p.width);
  return widest;
}

}  // namespace summa
