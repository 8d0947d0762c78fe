// Error-path program: rank 0 waits on a plan whose peer (rank 1) never starts its side. The wait must
// throw TimeoutError within PROXY_WAIT_TIMEOUT naming the plan, the peer and the epoch; the program
// then reports it and ends every rank with a non-zero exit instead of hanging.
#include <cstdio>

#include "proxy/core.hpp"

int main(int argc, char** argv) {
  proxy::Environment env(argc, argv);
  int value = 0;
  try {
    proxy::ProxyThread proxy;
    proxy::PlanSpec spec("lonely");
    if (proxy.rank() == 0) spec.recv(1, 3, &value, 1, MPI_INT);
    proxy::Plan plan = proxy.commit(spec);
    if (proxy.rank() == 0) {
      for (int epoch = 1; epoch <= 3; ++epoch) {
        // Epochs 1-2 complete (rank 1 sends twice with plain MPI below); epoch 3 never does.
        proxy.wait(proxy.start(plan));
        std::printf("rank 0: epoch %d received %d\n", epoch, value);
      }
    } else if (proxy.rank() == 1) {
      for (int i = 1; i <= 2; ++i)
        proxy.call([&] { MPI_Send(&i, 1, MPI_INT, 0, 3, proxy.comm()); });
    }
  } catch (const proxy::CommError& e) {
    std::fprintf(stderr, "rank %d: error: %s\n", env.rank(), e.what());
    std::fflush(stderr);
    proxy::Environment::abort(3);
  }
  return 0;
}
