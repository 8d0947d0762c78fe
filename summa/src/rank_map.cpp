#include "summa/rank_map.hpp"

#include <cassert>
#include <utility>

namespace summa {

std::string BroadcastCounts::describe() const {
  return "row " + std::to_string(row_on_node) + " on + " + std::to_string(row_off_node) + " off, column " +
         std::to_string(col_on_node) + " on + " + std::to_string(col_off_node) + " off: " +
         std::to_string(off_node()) + "_off + " + std::to_string(on_node()) + "_on";
}

RankMap::RankMap(int rows, int cols, std::vector<GridPosition> positions, std::vector<int> nodes)
    : rows_(rows), cols_(cols), positions_(std::move(positions)),
      ranks_(static_cast<std::size_t>(rows) * cols, -1), nodes_(std::move(nodes)) {
  assert(positions_.size() == ranks_.size() && nodes_.size() == ranks_.size());
  for (std::size_t rank = 0; rank < positions_.size(); ++rank) {
    const GridPosition p = positions_[rank];
    assert(ranks_[static_cast<std::size_t>(p.row) * cols_ + p.col] == -1 && "two ranks on one grid position");
    ranks_[static_cast<std::size_t>(p.row) * cols_ + p.col] = static_cast<int>(rank);
  }
}

RankMap RankMap::row_major(int rows, int cols, std::vector<int> node_of_rank) {
  std::vector<GridPosition> positions(static_cast<std::size_t>(rows) * cols);
  for (int rank = 0; rank < rows * cols; ++rank) positions[rank] = GridPosition{rank / cols, rank % cols};
  return RankMap(rows, cols, std::move(positions), std::move(node_of_rank));
}

RankMap RankMap::tiled(int rows, int cols, int node_rows, int node_cols) {
  assert(node_rows >= 1 && node_cols >= 1 && rows % node_rows == 0 && cols % node_cols == 0);
  const int per_node = node_rows * node_cols;
  const int tiles_per_row = cols / node_cols;
  std::vector<GridPosition> positions(static_cast<std::size_t>(rows) * cols);
  std::vector<int> nodes(positions.size());
  for (int rank = 0; rank < rows * cols; ++rank) {
    const int node = rank / per_node;
    const int local = rank % per_node;
    positions[rank] = GridPosition{(node / tiles_per_row) * node_rows + local / node_cols,
                                   (node % tiles_per_row) * node_cols + local % node_cols};
    nodes[rank] = node;
  }
  return RankMap(rows, cols, std::move(positions), std::move(nodes));
}

BroadcastCounts RankMap::broadcast_counts(int rank) const {
  const GridPosition me = position(rank);
  const int node = node_of(rank);
  BroadcastCounts counts;
  for (int col = 0; col < cols_; ++col) {
    if (col == me.col) continue;
    (node_of(rank_at(me.row, col)) == node ? counts.row_on_node : counts.row_off_node) += 1;
  }
  for (int row = 0; row < rows_; ++row) {
    if (row == me.row) continue;
    (node_of(rank_at(row, me.col)) == node ? counts.col_on_node : counts.col_off_node) += 1;
  }
  return counts;
}

}  // namespace summa
