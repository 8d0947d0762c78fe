#include "summa/operands.hpp"

#include <algorithm>

#include "summa/generator.hpp"

namespace summa {

Operands::Operands(const GridContext& grid)
    : position_(grid.position()), m_(grid.local_rows()), n_(grid.local_cols()), lda_(std::max(1, m_)),
      ldb_(std::max(1, n_)) {
  const std::int64_t a_cols = grid.a_columns().size(position_.col);
  const std::int64_t b_rows = grid.b_rows().size(position_.row);
  a_.resize(static_cast<std::size_t>(m_) * a_cols);
  b_.resize(static_cast<std::size_t>(b_rows) * n_);
  c_.assign(static_cast<std::size_t>(m_) * n_, 0.0);
  fill_a(grid.rows().offset(position_.row), m_, grid.a_columns().offset(position_.col), a_cols, a_.data(), lda_);
  fill_b(grid.b_rows().offset(position_.row), b_rows, grid.cols().offset(position_.col), n_, b_.data(), ldb_);
  const std::size_t widest = static_cast<std::size_t>(widest_panel(grid.schedule()));
  for (int slot = 0; slot < 2; ++slot) {
    a_receive_[slot].resize(std::max<std::size_t>(1, widest * m_));
    b_receive_[slot].resize(std::max<std::size_t>(1, widest * n_));
  }
}

double* Operands::panel_a(const Panel& panel, int slot) noexcept {
  if (panel.a_owner_col == position_.col && !a_.empty()) return a_.data() + panel.a_offset * lda_;
  return a_receive_[slot].data();
}

double* Operands::panel_b(const Panel& panel, int slot) noexcept {
  if (panel.b_owner_row == position_.row && !b_.empty()) return b_.data() + panel.b_offset * ldb_;
  return b_receive_[slot].data();
}

void Operands::zero_c() noexcept { std::fill(c_.begin(), c_.end(), 0.0); }

}  // namespace summa
