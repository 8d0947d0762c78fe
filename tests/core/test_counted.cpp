// Counts in messages agree with their noun (<proxy/detail/counted.hpp>): "1 rank", never "1 ranks" or "(1 bytes)".
#include <gtest/gtest.h>

#include "proxy/detail/counted.hpp"

namespace {

using proxy::detail::counted;

TEST(Counted, OneIsSingularEveryOtherCountPlural) {
  EXPECT_EQ(counted(1, "rank"), "1 rank");
  EXPECT_EQ(counted(-1, "byte"), "-1 byte");
  EXPECT_EQ(counted(0, "rank"), "0 ranks");
  EXPECT_EQ(counted(2, "compute thread"), "2 compute threads");
  EXPECT_EQ(counted(1LL << 40, "byte"), "1099511627776 bytes");
}

TEST(Counted, IrregularPluralIsGiven) {
  EXPECT_EQ(counted(1, "process", "processes"), "1 process");
  EXPECT_EQ(counted(3, "process", "processes"), "3 processes");
  EXPECT_EQ(counted(1, "entry", "entries"), "1 entry");
  EXPECT_EQ(counted(4, "entry", "entries"), "4 entries");
}

// Durations in timeout lines: PROXY_WAIT_TIMEOUT's least, 10 ms, printed "after 0.0 s".
TEST(SecondsText, TenthsAboveATenthTwoDigitsBelow) {
  using proxy::detail::seconds_text;
  EXPECT_EQ(seconds_text(std::chrono::milliseconds(120'000)), "120.0 s");
  EXPECT_EQ(seconds_text(std::chrono::milliseconds(5'000)), "5.0 s");
  EXPECT_EQ(seconds_text(3.46), "3.5 s");
  EXPECT_EQ(seconds_text(0.1), "0.1 s");
  EXPECT_EQ(seconds_text(std::chrono::milliseconds(10)), "0.01 s");
  EXPECT_EQ(seconds_text(0.0153), "0.015 s");
}

}  // namespace
