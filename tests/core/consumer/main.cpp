// Outside consumer: one closure through the proxy; prints the sum of ranks so the test can check it.
#include <cstdio>

#include <proxy/proxy.hpp>

int main(int argc, char** argv) {
  proxy::Environment env(argc, argv);
  long sum = 0;
  {
    proxy::ProxyThread proxy;
    long mine = proxy.rank();
    proxy.call([&] { MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, proxy.comm()); });
  }
  if (env.rank() == 0) std::printf("consumer: sum of ranks = %ld\n", sum);
  return 0;
}
