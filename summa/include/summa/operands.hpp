// Operands: one rank's blocks of A (column-major), B (row-major) and C (column-major), generated from the
// global indices, plus two receive buffers per operand for the panels (double buffering in async and proxy
// modes). panel_a/panel_b return where panel p's data is: inside the local block when this rank owns it
// (the root broadcasts straight from its block), else in receive buffer `slot`.
// Thread safety: owned by one rank; the modes hand receive buffers to MPI and read them after completion.
#pragma once

#include <cstdint>
#include <vector>

#include "summa/grid_context.hpp"

namespace summa {

class Operands {
 public:
  explicit Operands(const GridContext& grid);

  int m() const noexcept { return m_; }    // local rows of A and C
  int n() const noexcept { return n_; }    // local columns of B and C
  int lda() const noexcept { return lda_; }
  int ldb() const noexcept { return ldb_; }
  int ldc() const noexcept { return lda_; }

  double* panel_a(const Panel& panel, int slot) noexcept;
  double* panel_b(const Panel& panel, int slot) noexcept;
  int panel_a_count(const Panel& panel) const noexcept { return m_ * panel.width; }
  int panel_b_count(const Panel& panel) const noexcept { return n_ * panel.width; }

  std::vector<double>& c() noexcept { return c_; }
  const std::vector<double>& c() const noexcept { return c_; }
  void zero_c() noexcept;

 private:
  GridPosition position_;
  int m_;
  int n_;
  int lda_;  // max(1, m): BLAS wants positive leading dimensions even for empty blocks
  int ldb_;  // max(1, n)
  std::vector<double> a_;  // m x (k over grid columns), column-major
  std::vector<double> b_;  // (k over grid rows) x n, row-major
  std::vector<double> c_;  // m x n, column-major
  std::vector<double> a_receive_[2];
  std::vector<double> b_receive_[2];
};

}  // namespace summa
