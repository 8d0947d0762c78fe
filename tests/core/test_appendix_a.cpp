// The thesis's Appendix A API drives a 1-D ring exchange: commFn(iter) posts Isend/Irecv on the proxy
// thread and tracks the requests; waitComm(iter) returns when they have completed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "proxy/appendix_a.hpp"

namespace {

proxy::appendix_a::ProxyThread* the_proxy = nullptr;
int rank_ = 0, size_ = 1;
std::vector<double> send_buf(64), recv_left(64), recv_right(64);

int handleCommunication(int iteration) {
  const MPI_Comm comm = the_proxy->comm();
  const int left = (rank_ + size_ - 1) % size_, right = (rank_ + 1) % size_;
  MPI_Request r[4];
  MPI_Irecv(recv_left.data(), 64, MPI_DOUBLE, left, iteration % 2, comm, &r[0]);
  MPI_Irecv(recv_right.data(), 64, MPI_DOUBLE, right, 2 + iteration % 2, comm, &r[1]);
  MPI_Isend(send_buf.data(), 64, MPI_DOUBLE, right, iteration % 2, comm, &r[2]);
  MPI_Isend(send_buf.data(), 64, MPI_DOUBLE, left, 2 + iteration % 2, comm, &r[3]);
  for (MPI_Request& req : r) proxy::appendix_a::ProxyThread::track(req);
  return 0;
}

double value(int rank, int iteration, int i) { return rank * 1000.0 + iteration + i / 100.0; }

TEST(AppendixA, RingExchangeDeliversEachIterationsValues) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  proxy::appendix_a::ProxyThread proxy;
  the_proxy = &proxy;
  ASSERT_EQ(proxy.init(1, handleCommunication), 0);
  EXPECT_EQ(proxy.num_threads(), 1);
  const int left = (rank_ + size_ - 1) % size_, right = (rank_ + 1) % size_;
  int wrong = 0;
  for (int iter = 0; iter <= 10; ++iter) {
    for (int i = 0; i < 64; ++i) send_buf[static_cast<std::size_t>(i)] = value(rank_, iter, i);
    ASSERT_EQ(proxy.startComm(iter), 0);
    // doInnerComputation() would run here.
    ASSERT_EQ(proxy.waitComm(iter), 0);
    for (int i = 0; i < 64; ++i) {
      wrong += recv_left[static_cast<std::size_t>(i)] != value(left, iter, i);
      wrong += recv_right[static_cast<std::size_t>(i)] != value(right, iter, i);
    }
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_NE(proxy.waitComm(99), 0) << "waiting for an iteration never started must fail";
  the_proxy = nullptr;
}

TEST(AppendixA, CallsBeforeInitFail) {
  proxy::appendix_a::ProxyThread proxy;
  EXPECT_NE(proxy.startComm(0), 0);
  EXPECT_NE(proxy.init(0, handleCommunication), 0);
}

}  // namespace
