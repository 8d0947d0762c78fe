#include "summa/modes.hpp"

#include <mpi.h>

#include <string>
#include <vector>

#include <proxy/proxy_thread.hpp>
#include <proxy/detail/timer.hpp>

#include "summa/local_multiply.hpp"

namespace summa {

namespace {

using proxy::now_seconds;

// The blocking step of sync and mt: both broadcasts, then the caller multiplies.
void broadcast_blocking(const GridContext& grid, Operands& ops, const Panel& p) {
  MPI_Bcast(ops.panel_a(p, 0), ops.panel_a_count(p), MPI_DOUBLE, p.a_owner_col, grid.row_comm());
  MPI_Bcast(ops.panel_b(p, 0), ops.panel_b_count(p), MPI_DOUBLE, p.b_owner_row, grid.col_comm());
}

// Blocking modes differ only in who multiplies: one dgemm (sync) or the node's threads (mt).
Timings multiply_blocking(const GridContext& grid, Operands& ops, int threads) {
  Timings t;
  const double start = now_seconds();
  for (const Panel& p : grid.schedule()) {
    const double comm_start = now_seconds();
    broadcast_blocking(grid, ops, p);
    const double compute_start = now_seconds();
    t.comm += compute_start - comm_start;
    multiply_add_threaded(threads, ops.m(), ops.n(), p.width, ops.panel_a(p, 0), ops.lda(), ops.panel_b(p, 0),
                          ops.ldb(), ops.c().data(), ops.ldc());
    t.compute += now_seconds() - compute_start;
  }
  t.total = now_seconds() - start;
  t.wait = t.comm;
  return t;
}

}  // namespace

Timings multiply_sync(const GridContext& grid, Operands& operands) { return multiply_blocking(grid, operands, 1); }

Timings multiply_mt(const GridContext& grid, Operands& operands, int threads) {
  return multiply_blocking(grid, operands, threads);
}

Timings multiply_async(const GridContext& grid, Operands& ops) {
  const auto& schedule = grid.schedule();
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  auto start_panel = [&](std::size_t i) {
    const Panel& p = schedule[i];
    const int slot = static_cast<int>(i % 2);
    MPI_Ibcast(ops.panel_a(p, slot), ops.panel_a_count(p), MPI_DOUBLE, p.a_owner_col, grid.row_comm(), &requests[0]);
    MPI_Ibcast(ops.panel_b(p, slot), ops.panel_b_count(p), MPI_DOUBLE, p.b_owner_row, grid.col_comm(), &requests[1]);
  };
  Timings t;
  const double start = now_seconds();
  start_panel(0);
  t.comm += now_seconds() - start;
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const double wait_start = now_seconds();
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    const double next_start = now_seconds();
    t.wait += next_start - wait_start;
    if (i + 1 < schedule.size()) start_panel(i + 1);  // in flight while panel i is multiplied
    const double compute_start = now_seconds();
    t.comm += compute_start - wait_start;
    const Panel& p = schedule[i];
    const int slot = static_cast<int>(i % 2);
    multiply_add(ops.m(), ops.n(), p.width, ops.panel_a(p, slot), ops.lda(), ops.panel_b(p, slot), ops.ldb(),
                 ops.c().data(), ops.ldc());
    t.compute += now_seconds() - compute_start;
  }
  t.total = now_seconds() - start;
  return t;
}

Timings multiply_proxy(const GridContext& grid, Operands& ops, int threads, proxy::ProxyThread& proxy) {
  const auto& schedule = grid.schedule();
  const MPI_Comm row_comm = grid.row_comm();
  const MPI_Comm col_comm = grid.col_comm();
  // One plan per panel, committed before the clock starts: its two broadcasts (A along the row, B down the
  // column) become persistent collectives (MPI_Bcast_init; MPI_Ibcast per start where MPI lacks them), so
  // starting a panel is a queue push, with no closure allocated per panel.
  std::vector<proxy::Plan> panels;
  panels.reserve(schedule.size());
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const Panel& p = schedule[i];
    const int slot = static_cast<int>(i % 2);
    proxy::PlanSpec spec("panel-" + std::to_string(i));
    spec.broadcast(row_comm, p.a_owner_col, ops.panel_a(p, slot), ops.panel_a_count(p), MPI_DOUBLE)
        .broadcast(col_comm, p.b_owner_row, ops.panel_b(p, slot), ops.panel_b_count(p), MPI_DOUBLE);
    panels.push_back(proxy.commit(spec));
  }
  auto start_panel = [&](std::size_t i) { return proxy.start(panels[i]); };
  Timings t;
  const double start = now_seconds();
  proxy::Ticket ticket = start_panel(0);
  t.comm += now_seconds() - start;
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const double wait_start = now_seconds();
    proxy.wait(ticket);
    const double next_start = now_seconds();
    t.wait += next_start - wait_start;
    if (i + 1 < schedule.size()) ticket = start_panel(i + 1);  // the proxy moves it while we multiply
    const double compute_start = now_seconds();
    t.comm += compute_start - wait_start;
    const Panel& p = schedule[i];
    const int slot = static_cast<int>(i % 2);
    multiply_add_threaded(threads, ops.m(), ops.n(), p.width, ops.panel_a(p, slot), ops.lda(),
                          ops.panel_b(p, slot), ops.ldb(), ops.c().data(), ops.ldc());
    t.compute += now_seconds() - compute_start;
  }
  t.total = now_seconds() - start;
  return t;
}

}  // namespace summa
