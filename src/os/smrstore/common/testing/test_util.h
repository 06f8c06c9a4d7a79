// Helpers shared by every layer's GoogleTest suites: Status assertions and small file
// utilities. Test-only (linked into smrstore_tests, never into a library).
#pragma once

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "common/result.h"
#include "common/status.h"

// Asserts/expects that a Status expression is OK, printing the Status otherwise.
#define ASSERT_OK(expr)                                       \
  do {                                                        \
    ::smr::Status s_ = (expr);                                \
    ASSERT_TRUE(s_.ok()) << #expr << " -> " << s_.ToString(); \
  } while (0)
#define EXPECT_OK(expr)                                       \
  do {                                                        \
    ::smr::Status s_ = (expr);                                \
    EXPECT_TRUE(s_.ok()) << #expr << " -> " << s_.ToString(); \
  } while (0)
// Expects a Status expression to fail with Status::Code::want.
#define EXPECT_CODE(expr, want)                                     \
  do {                                                              \
    ::smr::Status s_ = (expr);                                      \
    EXPECT_TRUE(s_.code() == ::smr::Status::Code::want)             \
        << #expr << " -> " << s_.ToString() << ", expected " #want; \
  } while (0)

// Expects a Result<bool> expression to hold true / false; an error is a failure naming it
// (never read as false).
#define EXPECT_YES(expr) EXPECT_PRED_FORMAT1(::smr::testing::IsBool<true>, expr)
#define EXPECT_NO(expr) EXPECT_PRED_FORMAT1(::smr::testing::IsBool<false>, expr)

namespace smr::testing {

template <bool kWant>
::testing::AssertionResult IsBool(const char* text, const ::smr::Result<bool>& r) {
  if (!r.ok()) return ::testing::AssertionFailure() << text << " -> " << r.status().ToString();
  if (*r != kWant) return ::testing::AssertionFailure() << text << " -> " << (*r ? "true" : "false");
  return ::testing::AssertionSuccess();
}

inline bool PathExists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

inline std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Returns false when the file could not be written completely.
inline bool WriteFileBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return out.good();
}

// Awaits a condition another thread brings about: polls `done` every millisecond until it
// holds (true) or `limit` passed (false: the test reports what never happened). Use it
// instead of sleeping for a guessed time.
template <typename Pred>
bool WaitUntil(Pred done, std::chrono::milliseconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace smr::testing
