// Unit tests of the mode harness without MPI: mode names and their exact errors, the threads check, and
// the timing columns' arithmetic (other = total - compute - comm; means keep the sum).
#include <gtest/gtest.h>

#include <string>

#include <proxy/harness/mode.hpp>
#include <proxy/harness/timings.hpp>

namespace {

using proxy::harness::InvalidSettings;
using proxy::harness::Mode;

std::string message_of(void (*fn)()) {
  try {
    fn();
  } catch (const InvalidSettings& error) {
    return error.what();
  }
  return "(no exception)";
}

TEST(Mode, NamesRoundTrip) {
  for (Mode mode : {Mode::sync, Mode::async, Mode::mt, Mode::proxy})
    EXPECT_EQ(proxy::harness::parse_mode(proxy::harness::to_string(mode)), mode);
  EXPECT_TRUE(proxy::harness::is_multi_tier(Mode::mt));
  EXPECT_FALSE(proxy::harness::is_multi_tier(Mode::async));
  EXPECT_TRUE(proxy::harness::overlaps(Mode::async));
  EXPECT_FALSE(proxy::harness::overlaps(Mode::mt));
}

TEST(Mode, UnknownNameIsOneExactLine) {
  EXPECT_EQ(message_of([] { proxy::harness::parse_mode("Sync"); }),
            "--mode: unknown value 'Sync' (expected sync, async, mt or proxy)");
  EXPECT_EQ(message_of([] { proxy::harness::parse_mode(""); }),
            "--mode: unknown value '' (expected sync, async, mt or proxy)");
}

TEST(Mode, ThreadsOnlyForMultiTierModes) {
  EXPECT_NO_THROW(proxy::harness::check_threads(Mode::sync, 1));
  EXPECT_NO_THROW(proxy::harness::check_threads(Mode::async, 0));
  EXPECT_NO_THROW(proxy::harness::check_threads(Mode::proxy, 7));
  EXPECT_EQ(message_of([] { proxy::harness::check_threads(Mode::async, 2); }),
            "--threads 2 needs --mode mt or proxy (async runs one thread per rank)");
  EXPECT_EQ(message_of([] { proxy::harness::check_threads(Mode::mt, -1); }),
            "--threads must be at least 0 (0 = one per core), got '-1'");
}

TEST(Timings, OtherIsWhatComputeAndCommLeave) {
  const proxy::harness::Timings t{10.0, 6.0, 3.5, 2.0};
  EXPECT_DOUBLE_EQ(t.other_s(), 0.5);
  EXPECT_DOUBLE_EQ(t.compute_s + t.comm_s + t.other_s(), t.total_s);
}

TEST(Timings, MeanKeepsTheColumnsAddingUp) {
  const std::vector<proxy::harness::Timings> runs{{4.0, 2.0, 1.5, 1.0}, {8.0, 5.0, 2.5, 0.5}};
  const proxy::harness::Timings m = proxy::harness::mean(runs);
  EXPECT_DOUBLE_EQ(m.total_s, 6.0);
  EXPECT_DOUBLE_EQ(m.compute_s, 3.5);
  EXPECT_DOUBLE_EQ(m.comm_s, 2.0);
  EXPECT_DOUBLE_EQ(m.wait_s, 0.75);
  EXPECT_DOUBLE_EQ(m.other_s(), 0.5);
  EXPECT_DOUBLE_EQ(proxy::harness::mean({}).total_s, 0.0);
}

}  // namespace
