#include "summa/generator.hpp"

namespace summa {

void fill_a(std::int64_t row0, std::int64_t rows, std::int64_t col0, std::int64_t cols, double* out,
            std::int64_t ld) noexcept {
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t i = 0; i < rows; ++i) out[j * ld + i] = a_value(row0 + i, col0 + j);
}

void fill_b(std::int64_t row0, std::int64_t rows, std::int64_t col0, std::int64_t cols, double* out,
            std::int64_t ld) noexcept {
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) out[i * ld + j] = b_value(row0 + i, col0 + j);
}

}  // namespace summa
