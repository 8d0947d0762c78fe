// The MPI names of a Reduction's element type and built-in operation, for code that hands a team's result
// to MPI (the node collectives' inter-node phase, tests that compare with MPI_Allreduce).
// Thread safety: pure functions.
#pragma once

#include "proxy/cxx20.hpp"  // first: C++20, or one line saying so

#include <mpi.h>

#include "proxy/reduction.hpp"

namespace proxy {

inline MPI_Datatype mpi_datatype(DataType type) noexcept {
  switch (type) {
    case DataType::float32: return MPI_FLOAT;
    case DataType::float64: return MPI_DOUBLE;
    case DataType::int32: return MPI_INT32_T;
    case DataType::int64: return MPI_INT64_T;
  }
  return MPI_DATATYPE_NULL;
}

// MPI_OP_NULL for ReduceOp::user: an MPI_Op cannot carry the user's context.
inline MPI_Op mpi_op(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::sum: return MPI_SUM;
    case ReduceOp::prod: return MPI_PROD;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
    case ReduceOp::user: break;
  }
  return MPI_OP_NULL;
}

}  // namespace proxy
