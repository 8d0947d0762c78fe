// ClosureOperation: arbitrary MPI code run on the proxy thread (the thesis's commFn), completed when the
// requests it tracked have completed.
#include <string>

#include "closure_operation.hpp"
#include "proxy/error.hpp"

namespace proxy {

namespace {
thread_local ClosureContext* current_context = nullptr;

struct CurrentContext {
  explicit CurrentContext(ClosureContext* c) { current_context = c; }
  ~CurrentContext() { current_context = nullptr; }
};
}  // namespace

ClosureContext* ClosureContext::current() noexcept { return current_context; }

ClosureOperation::ClosureOperation(std::function<void(ClosureContext&)> fn, MPI_Comm comm, std::string name)
    : Operation(std::move(name)), fn_(std::move(fn)) {
  context_.comm_ = comm;
}

void ClosureOperation::start(std::uint64_t epoch) {
  epoch_ = epoch;
  context_.requests_.clear();
  {
    CurrentContext scope(&context_);
    fn_(context_);
  }
  outstanding_.store(static_cast<int>(context_.requests_.size()), std::memory_order_relaxed);
}

bool ClosureOperation::progress() {
  auto& requests = context_.requests_;
  if (requests.empty()) return true;
  int flag = 0;
  const int code = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &flag, MPI_STATUSES_IGNORE);
  if (code != MPI_SUCCESS)
    throw CommError(label(), -1, epoch_, "a tracked request failed: " + mpi_error_string(code));
  if (flag) outstanding_.store(0, std::memory_order_relaxed);
  return flag != 0;
}

std::string ClosureOperation::describe_outstanding() const {
  const int n = outstanding_.load(std::memory_order_relaxed);
  return n > 0 ? std::to_string(n) + " tracked request(s) incomplete" : "closure still running or queued";
}

}  // namespace proxy
