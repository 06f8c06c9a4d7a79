#include "common/engine_log.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace smr {
namespace {

TEST(LogTest, SinkGetsEachLineWithItsLevelAndTheDefaultComesBack) {
  std::vector<std::pair<LogLevel, std::string>> got;
  LogSink old = SetLogSink([&got](LogLevel l, const std::string& s) { got.emplace_back(l, s); });
  Log(LogLevel::kError, "commit group failed: %s (%d)", "NoSpace", 28);
  Log(LogLevel::kInfo, "realm %u converted", 7u);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].first, LogLevel::kError);
  EXPECT_EQ(got[0].second, "commit group failed: NoSpace (28)");
  EXPECT_EQ(got[1].first, LogLevel::kInfo);
  EXPECT_EQ(got[1].second, "realm 7 converted");
  // Restoring: the capturing sink no longer sees lines; stderr gets "smrstore: " + text.
  SetLogSink(std::move(old));
  testing::internal::CaptureStderr();
  Log(LogLevel::kWarning, "to stderr %d", 1);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "smrstore: to stderr 1\n");
  EXPECT_EQ(got.size(), 2u);
}

TEST(LogTest, LongLinesAreNotCut) {
  std::string got;
  LogSink old = SetLogSink([&got](LogLevel, const std::string& s) { got = s; });
  const std::string big(5000, 'x');
  Log(LogLevel::kError, "%s!", big.c_str());
  SetLogSink(std::move(old));
  EXPECT_EQ(got, big + "!");
}

}  // namespace
}  // namespace smr
