// heat2d-reference NX NY STEPS: the C++ heat2d's own rows (heat2d::Slab, apps/heat/heat2d_problem.hpp) on one
// rank, stepped as heat2d steps them, checked against its serial solver, and printed as the checksum
// heat2d-c and heat2d-fortran print (the XOR of every value's bits rotated left by its global index mod 64).
// No MPI: the slab of a single rank has no neighbours. Exit 3 if the slab differs from the serial solver.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "heat2d_problem.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: heat2d-reference NX NY STEPS\n");
    return 2;
  }
  heat2d::Problem problem;
  problem.nx = std::atoi(argv[1]);
  problem.ny = std::atoi(argv[2]);
  problem.steps = std::atoi(argv[3]);
  heat2d::Slab slab(problem, 0, 1);
  for (int step = 0; step < problem.steps; ++step) slab.update(step % 2, 1, slab.rows() + 1);
  const int last = problem.steps % 2;
  if (slab.max_difference_from_serial(last, problem.steps) != 0.0) {
    std::fprintf(stderr, "heat2d-reference: the slab differs from the serial solver\n");
    return 3;
  }
  std::uint64_t checksum = 0;
  for (int r = 1; r <= slab.rows(); ++r)
    for (int x = 0; x < problem.nx; ++x) {
      std::uint64_t bits;
      std::memcpy(&bits, &slab.row(last, r)[x], sizeof bits);
      const unsigned shift = static_cast<unsigned>((static_cast<long long>(r - 1) * problem.nx + x) % 64);
      checksum ^= shift == 0 ? bits : (bits << shift) | (bits >> (64 - shift));
    }
  std::printf("heat2d-reference: checksum %016llx\n", static_cast<unsigned long long>(checksum));
  return 0;
}
