// main() for GoogleTest programs that run on several MPI ranks: every rank runs every test in the same
// order (so collective set-up inside tests matches), only rank 0 prints the progress, every other rank
// prints its failures (each line prefixed with its rank), and the exit code is the same on all ranks
// (non-zero if any rank failed any test).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>

#include "mpi_test_util.hpp"
#include "proxy/environment.hpp"

namespace {
const proxy::Environment* the_environment = nullptr;

// What a rank other than 0 prints: its failed assertions, where and why, and nothing else. The test's name
// is kept from OnTestStart: UnitTest::current_test_info() takes the lock that AddTestPartResult holds
// while it calls OnTestPartResult (asking there deadlocks).
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestStart(const ::testing::TestInfo& test) override {
    test_ = std::string(test.test_suite_name()) + "." + test.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    // Every line of the message prefixed too: the ranks' lines interleave.
    std::string text = "rank " + std::to_string(rank_) + ": " + test_ + ": " +
                       (result.file_name() != nullptr ? result.file_name() : "?") + ":" +
                       std::to_string(result.line_number()) + ": ";
    for (const char* c = result.message(); *c != '\0'; ++c)
      text += *c == '\n' ? "\nrank " + std::to_string(rank_) + ":   " : std::string(1, *c);
    std::fprintf(stderr, "%s\n", text.c_str());
  }

 private:
  int rank_;
  std::string test_ = "(outside a test)";
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
