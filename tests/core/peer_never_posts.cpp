// Error-path program: rank 0 waits on a plan whose peer (rank 1) never starts its side. The wait must
// throw TimeoutError naming the plan, the peer and the epoch; the program then reports it and ends every
// rank with a non-zero exit instead of hanging.
// Independent of load: every wait that must succeed (commit, epochs 1-2, rank 1's sends) has the generous
// default timeout; only the wait meant to fail (epoch 3 on rank 0) has a short one, so only rank 0 can
// time out and the expected message is the only one possible.
#include <chrono>
#include <cstdio>
#include <string>

#include "proxy/core.hpp"

int main(int argc, char** argv) try {
  proxy::Environment env(argc, argv);
  int value = 0;
  constexpr std::chrono::milliseconds kMeantToFail{2000};
  proxy::ProxyThread proxy;
  // Report while the proxy is alive: unwinding through ~ProxyThread first would make it drain the failed
  // epoch for the whole (generous) wait timeout before the report.
  try {
    proxy::PlanSpec spec("lonely");
    if (proxy.rank() == 0) spec.recv(1, 3, &value, 1, MPI_INT);
    proxy::Plan plan = proxy.commit(spec);
    if (proxy.rank() == 0) {
      for (int epoch = 1; epoch <= 3; ++epoch) {
        // Epochs 1-2 complete (rank 1 sends twice with plain MPI below); epoch 3 never does.
        const proxy::Ticket ticket = proxy.start(plan);
        if (epoch < 3)
          proxy.wait(ticket);
        else
          proxy.wait(ticket, kMeantToFail);
        std::printf("rank 0: epoch %d received %d\n", epoch, value);
      }
    } else if (proxy.rank() == 1) {
      for (int i = 1; i <= 2; ++i)
        proxy.call([&] { MPI_Send(&i, 1, MPI_INT, 0, 3, proxy.comm()); });
    }
  } catch (const proxy::CommError& e) {
    proxy::Environment::abort("rank " + std::to_string(env.rank()) + ": error: " + e.what(), 3);
  }
  return 0;
} catch (const proxy::SettingsError& refused) {  // every rank; one of them says why
  return refused.exit_status();
}
