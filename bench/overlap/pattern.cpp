#include "pattern.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <utility>

#include "proxy/detail/counted.hpp"
#include "proxy/harness/timed_wait.hpp"
#include "proxy/plan.hpp"

namespace overlap {
namespace {

// A message pair with one peer: what p2p and halo are made of.
struct Message {
  int peer = MPI_PROC_NULL;
  int tag = 0;  // the sender's direction; the receiver matches it from the opposite neighbour
  int from = MPI_PROC_NULL;
  std::vector<std::byte> send;
  std::vector<std::byte> recv;
};

// The progress point of the careful async user ("async-test"): MPI_Testall over the step's requests, as
// often as the proxy's progress points come, so that MPI moves the step along during the compute.
void test_all(std::span<MPI_Request> requests) {
  int done = 0;
  MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
}

class AsyncMessages final : public Exchange {
 public:
  AsyncMessages(MPI_Comm comm, std::vector<Message>& messages, bool test) : comm_(comm), messages_(messages), test_(test) {}
  void start() override {
    requests_.clear();
    for (auto& m : messages_) {
      requests_.emplace_back();
      MPI_Irecv(m.recv.data(), static_cast<int>(m.recv.size()), MPI_BYTE, m.from, m.tag, comm_, &requests_.back());
    }
    for (auto& m : messages_) {
      requests_.emplace_back();
      MPI_Isend(m.send.data(), static_cast<int>(m.send.size()), MPI_BYTE, m.peer, m.tag, comm_, &requests_.back());
    }
  }
  // Bounded by PROXY_WAIT_TIMEOUT: a peer that never answers ends the run naming it (start()'s order: a
  // receive per message, then a send per message).
  void wait() override {
    const auto count = static_cast<int>(messages_.size());
    proxy::harness::wait_all(
        requests_, [&](int i) { return i < count ? messages_[i].from : messages_[i - count].peer; },
        [&](int i) {
          return i < count ? "no message from rank " + std::to_string(messages_[i].from)
                           : "rank " + std::to_string(messages_[i - count].peer) + " did not receive our message";
        });
  }
  void progress_point() override {
    if (test_) test_all(requests_);
  }

 private:
  MPI_Comm comm_;
  std::vector<Message>& messages_;
  bool test_;
  std::vector<MPI_Request> requests_;
};

class ProxyPlan final : public Exchange {
 public:
  ProxyPlan(proxy::ProxyThread& proxy, const std::string& name, std::vector<Message>& messages) : proxy_(proxy) {
    proxy::PlanSpec spec(name);
    for (auto& m : messages) spec.recv(m.from, m.tag, m.recv.data(), static_cast<int>(m.recv.size()), MPI_BYTE);
    for (auto& m : messages) spec.send(m.peer, m.tag, m.send.data(), static_cast<int>(m.send.size()), MPI_BYTE);
    plan_ = proxy.commit(spec);
  }
  void start() override { ticket_ = proxy_.start(plan_); }
  void wait() override { proxy_.wait(ticket_); }
  void progress_point() override { proxy_.progress_point(); }

 private:
  proxy::ProxyThread& proxy_;
  proxy::Plan plan_;
  proxy::Ticket ticket_;
};

// Shared by p2p and halo: a list of messages with fixed peers.
class MessagePattern : public Pattern {
 public:
  std::size_t bytes() const override {
    std::size_t total = 0;
    for (const auto& m : messages_) total += m.send.size() + m.recv.size();
    return total;
  }
  std::unique_ptr<Exchange> make_async(MPI_Comm comm, bool test) override {
    return std::make_unique<AsyncMessages>(comm, messages_, test);
  }
  std::unique_ptr<Exchange> make_proxy(proxy::ProxyThread& proxy) override {
    return std::make_unique<ProxyPlan>(proxy, name(), messages_);
  }

 protected:
  void add(int to, int from, int tag, std::size_t size) {
    Message m;
    m.peer = to;
    m.from = from;
    m.tag = tag;
    m.send.assign(size, std::byte{1});
    m.recv.assign(size, std::byte{0});
    messages_.push_back(std::move(m));
  }
  std::vector<Message> messages_;
};

class PointToPoint final : public MessagePattern {
 public:
  PointToPoint(MPI_Comm comm, std::size_t bytes) : size_(bytes) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    const int partner = (rank ^ 1) < ranks ? (rank ^ 1) : MPI_PROC_NULL;
    add(partner, partner, 0, bytes);
  }
  std::string name() const override { return "p2p"; }
  std::string shape() const override { return std::to_string(size_) + " B each way"; }

 private:
  std::size_t size_;
};

class Halo final : public MessagePattern {
 public:
  Halo(MPI_Comm comm, int edge) : edge_(edge) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    std::array<int, 3> dims{0, 0, 0};
    MPI_Dims_create(ranks, 3, dims.data());
    dims_ = dims;
    // Row-major coordinates (as MPI_Cart_create would number them), periodic in every dimension.
    const std::array<int, 3> coord{rank / (dims[1] * dims[2]), rank / dims[2] % dims[1], rank % dims[2]};
    auto rank_of = [&](std::array<int, 3> c) { return (c[0] * dims[1] + c[1]) * dims[2] + c[2]; };
    const std::size_t face = static_cast<std::size_t>(edge) * edge * sizeof(double);
    for (int d = 0; d < 3; ++d) {
      if (dims[d] == 1) continue;  // no neighbour along this axis: the face is a physical boundary
      for (int step : {+1, -1}) {
        auto to = coord, from = coord;
        to[d] = (coord[d] + step + dims[d]) % dims[d];
        from[d] = (coord[d] - step + dims[d]) % dims[d];
        add(rank_of(to), rank_of(from), 2 * d + (step > 0 ? 0 : 1), face);
      }
    }
  }
  std::string name() const override { return "halo"; }
  std::string shape() const override {
    return "edge " + std::to_string(edge_) + ", grid " + std::to_string(dims_[0]) + "x" + std::to_string(dims_[1]) +
           "x" + std::to_string(dims_[2]) + ", " + proxy::detail::counted(messages_.size(), "face");
  }

