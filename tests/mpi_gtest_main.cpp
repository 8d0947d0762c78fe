// main() for GoogleTest programs that run on several MPI ranks: every rank runs every test in the same
// order (so collective set-up inside tests matches), only rank 0 prints the progress, every other rank
// prints its failures (each line prefixed with its rank), and the exit code is the same on all ranks
// (non-zero if any rank failed any test).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "mpi_test_util.hpp"
#include "proxy/environment.hpp"

namespace {
const proxy::Environment* the_environment = nullptr;

// What a rank other than 0 prints: its failed assertions, where and why, and nothing else.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::fprintf(stderr, "rank %d: %s.%s: %s:%d: %s\n", rank_, test != nullptr ? test->test_suite_name() : "?",
                 test != nullptr ? test->name() : "?", result.file_name() != nullptr ? result.file_name() : "?",
                 result.line_number(), result.message());
  }

 private:
  int rank_;
};
}  // namespace

const proxy::Environment& proxy::test_util::environment() { return *the_environment; }

int main(int argc, char** argv) try {
  proxy::Environment env(argc, argv);
  the_environment = &env;
  ::testing::InitGoogleTest(&argc, argv);
  if (env.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(env.rank()));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed) std::fprintf(stderr, "rank %d: some tests failed\n", env.rank());
  return any_failed;
} catch (const proxy::SettingsError& refused) {  // every rank; one of them says why
  return refused.exit_status();
}
