// The deterministic operands: A(i, j) and B(i, j) are formulas of the global indices, so any rank can build
// any part of A or B (its own blocks, or the rows and columns it needs to check its block of C) without
// communication. Values lie in [-1, 1] and are not low-rank, so a wrong panel shows up in C.
// Layouts: A blocks are column-major (a panel of A's columns is contiguous); B blocks are row-major (a panel
// of B's rows is contiguous), so panels are broadcast straight from the owner's block without packing.
// Pure functions, any thread.
#pragma once

#include <cstdint>

namespace summa {

// Largest magnitude of any A or B value: the error scale of verification is k * kGeneratorMax^2.
inline constexpr double kGeneratorMax = 1.0;

inline double a_value(std::int64_t i, std::int64_t j) noexcept {
  return static_cast<double>((i * 7919 + j * 104729 + 13) % 2001) / 1000.0 - 1.0;
}

inline double b_value(std::int64_t i, std::int64_t j) noexcept {
  return static_cast<double>((i * 15485863 + j * 32452843 + 7) % 1999) / 999.0 - 1.0;
}

// Rows [row0, row0 + rows) x columns [col0, col0 + cols) of A into `out`, column-major with leading dim ld.
void fill_a(std::int64_t row0, std::int64_t rows, std::int64_t col0, std::int64_t cols, double* out,
            std::int64_t ld) noexcept;
// The same block of B into `out`, row-major with leading dimension ld.
void fill_b(std::int64_t row0, std::int64_t rows, std::int64_t col0, std::int64_t cols, double* out,
            std::int64_t ld) noexcept;

}  // namespace summa
