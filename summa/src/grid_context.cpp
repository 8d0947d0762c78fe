#include "summa/grid_context.hpp"

namespace summa {

namespace {

RankMap make_rank_map(MPI_Comm world, const Problem& p, int node_index) {
  if (p.has_node_layout()) return RankMap::tiled(p.grid_rows, p.grid_cols, p.node_rows, p.node_cols);
  int size = 0;
  MPI_Comm_size(world, &size);
  std::vector<int> nodes(size);
  MPI_Allgather(&node_index, 1, MPI_INT, nodes.data(), 1, MPI_INT, world);
  return RankMap::row_major(p.grid_rows, p.grid_cols, std::move(nodes));
}

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

}  // namespace

GridContext::GridContext(MPI_Comm world, const Problem& problem, int node_index)
    : problem_(problem), map_(make_rank_map(world, problem, node_index)), position_(map_.position(rank_of(world))),
      rows_(problem.m, problem.grid_rows), cols_(problem.n, problem.grid_cols), a_k_(problem.k, problem.grid_cols),
      b_k_(problem.k, problem.grid_rows),
      schedule_(panel_schedule(problem.k, problem.grid_rows, problem.grid_cols, problem.panel)) {
  // Keys order each communicator by grid index, so a panel's root is its owner's column (row) index.
  MPI_Comm_split(world, position_.row, position_.col, &row_comm_);
  MPI_Comm_split(world, position_.col, position_.row, &col_comm_);
}

GridContext::~GridContext() {
  if (row_comm_ != MPI_COMM_NULL) MPI_Comm_free(&row_comm_);
  if (col_comm_ != MPI_COMM_NULL) MPI_Comm_free(&col_comm_);
}

}  // namespace summa
