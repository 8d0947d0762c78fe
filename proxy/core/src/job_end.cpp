// The end of the program (environment_setup.hpp: end_together): every rank tells rank 0 it has arrived, rank 0
// answers every rank once all have. MPI_Finalize waits for every peer in MPICH and Open MPI alike, so a rank stopped
// or hung after its last communication left the others there for ever, naming nobody; here the wait is polled and
// bounded, and the line names who is missing.
#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <mpi.h>

#include "environment_setup.hpp"
#include "proxy/environment.hpp"

namespace proxy {

namespace {

constexpr int kArrivedTag = 1;
constexpr int kAnswerTag = 2;

using Clock = std::chrono::steady_clock;

// Polls `requests` until every one is complete or `deadline` passes; returns whether all completed. Backs off
// from a yield to 1 ms between polls: the ranks of a program that ends normally arrive within milliseconds, and a
// rank that waits longer must not take a core from one still working.
bool complete_by(std::vector<MPI_Request>& requests, Clock::time_point deadline) {
  auto pause = std::chrono::microseconds(0);
  for (;;) {
    int done = 0;
    MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return true;
    if (Clock::now() >= deadline) return false;
    if (pause.count() == 0) {
      std::this_thread::yield();
      pause = std::chrono::microseconds(50);
    } else {
      std::this_thread::sleep_for(pause);
      pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(1));
    }
  }
}

// "rank 3", "ranks 1 and 3", "ranks 1, 3 and 5", "ranks 1, 3, 5, 7, 9, 11, 13, 15 and 4 others".
std::string ranks_text(const std::vector<int>& ranks) {
  constexpr std::size_t kNamed = 8;
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  const std::size_t named = ranks.size() > kNamed ? kNamed : ranks.size();
  for (std::size_t i = 0; i < named; ++i) {
    if (i > 0) text += (i + 1 == named && named == ranks.size()) ? " and " : ", ";
    text += std::to_string(ranks[i]);
  }
  if (named < ranks.size()) text += " and " + std::to_string(ranks.size() - named) + " others";
  return text;
}

}  // namespace

void end_together(MPI_Comm comm, const std::string& program, int rank, int size) {
  // Rank 0 waits twice the step's bound: a rank that has not arrived because it waits for rank 0 in a timed wait
  // of its own (one more iteration than rank 0 ran) says so first, naming its step (a wait times out after
  // PROXY_WAIT_TIMEOUT, at most the bound). The others wait three times it, so that rank 0's line comes first.
  const std::chrono::milliseconds bound = step_bound();
  const std::string here = program + ": error: rank " + std::to_string(rank) + ": ";
  if (rank != 0) {
    std::vector<MPI_Request> requests(2, MPI_REQUEST_NULL);
    MPI_Isend(nullptr, 0, MPI_BYTE, 0, kArrivedTag, comm, &requests[0]);
    MPI_Irecv(nullptr, 0, MPI_BYTE, 0, kAnswerTag, comm, &requests[1]);
    if (!complete_by(requests, Clock::now() + 3 * bound))
      Environment::abort(here + "rank 0 has not answered " + step_bound_text(bound, 3) +
                             " after this rank reached the end of the program: it has stopped, hangs or is still "
                             "working: ending the job",
                         1);
    return;
  }
  std::vector<MPI_Request> arrivals(static_cast<std::size_t>(size - 1), MPI_REQUEST_NULL);
  for (int peer = 1; peer < size; ++peer)
    MPI_Irecv(nullptr, 0, MPI_BYTE, peer, kArrivedTag, comm, &arrivals[static_cast<std::size_t>(peer - 1)]);
  if (!complete_by(arrivals, Clock::now() + 2 * bound)) {
    std::vector<int> missing;
    for (int peer = 1; peer < size; ++peer) {
      int arrived = 0;
      MPI_Test(&arrivals[static_cast<std::size_t>(peer - 1)], &arrived, MPI_STATUS_IGNORE);
      if (!arrived) missing.push_back(peer);
    }
    const bool one = missing.size() == 1;
    Environment::abort(here + ranks_text(missing) + (one ? " has" : " have") + " not reached the end of the " +
                           "program " + step_bound_text(bound, 2) + " after this rank did: " +
                           (one ? "it has stopped, hangs or is still working"
                                : "they have stopped, hang or are still working") +
                           ": ending the job",
                       1);
  }
  std::vector<MPI_Request> answers(static_cast<std::size_t>(size - 1), MPI_REQUEST_NULL);
  for (int peer = 1; peer < size; ++peer)
    MPI_Isend(nullptr, 0, MPI_BYTE, peer, kAnswerTag, comm, &answers[static_cast<std::size_t>(peer - 1)]);
  if (!complete_by(answers, Clock::now() + bound))  // zero bytes: sent at once, unless a peer is gone
    Environment::abort(here + "the answers to the ranks at the end of the program were not sent within " +
                           step_bound_text(bound) + ": ending the job",
                       1);
}

}  // namespace proxy
