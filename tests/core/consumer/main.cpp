// Outside consumer: one closure through the proxy; prints the sum of ranks so the test can check it, and
// the version from <proxy/version.hpp>.
#include <cstdio>

#include <proxy/core.hpp>
#include <proxy/version.hpp>

static_assert(PROXY_VERSION == PROXY_VERSION_MAJOR * 10000 + PROXY_VERSION_MINOR * 100 + PROXY_VERSION_PATCH);

int main(int argc, char** argv) try {
  proxy::Environment env(argc, argv);
  long sum = 0;
  {
    proxy::ProxyThread proxy;
    long mine = proxy.rank();
    proxy.call([&] { MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, proxy.comm()); });
  }
  if (env.rank() == 0) std::printf("consumer: sum of ranks = %ld (proxy %s)\n", sum, PROXY_VERSION_STRING);
  return 0;
} catch (const proxy::SettingsError& refused) {  // every rank; one of them says why
  return refused.exit_status();
}
