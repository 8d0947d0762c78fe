// RankMap: where each rank sits in the r x c process grid, and which node it is on. By default ranks fill
// the grid row by row (MPI's usual numbering puts consecutive ranks on one node, thesis Fig. IV.3). With a
// node layout nr x nc, the ranks of one node (consecutive ranks, nr * nc of them) form an nr x nc tile of
// the grid and the tiles fill the grid row by row (thesis Figs. IV.4, IV.5). The layout decides how many
// participants of each row and column broadcast are on the sender's node: BroadcastCounts, the thesis's
// "7_off + 7_on" cost (eq. IV.1-IV.3). Plain value type, any thread.
#pragma once

#include <string>
#include <vector>

namespace summa {

struct GridPosition {
  int row = 0;
  int col = 0;
};

// Receivers of one rank's broadcasts: on its node and off it, along its grid row and its grid column.
struct BroadcastCounts {
  int row_on_node = 0;
  int row_off_node = 0;
  int col_on_node = 0;
  int col_off_node = 0;
  int on_node() const noexcept { return row_on_node + col_on_node; }
  int off_node() const noexcept { return row_off_node + col_off_node; }
  std::string describe() const;  // "row 3 on + 4 off, column 1 on + 6 off: 10_off + 4_on"
};

class RankMap {
 public:
  // Row-major placement; node_of_rank[r] is the node of rank r (its size is rows * cols).
  static RankMap row_major(int rows, int cols, std::vector<int> node_of_rank);
  // nr x nc ranks per node as a tile of the grid; nr must divide rows and nc cols (asserted: validated in
  // problem.hpp). Nodes are the logical groups of nr * nc consecutive ranks.
  static RankMap tiled(int rows, int cols, int node_rows, int node_cols);

  int rows() const noexcept { return rows_; }
  int cols() const noexcept { return cols_; }
  GridPosition position(int rank) const { return positions_.at(rank); }
  int rank_at(int row, int col) const { return ranks_.at(static_cast<std::size_t>(row) * cols_ + col); }
  int node_of(int rank) const { return nodes_.at(rank); }

  BroadcastCounts broadcast_counts(int rank) const;

 private:
  RankMap(int rows, int cols, std::vector<GridPosition> positions, std::vector<int> nodes);
  int rows_;
  int cols_;
  std::vector<GridPosition> positions_;  // by rank
  std::vector<int> ranks_;               // by grid position, row-major
  std::vector<int> nodes_;               // by rank
};

}  // namespace summa
