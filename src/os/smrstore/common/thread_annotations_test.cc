// Mutex::AssertHeld: the run-time half of the lock rules across components (a component's
// entry point asserts the lock its caller must hold; the analysis cannot see it there).
#include "common/thread_annotations.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "common/engine_log.h"

namespace smr {
namespace {

TEST(MutexAssertHeld, PassesForTheHolderUnderEveryKindOfLock) {
  Mutex mu{"test_mu"};
  {
    MutexLock lock(&mu);
    mu.AssertHeld();
  }
  {
    MutexUniqueLock lock(&mu);
    mu.AssertHeld();
    lock.Unlock();
    lock.Lock();
    mu.AssertHeld();
  }
  mu.Lock();
  mu.AssertHeld();
  mu.Unlock();
}

TEST(MutexAssertHeldDeathTest, AbortsNamingTheMutexWhenNobodyHoldsIt) {
  Mutex mu{"group_mu"};
  EXPECT_DEATH(mu.AssertHeld(), "mutex group_mu not held by the calling thread");
  {
    MutexLock lock(&mu);
  }
  // Released: the holder is forgotten.
  EXPECT_DEATH(mu.AssertHeld(), "mutex group_mu not held");
}

TEST(MutexAssertHeldDeathTest, AbortsWhenAnotherThreadHoldsIt) {
  Mutex mu{"mu"};
  MutexLock lock(&mu);
  // The death test's child runs the statement on its own thread of the forked copy, where
  // the holder recorded is the parent's thread: not the caller.
  EXPECT_DEATH(
      {
        std::thread t([&mu] { mu.AssertHeld(); });
        t.join();
      },
      "mutex mu not held");
}

TEST(MutexAssertHeld, ACondVarWaitHandsTheMutexOverAndTakesItBack) {
  Mutex mu{"mu"};
  CondVar cv;
  bool ready = false;
  bool other_held = false;
  std::thread other([&] {
    MutexLock lock(&mu);
    mu.AssertHeld();  // would abort if the waiter's holder mark were left in place
    other_held = true;
    ready = true;
    cv.NotifyAll();
  });
  {
    MutexUniqueLock lock(&mu);
    while (!ready) cv.Wait(&lock);
    mu.AssertHeld();  // the waiter holds it again after the wait
    EXPECT_TRUE(other_held);
  }
  other.join();
  {
    MutexUniqueLock lock(&mu);
    EXPECT_FALSE(cv.WaitFor(&lock, std::chrono::milliseconds(1)));
    mu.AssertHeld();  // and after a wait that timed out
  }
}

}  // namespace
}  // namespace smr
