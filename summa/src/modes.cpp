#include "summa/modes.hpp"

#include <span>
#include <string>

#include <proxy/harness/timed_wait.hpp>
#include <proxy/proxy_thread.hpp>

namespace summa {

proxy::harness::Steps make_steps(const GridContext& grid, Operands& ops, const std::vector<Tile>& tiles,
                                 PanelRequests& state) {
  const auto& schedule = grid.schedule();
  proxy::harness::Steps steps;
  steps.count = static_cast<int>(schedule.size());
  steps.lookahead = 1;
  steps.unit = "panel";
  // sync and mt post and complete at once (no blocking MPI_Bcast: every wait has a deadline).
  steps.post = [&grid, &ops, &schedule, &state](int e) {
    const Panel& p = schedule[e];
    state.panel = e;
    MPI_Ibcast(ops.panel_a(p, e % 2), ops.panel_a_count(p), MPI_DOUBLE, p.a_owner_col, grid.row_comm(),
               &state.requests[0]);
    MPI_Ibcast(ops.panel_b(p, e % 2), ops.panel_b_count(p), MPI_DOUBLE, p.b_owner_row, grid.col_comm(),
               &state.requests[1]);
  };
  steps.complete = [&grid, &schedule, &state] {
    const Panel& p = schedule[state.panel];
    const GridPosition me = grid.position();
    // The root of each broadcast: A along my grid row, B along my grid column.
    const int roots[2] = {grid.rank_map().rank_at(me.row, p.a_owner_col), grid.rank_map().rank_at(p.b_owner_row, me.col)};
    proxy::harness::wait_all(
        std::span<MPI_Request>(state.requests), [&](int i) { return roots[i]; },
        [&](int i) {
          return std::string(i == 0 ? "the A panel along my grid row" : "the B panel along my grid column") +
                 " (broadcast from rank " + std::to_string(roots[i]) + ") did not complete";
        });
  };
  // One plan per panel, committed before the clock starts: its two broadcasts (A along the row, B down
  // the column) become persistent collectives (MPI_Bcast_init; MPI_Ibcast per start where MPI lacks them),
  // so starting a panel is one queue push, with no closure allocated per panel (docs/api.md). Committed by
  // the first repetition's run only: the session keeps its proxy and the panels' buffers for every
  // repetition (a commit per repetition compared the plans between ranks again each time, and a rank
  // stopped then ended the job with the commit's line instead of the repetition's).
  steps.prepare_proxy = [&grid, &ops, &schedule, &state](proxy::ProxyThread& proxy) {
    if (!state.panels.empty()) return;
    state.panels.reserve(schedule.size());
    for (std::size_t i = 0; i < schedule.size(); ++i) {
      const Panel& p = schedule[i];
      const int slot = static_cast<int>(i % 2);
      proxy::PlanSpec spec("panel-" + std::to_string(i));
      spec.broadcast(grid.row_comm(), p.a_owner_col, ops.panel_a(p, slot), ops.panel_a_count(p), MPI_DOUBLE)
          .broadcast(grid.col_comm(), p.b_owner_row, ops.panel_b(p, slot), ops.panel_b_count(p), MPI_DOUBLE);
      state.panels.push_back(proxy.commit(spec));
    }
  };
  steps.start_on_proxy = [&state](proxy::ProxyThread& proxy, int e) {
    return proxy.start(state.panels.at(static_cast<std::size_t>(e)));
  };
  // One dgemm alone; in a team each thread one single-threaded dgemm on its tile of C (thesis IV.D.2).
  // No progress points inside: splitting a tile's dgemm to make room for them repacks the A panel for
  // every block (4096^3 on 2 ranks: 256-column blocks cost 3 % of the total, 1024-column blocks 1 %),
  // while under cooperative progress the sleeping proxy already steps an exchange in flight every 1 ms
  // and moves the next panel as well (2 emulated nodes, 1 Gbit/s: the same total). bench/RESULTS.md.
  steps.compute_inner = [&ops, &schedule, &tiles](int s, proxy::harness::StepThread team) {
    const Panel& p = schedule[s];
    const double* a = ops.panel_a(p, s % 2);
    const double* b = ops.panel_b(p, s % 2);
    if (team.threads == 1) {
      multiply_add(ops.m(), ops.n(), p.width, a, ops.lda(), b, ops.ldb(), ops.c().data(), ops.ldc());
      return;
    }
    if (team.thread >= static_cast<int>(tiles.size())) return;
    const Tile& tile = tiles[team.thread];
    multiply_add(tile.rows, tile.cols, p.width, a + tile.row_begin, ops.lda(), b + tile.col_begin, ops.ldb(),
                 ops.c().data() + static_cast<long>(tile.col_begin) * ops.ldc() + tile.row_begin, ops.ldc());
  };
  return steps;
}

}  // namespace summa
