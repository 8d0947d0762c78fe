// The panel schedule: the sequence of SUMMA steps over the common dimension k. Step s broadcasts columns
// [k_begin, k_begin + width) of A along each grid row (from the grid column owning them) and the same rows
// of B along each grid column (from the grid row owning them), then every rank multiplies the two panels.
// A panel is at most `panel` wide and is split where it crosses an owner boundary of A's columns (k over
// grid columns) or of B's rows (k over grid rows), so that each panel has one owner in each direction
// (thesis IV.D: the "restricted panel" of Van de Geijn & Watts). Identical on every rank; any thread.
#pragma once

#include <cstdint>
#include <vector>

namespace summa {

struct Panel {
  std::int64_t k_begin = 0;   // first global index along k
  int width = 0;              // >= 1
  int a_owner_col = 0;        // grid column whose A block holds these columns
  std::int64_t a_offset = 0;  // first of them inside that block (local column)
  int b_owner_row = 0;        // grid row whose B block holds these rows
  std::int64_t b_offset = 0;  // first of them inside that block (local row)
};

// k >= 1, grid_rows >= 1, grid_cols >= 1, panel >= 1 (asserted).
std::vector<Panel> panel_schedule(std::int64_t k, int grid_rows, int grid_cols, int panel);

// The widest panel of a schedule (the size of the receive buffers).
int widest_panel(const std::vector<Panel>& schedule) noexcept;

}  // namespace summa
