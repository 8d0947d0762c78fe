// BlockDistribution: `extent` global indices split over `parts` owners as evenly as possible (sizes differ
// by at most one; the first extent % parts owners get the extra index). SUMMA splits the rows of A and C
// over the grid rows, the columns of B and C over the grid columns, and the common dimension k over both
// (over columns for A, over rows for B). Plain value type, any thread.
#pragma once

#include <cstdint>

namespace summa {

class BlockDistribution {
 public:
  // extent >= 0 and parts >= 1 (asserted; user input is validated in problem.hpp).
  BlockDistribution(std::int64_t extent, int parts);

  std::int64_t extent() const noexcept { return extent_; }
  int parts() const noexcept { return parts_; }
  std::int64_t offset(int part) const noexcept;  // first global index of `part`
  std::int64_t size(int part) const noexcept;    // may be 0 when extent < parts
  int owner(std::int64_t index) const noexcept;  // the part holding global index `index`

 private:
  std::int64_t extent_;
  int parts_;
  std::int64_t base_;       // extent / parts
  std::int64_t remainder_;  // extent % parts: parts below it hold base_ + 1
};

}  // namespace summa
