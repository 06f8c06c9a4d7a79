// FaultKvStore: a KvStore wrapper for tests that fails chosen calls — the metadata WAL sync,
// a synced or unsynced Commit — with kIOError, and can hold a call until the test releases
// it; and ScopedKvStoreFaults, which has every Store a test mounts use one.
//
// Contract
//   NewFaultKvStore(inner, faults) forwards every KvStore call to `inner` (any KvStore:
//   RocksDB from OpenKvStore, or NewMemoryKvStore()), unchanged while `faults` is not armed.
//   KvFaults is the arming state, shared (shared_ptr) by the test and every store wrapped
//   with it, so it can be armed before a store exists and survives a remount:
//   - FailNext(op, count, skip): of the calls of `op` from now on, let `skip` pass, then fail
//     the next `count` (kForever: every one after). A failed call does nothing to `inner`:
//     SyncWal is not called, a failed Commit applies nothing and leaves the batch as it was
//     (kv_store.h's contract for a failed Commit). The error is kIOError naming the
//     operation and "injected". Arming again replaces the op's previous arming.
//   - HoldNext(op): the next call of `op` waits inside the wrapper, before it is counted
//     and before it reaches `inner`, until Release(op) (or Disarm); WaitHeld(op) waits until
//     such a call is waiting. Tests use it to choose what a failing call covers (e.g. let
//     the commit thread commit more groups while the sync thread's SyncWal is held).
//   - Disarm(): no more failures, held calls released, the counts kept.
//   - calls(op) counts the calls of `op` that reached the wrapper (held ones once released),
//     failed(op) those it failed.
//   Ops: kSyncWal (KvStore::SyncWal), kCommitSync / kCommitNoSync (KvStore::Commit with
//   sync true / false). Reads, NewBatch, NewIterator and the size/property calls are never
//   failed.
//   ScopedKvStoreFaults(prefix, faults) sets kv/kv_wrapper_hook.h's process-wide wrapper
//   for its lifetime: every KvStore a MetaStore opens (mkfs, mount, remount) at a path
//   starting with `prefix` (the test's scratch directory) is wrapped with `faults`; others
//   go to the wrapper that was set before (or stay unwrapped). Its destructor restores the
//   old wrapper; stores wrapped meanwhile stay wrapped until they close. Scopes nest (LIFO).
//
// Invariants
//   - Batches are the inner store's (NewBatch forwards), so a batch is committed to the
//     store that made it, as kv_store.h requires.
//   - A call either reaches `inner` exactly once or fails without touching it.
//
// Thread safety: every KvStore method of the wrapper is thread-safe (the inner store's are;
// KvFaults is guarded by its own leaf mutex, never held while `inner` is called). KvFaults'
// methods may be called from any thread, also while calls are held. A ScopedKvStoreFaults
// is made and destroyed on one thread (nesting is LIFO), while no metadata store is being
// opened (its wrapper learns the one it chains to just after setting itself).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "common/result.h"
#include "common/thread_annotations.h"
#include "kv/kv_store.h"
#include "kv/kv_wrapper_hook.h"

namespace smr {

enum class KvFaultOp { kSyncWal = 0, kCommitSync = 1, kCommitNoSync = 2 };

class KvFaults {
 public:
  static constexpr uint64_t kForever = UINT64_MAX;

  void FailNext(KvFaultOp op, uint64_t count, uint64_t skip = 0) SMR_EXCLUDES(mu_);
  void HoldNext(KvFaultOp op) SMR_EXCLUDES(mu_);
  // true once a call of `op` is held; false after `timeout` without one.
  bool WaitHeld(KvFaultOp op, std::chrono::milliseconds timeout) SMR_EXCLUDES(mu_);
  void Release(KvFaultOp op) SMR_EXCLUDES(mu_);
  void Disarm() SMR_EXCLUDES(mu_);
  uint64_t calls(KvFaultOp op) const SMR_EXCLUDES(mu_);
  uint64_t failed(KvFaultOp op) const SMR_EXCLUDES(mu_);

  // The wrapper's side: waits while the call is held, counts it, and returns the injected
  // error, or OK for a call that goes on to the inner store.
  Status Enter(KvFaultOp op) SMR_EXCLUDES(mu_);

 private:
  struct OpState {
    uint64_t skip = 0;     // calls still to pass before failing
    uint64_t fail = 0;     // calls still to fail (kForever: all)
    uint64_t calls = 0;
    uint64_t failed = 0;
    bool hold_next = false;  // the next call is held
    bool holding = false;    // a call is held now
    bool released = false;   // the held call may go on
  };
  static size_t Index(KvFaultOp op) { return static_cast<size_t>(op); }

  mutable Mutex mu_{"kv_faults"};
  CondVar cv_;
  std::array<OpState, 3> ops_ SMR_GUARDED_BY(mu_);
};

// `inner` behind the faults of `faults`.
std::unique_ptr<KvStore> NewFaultKvStore(std::unique_ptr<KvStore> inner,
                                         std::shared_ptr<KvFaults> faults);

class ScopedKvStoreFaults {
 public:
  ScopedKvStoreFaults(std::string path_prefix, std::shared_ptr<KvFaults> faults);
  ~ScopedKvStoreFaults();
  ScopedKvStoreFaults(const ScopedKvStoreFaults&) = delete;
  ScopedKvStoreFaults& operator=(const ScopedKvStoreFaults&) = delete;

  // How many stores were wrapped so far (a test checks its store is one).
  uint64_t wrapped() const { return wrapped_->load(); }

 private:
  KvStoreWrapper old_;
  std::shared_ptr<std::atomic<uint64_t>> wrapped_;
};

}  // namespace smr
