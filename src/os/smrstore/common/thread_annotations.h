// Clang thread-safety annotations (no-ops elsewhere) and an annotated mutex.
//
// Contract: fields marked SMR_GUARDED_BY(mu) are only touched with `mu` held; methods marked
// SMR_REQUIRES(mu) are only called with it held. Clang's -Wthread-safety checks both (the
// CMake build turns it on under Clang); GCC compiles them away.
// Where the analysis cannot follow a lock (it compares lock expressions, so a component
// holding a reference to its store's mutex names it differently from the code that took
// it), the callee's entry calls Mutex::AssertHeld: checked when it runs (the calling
// thread must hold the mutex, else the process aborts with the mutex's name), and from
// there on the analysis treats the mutex as held.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#if defined(__clang__)
#define SMR_THREAD_ANNOTATION_(x) __attribute__((x))
#else
#define SMR_THREAD_ANNOTATION_(x)
#endif

#define SMR_CAPABILITY(x) SMR_THREAD_ANNOTATION_(capability(x))
#define SMR_SCOPED_CAPABILITY SMR_THREAD_ANNOTATION_(scoped_lockable)
#define SMR_GUARDED_BY(x) SMR_THREAD_ANNOTATION_(guarded_by(x))
#define SMR_PT_GUARDED_BY(x) SMR_THREAD_ANNOTATION_(pt_guarded_by(x))
#define SMR_REQUIRES(...) SMR_THREAD_ANNOTATION_(requires_capability(__VA_ARGS__))
#define SMR_ACQUIRED_BEFORE(...) SMR_THREAD_ANNOTATION_(acquired_before(__VA_ARGS__))
#define SMR_EXCLUDES(...) SMR_THREAD_ANNOTATION_(locks_excluded(__VA_ARGS__))
#define SMR_ACQUIRE(...) SMR_THREAD_ANNOTATION_(acquire_capability(__VA_ARGS__))
#define SMR_RELEASE(...) SMR_THREAD_ANNOTATION_(release_capability(__VA_ARGS__))
#define SMR_ASSERT_CAPABILITY(x) SMR_THREAD_ANNOTATION_(assert_capability(x))
#define SMR_NO_THREAD_SAFETY_ANALYSIS SMR_THREAD_ANNOTATION_(no_thread_safety_analysis)

namespace smr {

// std::mutex with capability annotations, so GUARDED_BY can name it.
// Logs (common/engine_log.h, as an error) that the mutex `name` is not held by the thread
// that asserted it, and aborts (common/engine_log.cc).
[[noreturn]] void MutexNotHeld(const char* name);

// It knows its holder (a relaxed atomic store per Lock/Unlock), for AssertHeld.
class SMR_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  explicit Mutex(const char* name) : name_(name) {}
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  void Lock() SMR_ACQUIRE() {
    mu_.lock();
    SetHolder();
  }
  void Unlock() SMR_RELEASE() {
    ClearHolder();
    mu_.unlock();
  }
  // Aborts unless the calling thread holds this mutex; tells the analysis it does.
  void AssertHeld() const SMR_ASSERT_CAPABILITY(this) {
    if (holder_.load(std::memory_order_relaxed) != std::this_thread::get_id()) {
      MutexNotHeld(name_);
    }
  }
  std::mutex& native() { return mu_; }
  // For MutexUniqueLock and CondVar, which lock native() themselves.
  void SetHolder() { holder_.store(std::this_thread::get_id(), std::memory_order_relaxed); }
  void ClearHolder() { holder_.store(std::thread::id(), std::memory_order_relaxed); }

 private:
  std::mutex mu_;
  std::atomic<std::thread::id> holder_{};
  const char* name_ = "(unnamed)";
};

// RAII lock for Mutex that may be released and taken again within its scope (the analysis
// follows Unlock/Lock), and that a CondVar waits on.
class SMR_SCOPED_CAPABILITY MutexUniqueLock {
 public:
  explicit MutexUniqueLock(Mutex* mu) SMR_ACQUIRE(mu) : mu_(mu), lock_(mu->native()) {
    mu_->SetHolder();
  }
  ~MutexUniqueLock() SMR_RELEASE() {
    if (lock_.owns_lock()) mu_->ClearHolder();
  }
  MutexUniqueLock(const MutexUniqueLock&) = delete;
  MutexUniqueLock& operator=(const MutexUniqueLock&) = delete;
  void Unlock() SMR_RELEASE() {
    mu_->ClearHolder();
    lock_.unlock();
  }
  void Lock() SMR_ACQUIRE() {
    lock_.lock();
    mu_->SetHolder();
  }

 private:
  friend class CondVar;
  Mutex* const mu_;
  std::unique_lock<std::mutex> lock_;
};

// std::condition_variable for a Mutex held by a MutexUniqueLock. The waits have no
// predicate form: a predicate lambda would read guarded fields where the analysis cannot
// see the lock, so callers loop (`while (!ready) cv.Wait(&lock);`), which it checks.
class CondVar {
 public:
  void Wait(MutexUniqueLock* lock) {
    lock->mu_->ClearHolder();
    cv_.wait(lock->lock_);
    lock->mu_->SetHolder();
  }
  // false on timeout.
  template <class Rep, class Period>
  bool WaitFor(MutexUniqueLock* lock, std::chrono::duration<Rep, Period> d) {
    lock->mu_->ClearHolder();
    bool woken = cv_.wait_for(lock->lock_, d) == std::cv_status::no_timeout;
    lock->mu_->SetHolder();
    return woken;
  }
  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

// RAII lock for Mutex.
class SMR_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) SMR_ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() SMR_RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

}  // namespace smr