 private:
  int edge_;
  std::array<int, 3> dims_{};
};

class PanelBroadcast final : public Pattern {
 public:
  PanelBroadcast(MPI_Comm comm, int n, int panel) : n_(n), panel_(panel) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    std::array<int, 2> dims{0, 0};
    MPI_Dims_create(ranks, 2, dims.data());
    rows_ = dims[0];
    cols_ = dims[1];
    row_ = rank / cols_;
    col_ = rank % cols_;
    MPI_Comm_split(comm, row_, col_, &row_comm_);  // my process row: A panels travel along it
    MPI_Comm_split(comm, col_, row_, &col_comm_);  // my process column: B panels travel down it
    a_panel_.assign(static_cast<std::size_t>(n / rows_) * panel, 1.0);
    b_panel_.assign(static_cast<std::size_t>(n / cols_) * panel, 1.0);
  }
  ~PanelBroadcast() override {
    MPI_Comm_free(&row_comm_);
    MPI_Comm_free(&col_comm_);
  }
  std::string name() const override { return "bcast"; }
  std::string shape() const override {
    return "n " + std::to_string(n_) + ", panel " + std::to_string(panel_) + ", grid " + std::to_string(rows_) +
           "x" + std::to_string(cols_);
  }
  std::size_t bytes() const override { return (a_panel_.size() + b_panel_.size()) * sizeof(double); }

  // Posts step k's two broadcasts (any thread that may call MPI).
  void post(std::uint64_t k, MPI_Request* requests) {
    MPI_Ibcast(a_panel_.data(), static_cast<int>(a_panel_.size()), MPI_DOUBLE, static_cast<int>(k % cols_),
               row_comm_, &requests[0]);
    MPI_Ibcast(b_panel_.data(), static_cast<int>(b_panel_.size()), MPI_DOUBLE, static_cast<int>(k % rows_),
               col_comm_, &requests[1]);
  }

  std::unique_ptr<Exchange> make_async(MPI_Comm, bool test) override;
  std::unique_ptr<Exchange> make_proxy(proxy::ProxyThread& proxy) override;

 private:
  int n_, panel_;
  int rows_ = 1, cols_ = 1, row_ = 0, col_ = 0;
  MPI_Comm row_comm_ = MPI_COMM_NULL;
  MPI_Comm col_comm_ = MPI_COMM_NULL;
  std::vector<double> a_panel_, b_panel_;
};

class AsyncBroadcast final : public Exchange {
 public:
  AsyncBroadcast(PanelBroadcast& pattern, bool test) : pattern_(pattern), test_(test) {}
  void start() override { pattern_.post(step_++, requests_.data()); }
  void wait() override {
    proxy::harness::wait_all(requests_, [](int) { return -1; }, [](int i) {
      return std::string(i == 0 ? "the A panel's broadcast along the row" : "the B panel's broadcast down the column") +
             ": not every rank joined it";
    });
  }
  void progress_point() override {
    if (test_) test_all(requests_);
  }

 private:
  PanelBroadcast& pattern_;
  bool test_;
  std::uint64_t step_ = 0;
  std::array<MPI_Request, 2> requests_{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
};

class ProxyBroadcast final : public Exchange {
 public:
  ProxyBroadcast(PanelBroadcast& pattern, proxy::ProxyThread& proxy) : pattern_(pattern), proxy_(proxy) {}
  void start() override {
    const std::uint64_t k = step_++;
    ticket_ = proxy_.submit([this, k](proxy::ClosureContext& context) {
      std::array<MPI_Request, 2> requests{};
      pattern_.post(k, requests.data());
      context.track(requests[0]);
      context.track(requests[1]);
    });
  }
  void wait() override { proxy_.wait(ticket_); }
  void progress_point() override { proxy_.progress_point(); }

 private:
  PanelBroadcast& pattern_;
  proxy::ProxyThread& proxy_;
  std::uint64_t step_ = 0;
  proxy::Ticket ticket_;
};

std::unique_ptr<Exchange> PanelBroadcast::make_async(MPI_Comm, bool test) {
  return std::make_unique<AsyncBroadcast>(*this, test);
}
std::unique_ptr<Exchange> PanelBroadcast::make_proxy(proxy::ProxyThread& proxy) {
  return std::make_unique<ProxyBroadcast>(*this, proxy);
}

}  // namespace

std::unique_ptr<Pattern> make_point_to_point(MPI_Comm comm, std::size_t bytes) {
  return std::make_unique<PointToPoint>(comm, bytes);
}
std::unique_ptr<Pattern> make_halo(MPI_Comm comm, int edge) { return std::make_unique<Halo>(comm, edge); }
std::unique_ptr<Pattern> make_panel_broadcast(MPI_Comm comm, int n, int panel) {
  return std::make_unique<PanelBroadcast>(comm, n, panel);
}

}  // namespace overlap
