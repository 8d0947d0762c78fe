// GridContext: a rank's place in the SUMMA process grid: its position, the row and column communicators
// the panels are broadcast on, the block sizes, and the panel schedule.
// Thread contract: construct and destroy on the thread that owns MPI, while no ProxyThread runs (both call
// MPI); the communicators may then be used by whichever thread owns MPI (the proxy thread in proxy mode).
#pragma once

#include <cstdint>
#include <vector>

#include <mpi.h>

#include "summa/distribution.hpp"
#include "summa/panel_schedule.hpp"
#include "summa/problem.hpp"
#include "summa/rank_map.hpp"

namespace summa {

class GridContext {
 public:
  // Collective over `world` (whose size is grid_rows * grid_cols). node_index: this rank's node (for the
  // default layout; a --node-layout replaces it by logical nodes).
  GridContext(MPI_Comm world, const Problem& problem, int node_index);
  ~GridContext();
  GridContext(const GridContext&) = delete;
  GridContext& operator=(const GridContext&) = delete;

  const Problem& problem() const noexcept { return problem_; }
  const RankMap& rank_map() const noexcept { return map_; }
  GridPosition position() const noexcept { return position_; }
  // Ranks of this grid row ordered by column (rank in it = grid column), and of this grid column by row.
  MPI_Comm row_comm() const noexcept { return row_comm_; }
  MPI_Comm col_comm() const noexcept { return col_comm_; }

  const BlockDistribution& rows() const noexcept { return rows_; }        // m over grid rows
  const BlockDistribution& cols() const noexcept { return cols_; }        // n over grid columns
  const BlockDistribution& a_columns() const noexcept { return a_k_; }    // k over grid columns
  const BlockDistribution& b_rows() const noexcept { return b_k_; }       // k over grid rows
  int local_rows() const noexcept { return static_cast<int>(rows_.size(position_.row)); }
  int local_cols() const noexcept { return static_cast<int>(cols_.size(position_.col)); }
  const std::vector<Panel>& schedule() const noexcept { return schedule_; }

 private:
  Problem problem_;
  RankMap map_;
  GridPosition position_;
  MPI_Comm row_comm_ = MPI_COMM_NULL;
  MPI_Comm col_comm_ = MPI_COMM_NULL;
  BlockDistribution rows_;
  BlockDistribution cols_;
  BlockDistribution a_k_;
  BlockDistribution b_k_;
  std::vector<Panel> schedule_;
};

}  // namespace summa
