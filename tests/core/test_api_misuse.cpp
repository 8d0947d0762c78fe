// The plan API called the wrong way, on real ranks (2, 3 and 4): each misuse is refused with the exception type
// and the whole message the documentation gives (docs/api.md, "Errors"), on every rank, and the ProxyThread
// goes on working afterwards. Collective elements that differ between the ranks are refused at commit on every
// rank (a count, root, operation or kind that MPI would match into a silent wrong answer).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <regex>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "proxy/core.hpp"
#include "mpi_test_util.hpp"

namespace {

using namespace std::chrono_literals;

// What fn() threw, as "<type>: <what()>" with type Error, CommError or TimeoutError, or "(no exception)": the
// type and the whole message in one comparison.
std::string misuse_outcome(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const proxy::TimeoutError& e) {
    return std::string("TimeoutError: ") + e.what();
  } catch (const proxy::CommError& e) {
    return std::string("CommError: ") + e.what();
  } catch (const proxy::Error& e) {
    return std::string("Error: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("other (") + typeid(e).name() + "): " + e.what();
  }
  return "(no exception)";
}

int misuse_tag_upper_bound(proxy::ProxyThread& proxy) {
  return proxy.call([&] {
    int* bound = nullptr;
    int found = 0;
    MPI_Comm_get_attr(proxy.comm(), MPI_TAG_UB, &bound, &found);
    return found != 0 && bound != nullptr ? *bound : 32767;
  });
}

// The ProxyThread still works after the refusals: a ring exchange of one int.
void expect_a_ring_still_runs(proxy::ProxyThread& proxy) {
  const int right = (proxy.rank() + 1) % proxy.size();
  const int left = (proxy.rank() + proxy.size() - 1) % proxy.size();
  int out = proxy.rank(), in = -1;
  proxy::PlanSpec spec("after");
  spec.send(right, 9, &out, 1, MPI_INT).recv(left, 9, &in, 1, MPI_INT);
  proxy.wait(proxy.start(proxy.commit(spec)));
  EXPECT_EQ(in, left);
}

TEST(ApiMisuse, TransfersOutsideMpisBoundsAreRefusedAtCommitNamingValueAndBound) {
  proxy::ProxyThread proxy;
  const int size = proxy.size();
  const int bound = misuse_tag_upper_bound(proxy);
  const std::string ub = std::to_string(bound);
  double x[2] = {};
  const auto commit = [&](const char* name, const std::function<void(proxy::PlanSpec&)>& build) {
    return misuse_outcome([&] {
      proxy::PlanSpec spec(name);
      spec.send(MPI_PROC_NULL, 0, x, 1, MPI_DOUBLE);  // the bad transfer is the second: its index is named
      build(spec);
      proxy.commit(spec);
    });
  };
  EXPECT_EQ(commit("tag", [&](auto& s) { s.send(0, -1, x, 1, MPI_DOUBLE); }),
            "Error: plan 'tag': transfer 1 has tag -1, outside [0, " + ub + "]");
  EXPECT_EQ(commit("tag", [&](auto& s) { s.recv(0, bound + 1, x, 1, MPI_DOUBLE); }),
            "Error: plan 'tag': transfer 1 has tag " + std::to_string(bound + 1) + ", outside [0, " + ub + "]");
  EXPECT_EQ(commit("any-tag", [&](auto& s) { s.recv(0, MPI_ANY_TAG, x, 1, MPI_DOUBLE); }),
            "Error: plan 'any-tag': transfer 1 has tag " + std::to_string(MPI_ANY_TAG) + ", outside [0, " + ub + "]");
  EXPECT_EQ(commit("any-source", [&](auto& s) { s.recv(MPI_ANY_SOURCE, 0, x, 1, MPI_DOUBLE); }),
            "Error: plan 'any-source': transfer 1 names rank " + std::to_string(MPI_ANY_SOURCE) +
                ", outside the communicator (size " + std::to_string(size) + ")");
  EXPECT_EQ(commit("peer", [&](auto& s) { s.send(size, 0, x, 1, MPI_DOUBLE); }),
            "Error: plan 'peer': transfer 1 names rank " + std::to_string(size) + ", outside the communicator (size " +
                std::to_string(size) + ")");
  EXPECT_EQ(commit("count", [&](auto& s) { s.send(0, 0, x, -1, MPI_DOUBLE); }),
            "Error: plan 'count': transfer 1 has a negative count -1");
  EXPECT_EQ(commit("count", [&](auto& s) { s.recv(0, 0, x, INT_MIN, MPI_DOUBLE); }),
            "Error: plan 'count': transfer 1 has a negative count " + std::to_string(INT_MIN));
  EXPECT_EQ(commit("null", [&](auto& s) { s.recv(0, 0, nullptr, 2, MPI_DOUBLE); }),
            "Error: plan 'null': transfer 1 has a null buffer for count 2");
  EXPECT_EQ(commit("type", [&](auto& s) { s.send(0, 0, x, 1, MPI_DATATYPE_NULL); }),
            "Error: plan 'type': transfer 1 has MPI_DATATYPE_NULL");
  // A null buffer of no elements is no misuse (MPI allows it).
  EXPECT_EQ(commit("empty", [&](auto& s) { s.send(MPI_PROC_NULL, 0, nullptr, 0, MPI_DOUBLE); }), "(no exception)");
  expect_a_ring_still_runs(proxy);
}

TEST(ApiMisuse, PackedTransfersPastIntOrWithoutACallbackAreRefusedWhenDeclared) {
  proxy::PlanSpec spec("packed");
  spec.send_packed(MPI_PROC_NULL, 0, 8, [](std::byte*) {});
  const std::size_t past_int = std::size_t{1} << 31;
  EXPECT_EQ(misuse_outcome([&] { spec.send_packed(1, 4, past_int, [](std::byte*) {}); }),
            "Error: plan 'packed': transfer 1 (send_packed to rank 1 tag 4) has 2147483648 bytes, more than one "
            "message carries (at most 2147483647)");
  EXPECT_EQ(misuse_outcome([&] { spec.recv_packed(0, 2, std::size_t{1} << 40, [](const std::byte*) {}); }),
            "Error: plan 'packed': transfer 1 (recv_packed from rank 0 tag 2) has 1099511627776 bytes, more than one "
            "message carries (at most 2147483647)");
  EXPECT_EQ(misuse_outcome([&] { spec.send_packed(0, 3, 8, nullptr); }),
            "Error: plan 'packed': transfer 1 (send_packed to rank 0 tag 3) has an empty pack function");
  EXPECT_EQ(misuse_outcome([&] { spec.recv_packed(0, 3, 8, nullptr); }),
            "Error: plan 'packed': transfer 1 (recv_packed from rank 0 tag 3) has an empty unpack function");
  EXPECT_EQ(spec.transfers().size(), 1u);  // nothing refused was added
  EXPECT_EQ(misuse_outcome([&] { spec.send_packed(0, 3, INT_MAX, [](std::byte*) {}); }), "(no exception)");
}

TEST(ApiMisuse, PartCountsOutsideTheirBoundsAreRefusedWhenDeclared) {
  proxy::PlanSpec spec("parts");
  EXPECT_EQ(misuse_outcome([&] { spec.parts(-1); }), "Error: plan 'parts': parts(-1): the count must be >= 0");
  EXPECT_EQ(misuse_outcome([&] { spec.parts(INT_MAX); }),
            "Error: plan 'parts': parts(2147483647): at most 1048576 parts");
  EXPECT_EQ(misuse_outcome([&] { spec.parts(proxy::PlanSpec::kMaxParts + 1); }),
            "Error: plan 'parts': parts(1048577): at most 1048576 parts");
  EXPECT_EQ(spec.part_count(), 0);
  EXPECT_EQ(misuse_outcome([&] { spec.parts(proxy::PlanSpec::kMaxParts); }), "(no exception)");
}

TEST(ApiMisuse, EmptyHandlesAreRefusedByEveryCallThatTakesThem) {
  proxy::ProxyThread proxy;
  const proxy::Plan none;
  const proxy::Ticket nothing;
  EXPECT_EQ(misuse_outcome([&] { proxy.start(none); }), "Error: start: empty Plan handle (commit a PlanSpec first)");
  EXPECT_EQ(misuse_outcome([&] { (void)none.name(); }), "Error: empty Plan handle");
  EXPECT_EQ(misuse_outcome([&] { (void)none.part_count(); }), "Error: empty Plan handle");
  EXPECT_EQ(misuse_outcome([&] { proxy.wait(nothing); }), "Error: wait: empty ticket");
  EXPECT_EQ(misuse_outcome([&] { proxy.wait(nothing, 1s); }), "Error: wait: empty ticket");
  EXPECT_EQ(misuse_outcome([&] { proxy.test(nothing); }), "Error: test: empty ticket");
  EXPECT_EQ(misuse_outcome([&] { proxy.ready(nothing, 0); }), "Error: ready: empty ticket");
  EXPECT_EQ(misuse_outcome([&] { proxy.then(nothing, [] {}); }), "Error: then: empty ticket");
  EXPECT_EQ(misuse_outcome([&] { proxy.submit(nullptr); }), "Error: submit: empty closure");
  EXPECT_EQ(misuse_outcome([&] { proxy.post(nullptr); }), "Error: post: null operation");
  const proxy::Ticket done = proxy.submit([](proxy::ClosureContext&) {}, "noop");
  proxy.wait(done);
  EXPECT_EQ(misuse_outcome([&] { proxy.then(done, nullptr); }),
            "Error: then: empty function for closure 'noop' epoch 1");
  EXPECT_EQ(misuse_outcome([&] { proxy.ready(done, 0); }),
            "Error: ready: closure 'noop' is not a plan; only plans have parts");
  expect_a_ring_still_runs(proxy);
}

TEST(ApiMisuse, TicketsAndTimeoutsThatNoStartGaveAreRefused) {
  proxy::ProxyThread proxy;
  int x = 0;
  proxy::PlanSpec spec("local");
  spec.send(MPI_PROC_NULL, 0, &x, 1, MPI_INT);
  const proxy::Plan plan = proxy.commit(spec);
  const proxy::Ticket first = proxy.start(plan);
  EXPECT_EQ(misuse_outcome([&] { proxy.wait(first, -5ms); }),
            "Error: wait on plan 'local' epoch 1: the timeout, -5 ms, is negative");
  proxy.wait(first);
  proxy::Ticket forged = first;
  forged.epoch = 7;  // never started: a wait could only time out
  EXPECT_EQ(misuse_outcome([&] { proxy.wait(forged); }),
            "Error: wait on plan 'local' epoch 7: it was started up to epoch 1 only: use the ticket start() returned");
  EXPECT_EQ(misuse_outcome([&] { proxy.test(forged); }),
            "Error: test on plan 'local' epoch 7: it was started up to epoch 1 only: use the ticket start() returned");
  proxy::Ticket zero = first;
  zero.epoch = 0;  // older than any start gave: it passed as completed
  EXPECT_EQ(misuse_outcome([&] { proxy.wait(zero); }),
            "Error: wait on plan 'local' epoch 0: start() numbers epochs from 1: use the ticket start() returned");
  EXPECT_EQ(misuse_outcome([&] { proxy.test(zero); }),
            "Error: test on plan 'local' epoch 0: start() numbers epochs from 1: use the ticket start() returned");
  EXPECT_EQ(misuse_outcome([&] { proxy.ready(forged, 0); }),
            "Error: plan 'local': part 0 marked ready for epoch 7, but the plan's current epoch is 1");
  EXPECT_EQ(misuse_outcome([&] { proxy.ready(first, 0); }),
            "Error: plan 'local': part 0 marked ready in epoch 1 is outside [0, 0)");
  // A plan started again before its epoch completed (a held send to itself waits for part 0, not marked yet).
  int y = 0;
  proxy::PlanSpec held("held");
  held.parts(1).send_when_ready({0}, proxy.rank(), 5, &x, 1, MPI_INT).recv(proxy.rank(), 5, &y, 1, MPI_INT);
  const proxy::Plan held_plan = proxy.commit(held);
  const proxy::Ticket running = proxy.start(held_plan);
  EXPECT_EQ(misuse_outcome([&] { proxy.start(held_plan); }),
            "Error: plan 'held' started again (epoch 2) before epoch 1 completed: wait on its ticket first");
  EXPECT_EQ(misuse_outcome([&] { proxy.ready(running, 1); }),
            "Error: plan 'held': part 1 marked ready in epoch 1 is outside [0, 1)");
  EXPECT_EQ(misuse_outcome([&] { proxy.ready(running, -1); }),
            "Error: plan 'held': part -1 marked ready in epoch 1 is outside [0, 1)");
  proxy.ready(running, 0);
  EXPECT_EQ(misuse_outcome([&] { proxy.ready(running, 0); }),
            "Error: plan 'held': part 0 marked ready twice in epoch 1");
  proxy.wait(running);
  proxy.wait(proxy.start(plan));  // both plans go on
  expect_a_ring_still_runs(proxy);
}

// A wait "for ever" (milliseconds::max(), or any timeout past 1e6 s) waits: its deadline overflowed the clock and
// it timed out at once. And a Config outside the documented bounds is refused by the constructor, by name.
TEST(ApiMisuse, AWaitWithoutPracticalEndWaitsAndBadConfigsAreRefused) {
  {
    proxy::ProxyThread proxy;
    int x = 1, y = 0;
    proxy::PlanSpec held("held");
    held.parts(1).send_when_ready({0}, proxy.rank(), 5, &x, 1, MPI_INT).recv(proxy.rank(), 5, &y, 1, MPI_INT);
    const proxy::Plan plan = proxy.commit(held);
    for (const std::chrono::milliseconds forever : {std::chrono::milliseconds::max(), 10'000'000'000'000ms}) {
      const proxy::Ticket ticket = proxy.start(plan);
      std::thread marker([&] {
        std::this_thread::sleep_for(100ms);  // any delay: the wait must outlast it
        proxy.ready(ticket, 0);
      });
      EXPECT_EQ(misuse_outcome([&] { proxy.wait(ticket, forever); }), "(no exception)");
      marker.join();
      EXPECT_EQ(y, x);
      ++x;
    }
  }
  proxy::Config config;
  config.wait_timeout = std::chrono::milliseconds::max();
  EXPECT_EQ(misuse_outcome([&] { proxy::ProxyThread proxy(MPI_COMM_WORLD, config); }),
            "Error: ProxyThread: Config::wait_timeout is 9223372036854775807 ms, outside [10 ms, 1e6 s]");
  config = proxy::Config{};
  config.queue_capacity = std::size_t{1} << 62;
  EXPECT_EQ(misuse_outcome([&] { proxy::ProxyThread proxy(MPI_COMM_WORLD, config); }),
            "Error: ProxyThread: Config::queue_capacity is 4611686018427387904, not a power of two in [2, 1048576]");
  proxy::ProxyThread proxy;  // a refused one leaves nothing behind
  expect_a_ring_still_runs(proxy);
}

// Commit copies the spec: changing or committing it again afterwards makes other plans, never changes this one.
TEST(ApiMisuse, ASpecChangedOrCommittedAgainAfterCommitLeavesThePlanAsCommitted) {
  proxy::ProxyThread proxy;
  const int right = (proxy.rank() + 1) % proxy.size();
  const int left = (proxy.rank() + proxy.size() - 1) % proxy.size();
  int out = 100 + proxy.rank(), in = -1, other = -1;
  proxy::PlanSpec spec("copied");
  spec.send(right, 3, &out, 1, MPI_INT).recv(left, 3, &in, 1, MPI_INT);
  const proxy::Plan plan = proxy.commit(spec);
  spec.recv(left, 4, &other, 1, MPI_INT).parts(2);  // after commit: not the plan's
  EXPECT_EQ(plan.transfer_count(), 2u);
  EXPECT_EQ(plan.part_count(), 0);
  const proxy::Plan twice = proxy.commit(spec);  // committed again: a second plan, of the spec as it is now
  EXPECT_EQ(twice.transfer_count(), 3u);
  EXPECT_EQ(twice.part_count(), 2);
  proxy.wait(proxy.start(plan));
  EXPECT_EQ(in, 100 + left);
  EXPECT_EQ(other, -1);
  EXPECT_EQ(plan.transfer_count(), 2u);
}

// An operation MPI does not define on the type is MPI's refusal, never a hang or a wrong sum: at commit, a
// proxy::Error naming the element and the call, where MPI has persistent collectives (it was a CommError of "epoch
// 0"), else the plan's CommError at the first wait.
TEST(ApiMisuse, AnOperationTheTypeDoesNotSupportIsMpisRefusalNamingThePlan) {
  proxy::ProxyThread proxy;
  double send[2] = {1.0, 2.0}, result[2] = {};
  for (const bool contributions : {false, true}) {
    const std::string outcome = misuse_outcome([&] {
      proxy::PlanSpec spec("band");
      if (contributions) spec.allreduce(MPI_COMM_WORLD, {send, send}, result, 2, MPI_DOUBLE, MPI_BAND);
      else spec.allreduce(MPI_COMM_WORLD, send, result, 2, MPI_DOUBLE, MPI_BAND);
      const proxy::Plan plan = proxy.commit(spec);
      proxy.wait(proxy.start(plan));
    });
    const std::string expected = proxy::persistent_collectives_available()
                                     ? "Error: plan 'band': allreduce element 0: MPI_Allreduce_init failed at commit: "
                                     : "CommError: plan 'band' epoch 1";
    EXPECT_EQ(outcome.rfind(expected, 0), 0u) << outcome;
    EXPECT_EQ(outcome.find('\n'), std::string::npos) << outcome;  // MPI's text on one line
  }
  expect_a_ring_still_runs(proxy);
}

// A derived datatype never committed: refused at commit by every entry point that takes one (a send, a receive, a
// collective element, contributions), naming the plan, the element and its peer, before any request exists. Before,
// MPI refused it when the request was made: a CommError of "epoch 0" for transfers (nothing had started) and, for a
// non-blocking collective (Open MPI), a CommError at the first wait.
TEST(ApiMisuse, UncommittedDatatypesAreRefusedAtCommitNamingTheElementAndItsPeer) {
  proxy::ProxyThread proxy;
  const int right = (proxy.rank() + 1) % proxy.size();
  const int left = (proxy.rank() + proxy.size() - 1) % proxy.size();
  MPI_Datatype pair = MPI_DATATYPE_NULL;  // two doubles, not committed yet
  proxy.call([&] { MPI_Type_contiguous(2, MPI_DOUBLE, &pair); });
  double out[2] = {1.0 + proxy.rank(), 2.0}, in[2] = {}, a[2] = {1.0, 2.0}, b[2] = {3.0, 4.0};
  const auto commit = [&](const char* name, const std::function<void(proxy::PlanSpec&)>& build) {
    return misuse_outcome([&] {
      proxy::PlanSpec spec(name);
      build(spec);
      proxy.commit(spec);
    });
  };
  const std::string not_committed =
      " has a datatype that is not committed: call MPI_Type_commit on it before committing the plan";
  EXPECT_EQ(commit("send", [&](auto& s) { s.recv(left, 3, in, 2, MPI_DOUBLE).send(right, 4, out, 1, pair); }),
            "Error: plan 'send': transfer 1 (send to rank " + std::to_string(right) + " tag 4)" + not_committed);
  EXPECT_EQ(commit("recv", [&](auto& s) { s.recv(left, 5, in, 1, pair); }),
            "Error: plan 'recv': transfer 0 (recv from rank " + std::to_string(left) + " tag 5)" + not_committed);
  EXPECT_EQ(commit("bcast", [&](auto& s) { s.broadcast(MPI_COMM_WORLD, 0, in, 1, pair); }),
            "Error: plan 'bcast': broadcast element 0" + not_committed);
  EXPECT_EQ(commit("dot", [&](auto& s) {
              s.allreduce(MPI_COMM_WORLD, out, in, 2, MPI_DOUBLE, MPI_SUM)
                  .allreduce(MPI_COMM_WORLD, {a, b}, in, 1, pair, MPI_SUM);
            }),
            "Error: plan 'dot': allreduce element 1" + not_committed);
  // A transfer to MPI_PROC_NULL is never made (the plan drops it): nothing to refuse.
  EXPECT_EQ(commit("nowhere", [&](auto& s) { s.send(MPI_PROC_NULL, 0, out, 1, pair); }), "(no exception)");
  // Committed, the same transfers commit and run.
  proxy.call([&] { MPI_Type_commit(&pair); });
  proxy::PlanSpec ring("ring");
  ring.send(right, 4, out, 1, pair).recv(left, 4, in, 1, pair);
  proxy.wait(proxy.start(proxy.commit(ring)));
  EXPECT_EQ(in[0], 1.0 + left);
  EXPECT_EQ(in[1], 2.0);
  proxy.call([&] { MPI_Type_free(&pair); });
  expect_a_ring_still_runs(proxy);
}

// A hierarchical element whose staging buffer (a reduce's, or an allreduce's whose result overlaps a contribution)
// would take more than this process can allocate is refused at commit before anything is allocated, naming the
// plan, the element, the count and the bytes; it was a std::bad_alloc naming nothing.
TEST(ApiMisuse, AStagingBufferLargerThanMemoryIsRefusedAtCommitBeforeAllocating) {
  proxy::ProxyThread proxy;
  MPI_Datatype block = MPI_DATATYPE_NULL;  // 2^20 doubles: 8 MiB per element
  proxy.call([&] {
    MPI_Type_contiguous(1 << 20, MPI_DOUBLE, &block);
    MPI_Type_commit(&block);
  });
  double a = 0.0, b = 0.0, result = 0.0;  // never read: the commit is refused
  const auto commit = [&](const char* name, const std::function<void(proxy::PlanSpec&)>& build) {
    return misuse_outcome([&] {
      proxy::PlanSpec spec(name);
      build(spec);
      proxy.commit(spec);
    });
  };
  // The exact words up to the amount available, which is this machine's.
  const std::string needs = " needs a staging buffer of 8.0 TiB (count 1048576 of 8388608 bytes), more than this "
                            "process can allocate: ";
  const std::regex available("[0-9.]+ [KMGTPE]?i?B available \\((the host's MemAvailable|the cgroup's memory "
                             "limit|RLIMIT_AS)\\)");
  const auto expect_refusal = [&](const std::string& outcome, const std::string& words) {
    EXPECT_EQ(outcome.substr(0, words.size()), words) << outcome;
    EXPECT_TRUE(std::regex_match(outcome.substr(std::min(words.size(), outcome.size())), available)) << outcome;
  };
  const int count = 1 << 20;
  const MPI_Comm world = MPI_COMM_WORLD;
  expect_refusal(commit("huge", [&](auto& s) { s.reduce(world, 0, {&a, &b}, &result, count, block, MPI_SUM); }),
                 "Error: plan 'huge': reduce element 0" + needs);
  expect_refusal(commit("overlap", [&](auto& s) { s.allreduce(world, {&a, &b}, &a, count, block, MPI_SUM); }),
                 "Error: plan 'overlap': allreduce element 0" + needs);
  // An element type of 2 GiB (2^28 doubles), where MPI_Type_size gives MPI_UNDEFINED: counted in 64 bits (it
  // was refused as "a non-contiguous datatype (size -32766, extent 2147483648)").
  MPI_Datatype giant = MPI_DATATYPE_NULL;
  proxy.call([&] {
    MPI_Type_contiguous(1 << 28, MPI_DOUBLE, &giant);
    MPI_Type_commit(&giant);
  });
  expect_refusal(commit("giant", [&](auto& s) { s.reduce(world, 0, {&a, &b}, &result, count, giant, MPI_SUM); }),
                 "Error: plan 'giant': reduce element 0 needs a staging buffer of 2.0 PiB (count 1048576 of "
                 "2147483648 bytes), more than this process can allocate: ");
  proxy.call([&] {
    MPI_Type_free(&giant);
    MPI_Type_free(&block);
  });
  expect_a_ring_still_runs(proxy);
}

// Contributions and a result at addresses MPI accepts but a double does not (odd ones): the sum is exact, and the
// proxy reduces them through MPI_Reduce_local rather than its kernels, which read double* (no strips run).
TEST(ApiMisuse, MisalignedContributionsAreReducedExactlyWithoutTheAlignedKernels) {
  proxy::ProxyThread proxy;
  constexpr int kCount = 8192;  // 64 KiB per contribution: large enough for the kernels' strips when aligned
  std::vector<unsigned char> storage(3 * kCount * sizeof(double) + 64);
  const auto at = [&](int block, int offset) { return storage.data() + 16 + block * kCount * 8 + offset; };
  for (const int offset : {0, 1}) {
    for (int i = 0; i < kCount; ++i) {
      const double first = i, second = 2.0 * i + proxy.rank();
      std::memcpy(at(0, offset) + 8 * i, &first, 8);
      std::memcpy(at(1, offset) + 8 * i, &second, 8);
    }
    proxy::PlanSpec spec(offset == 0 ? "aligned" : "misaligned");
    spec.allreduce(MPI_COMM_WORLD, {at(0, offset), at(1, offset)}, at(2, offset), kCount, MPI_DOUBLE, MPI_SUM);
    const proxy::Plan plan = proxy.commit(spec);
    const std::uint64_t strips_before = proxy.statistics().strips;
    proxy.wait(proxy.start(plan));
    const std::uint64_t strips = proxy.statistics().strips - strips_before;
    const int size = proxy.size();
    for (const int i : {0, 1, kCount / 2, kCount - 1}) {
      double sum = 0.0;
      std::memcpy(&sum, at(2, offset) + 8 * i, 8);
      EXPECT_EQ(sum, 3.0 * i * size + size * (size - 1) / 2.0) << "offset " << offset << " element " << i;
    }
    if (offset == 0) EXPECT_GT(strips, 0u);
    else EXPECT_EQ(strips, 0u);
  }
}

// A plan started again while the proxy completes its epoch: the second start is refused ("started again") or
// taken (the epoch had completed), never a crash. It rethrew a null error (SIGSEGV) when the completion came
// between the start's two reads of the completed epoch.
TEST(ApiMisuse, AStartRacingItsEpochsCompletionIsRefusedOrTakenNeverACrash) {
  proxy::ProxyThread proxy;
  int x = 0;
  proxy::PlanSpec spec("racing");
  spec.send(MPI_PROC_NULL, 0, &x, 1, MPI_INT);  // completes as soon as the proxy takes it
  const proxy::Plan plan = proxy.commit(spec);
#if defined(__SANITIZE_THREAD__)
  constexpr int kRounds = 2000;  // ThreadSanitizer runs this ~30x slower; the race shows in a few hundred
#else
  constexpr int kRounds = 20000;
#endif
  int refused = 0;
  for (int round = 0; round < kRounds; ++round) {
    const proxy::Ticket first = proxy.start(plan);
    try {
      proxy.wait(proxy.start(plan));
    } catch (const proxy::Error& e) {
      ++refused;
      ASSERT_EQ(std::string(e.what()), "plan 'racing' started again (epoch " + std::to_string(first.epoch + 1) +
                                           ") before epoch " + std::to_string(first.epoch) +
                                           " completed: wait on its ticket first");
      proxy.wait(first);
    }
  }
  RecordProperty("refused", refused);
}

// Collective elements that differ between the ranks: every rank refuses the commit with the same words (the
// values on some ranks and on others), and nothing is created.
TEST(ApiMisuse, CollectiveElementsThatDifferBetweenRanksAreRefusedAtCommitOnEveryRank) {
  proxy::ProxyThread proxy;
  const int rank = proxy.rank();
  const int last = proxy.size() - 1;
  std::vector<double> send(8, 1.0), result(8, 0.0);
  const auto commit = [&](const char* name, const std::function<void(proxy::PlanSpec&)>& build) {
    return misuse_outcome([&] {
      proxy::PlanSpec spec(name);
      build(spec);
      proxy.commit(spec);
    });
  };
  const MPI_Comm world = MPI_COMM_WORLD;
  EXPECT_EQ(commit("count", [&](auto& s) {
              s.allreduce(world, send.data(), result.data(), rank == 0 ? 2 : 4, MPI_DOUBLE, MPI_SUM);
            }),
            std::string("Error: plan 'count': allreduce element 0 has 16 bytes on some ranks and 32 on others (here ") +
                "count " + (rank == 0 ? "2" : "4") + " of 8 bytes): every rank must give the same count and type");
  // The same bytes in another type are MPI's business (the type signatures), not refused here.
  EXPECT_EQ(commit("type", [&](auto& s) {
              s.broadcast(world, 0, result.data(), rank == 0 ? 2 : 4, rank == 0 ? MPI_DOUBLE : MPI_FLOAT);
            }),
            "(no exception)");
  EXPECT_EQ(commit("type", [&](auto& s) {
              s.reduce(world, 0, send.data(), result.data(), 2, rank == last ? MPI_FLOAT : MPI_DOUBLE, MPI_SUM);
            }),
            std::string("Error: plan 'type': reduce element 0 has 8 bytes on some ranks and 16 on others (here ") +
                "count 2 of " + (rank == last ? "4" : "8") + " bytes): every rank must give the same count and type");
  EXPECT_EQ(commit("root", [&](auto& s) { s.broadcast(world, rank == last ? last : 0, result.data(), 2, MPI_DOUBLE); }),
            "Error: plan 'root': broadcast element 0 names root 0 on some ranks and " + std::to_string(last) +
                " on others: every rank must name the same root");
  EXPECT_EQ(commit("op", [&](auto& s) {
              s.allreduce(world, send.data(), result.data(), 1, MPI_DOUBLE, rank == 0 ? MPI_SUM : MPI_MAX);
            }),
            "Error: plan 'op': allreduce element 0 has operation MPI_SUM on some ranks and MPI_MAX on others: every "
            "rank must give the same operation");
  EXPECT_EQ(commit("kind", [&](auto& s) {
              if (rank == 0) s.broadcast(world, 0, result.data(), 1, MPI_DOUBLE);
              else s.allreduce(world, send.data(), result.data(), 1, MPI_DOUBLE, MPI_SUM);
            }),
            "Error: plan 'kind': collective element 0 is a broadcast on some ranks and an allreduce on others");
  EXPECT_EQ(commit("number", [&](auto& s) {
              s.broadcast(world, 0, result.data(), 1, MPI_DOUBLE);
              if (rank == last) s.broadcast(world, 0, result.data() + 1, 1, MPI_DOUBLE);
            }),
            "Error: plan 'number': its collective elements on the communicator of its broadcast element 0 number 1 on "
            "some ranks and 2 on others: every rank commits the same elements in the same order");
  // One rank refuses its own element: it names why, the others that it was refused.
  EXPECT_EQ(commit("one-refuses", [&](auto& s) {
              s.allreduce(world, send.data(), rank == last ? nullptr : result.data(), 1, MPI_DOUBLE, MPI_SUM);
            }),
            rank == last ? "Error: plan 'one-refuses': allreduce element 0 has a null buffer for count 1"
                         : "Error: plan 'one-refuses': refused on another rank of the communicator of its allreduce "
                           "element 0 (that rank's error names why)");
  EXPECT_EQ(commit("one-refuses-a-transfer", [&](auto& s) {
              s.send(MPI_PROC_NULL, rank == last ? -1 : 0, send.data(), 1, MPI_DOUBLE);
              s.allreduce(world, send.data(), result.data(), 1, MPI_DOUBLE, MPI_SUM);
            }),
            rank == last ? "Error: plan 'one-refuses-a-transfer': transfer 0 has tag -1, outside [0, " +
                               std::to_string(misuse_tag_upper_bound(proxy)) + "]"
                         : "Error: plan 'one-refuses-a-transfer': refused on another rank of the communicator of its "
                           "allreduce element 0 (that rank's error names why)");
  // What agrees commits and runs: the sum over the ranks.
  proxy::PlanSpec good("good");
  good.allreduce(world, send.data(), result.data(), 4, MPI_DOUBLE, MPI_SUM);
  proxy.wait(proxy.start(proxy.commit(good)));
  EXPECT_EQ(result[3], static_cast<double>(proxy.size()));
  expect_a_ring_still_runs(proxy);
}

}  // namespace
