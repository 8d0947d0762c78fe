// The runtime's objects created or destroyed in the wrong order, one case per argument, each a process of its
// own (the order of MPI's initialisation is the point), run on real ranks by CTest (label `faults`):
//   proxy-before-environment  a ProxyThread while MPI is not initialised: proxy::Error, exit 1
//   proxy-after-environment   a ProxyThread after the Environment finalised MPI: proxy::Error, exit 1
//   environment-twice         a second Environment after the first finalised MPI: proxy::Error, exit 1
//   environment-while-alive   a second Environment while the first lives: proxy::Error, exit 1
//   proxy-null-comm           ProxyThread(MPI_COMM_NULL): proxy::Error, exit 1
//   environment-before-proxy  the Environment destroyed while its ProxyThread lives: one line, the job ends
//   proxy-destroyed-elsewhere the ProxyThread destroyed on a thread other than the one that created it: one line,
//                             the job ends
//   proxy-destroyed-in-region ... on the creating thread, inside an OpenMP parallel region of 2 threads begun after
//                             it was created: one line, the job ends
//   proxy-destroyed-by-itself ... by a closure it runs, on its own proxy thread: one line, the job ends
// Each refusal is printed as "error: <what()>" (with the rank where MPI can tell it).
#include <cstdio>
#include <optional>
#include <string>
#include <thread>

#include "proxy/core.hpp"

namespace {

int refused(const proxy::Error& error, const std::string& who) {
  std::printf("%serror: %s\n", who.c_str(), error.what());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "";
  try {
    if (which == "proxy-before-environment") {
      proxy::ProxyThread proxy(MPI_COMM_WORLD);
    } else if (which == "proxy-after-environment") {
      { proxy::Environment env(argc, argv); }
      proxy::ProxyThread proxy(MPI_COMM_WORLD);
    } else if (which == "environment-twice") {
      { proxy::Environment env(argc, argv); }
      proxy::Environment again(argc, argv);
    } else if (which == "environment-while-alive") {
      proxy::Environment env(argc, argv);
      try {
        proxy::Environment second(argc, argv);
      } catch (const proxy::Error& error) {
        return refused(error, "rank " + std::to_string(env.rank()) + ": ");
      }
    } else if (which == "proxy-null-comm") {
      proxy::Environment env(argc, argv);
      try {
        proxy::ProxyThread proxy(MPI_COMM_NULL);
      } catch (const proxy::Error& error) {
        return refused(error, "rank " + std::to_string(env.rank()) + ": ");
      }
    } else if (which == "environment-before-proxy") {
      std::optional<proxy::ProxyThread> proxy;
      {
        proxy::Environment env(argc, argv);
        proxy.emplace(MPI_COMM_WORLD);
      }  // ends the job: MPI must not be finalised under the proxy
    } else if (which == "proxy-destroyed-elsewhere") {
      proxy::Environment env(argc, argv);
      std::optional<proxy::ProxyThread> proxy(std::in_place, MPI_COMM_WORLD);
      std::thread([&] { proxy.reset(); }).join();  // ends the job
    } else if (which == "proxy-destroyed-in-region") {
      proxy::Environment env(argc, argv);
      std::optional<proxy::ProxyThread> proxy(std::in_place, MPI_COMM_WORLD);
#pragma omp parallel num_threads(2)
      {
#pragma omp master
        proxy.reset();  // ends the job
      }
    } else if (which == "proxy-destroyed-by-itself") {
      proxy::Environment env(argc, argv);
      std::optional<proxy::ProxyThread> proxy(std::in_place, MPI_COMM_WORLD);
      proxy->wait(proxy->submit([&](proxy::ClosureContext&) { proxy.reset(); }, "destroyer"));  // ends the job
    } else {
      std::printf("lifecycle_misuse: unknown case '%s'\n", which.c_str());
      return 2;
    }
  } catch (const proxy::Error& error) {
    return refused(error, "");
  }
  std::printf("no error\n");
  return 0;
}
