// CommitPipeline: the store's commit thread, from a submitted transaction to its callback.
//
// Contract
//   Store::Submit and Store::RunGc hand their work to Enqueue (the caller's thread; Submit
//   has computed the records' crcs there). The commit thread (Start) takes the queue in
//   order: a GC request runs alone (GcOne per zone); transactions go in groups of up to
//   StoreOptions::max_group (fewer when space is tight), which CommitGroup plans into one
//   MetaStore::Batch and one GroupWrites (PlanTransaction, with a GC slice riding along when
//   StoreOptions::gc_in_groups), writes (WriteGroup: one device write per zone on the
//   drives' `io_pool_` threads — a group with a single chain of writes on the commit thread
//   itself — then the zones sealed are finished and the drives touched flushed, in
//   parallel on io_pool_ when more than one: FlushDrives), commits (WriteAndCommit) and answers,
//   callbacks in submission order. With StoreOptions::commit_pipeline a user group's
//   metadata is committed without a WAL sync and the group is handed to the sync thread,
//   which syncs the WAL once for every group handed meanwhile (MetaStore::SyncWal) and then
//   runs their callbacks, while the commit thread takes the next group; without it the
//   commit thread commits with sync and runs the callbacks itself.
//   Between groups it runs what the GC worker, the hybrid manager and the metadata journal
//   ask for (MaybeGc, EnsureSpace, MaybeConvert, MaybeEvict, MaybeCheckpoint). For the
//   store's other writers (GC slices, hybrid drains, journal checkpoints, Open's own
//   commits) WriteAndCommit is the one way to write records and commit metadata.
//   Stop (Close, after setting `stopping`) lets the thread commit what is queued and end.
//
// Invariants
//   - A transaction's callback runs once, after its group's batch committed and the
//     metadata WAL was synced (or with the reason it failed); callbacks run in submission
//     order (pipelined: all of them on the sync thread), never with group_mu held.
//   - A group's records are written and the drives flushed before its metadata is
//     committed, synced or not: metadata that reaches the disk (a later sync, a memtable
//     flush) never names records a power cut could lose.
//   - A zone is reset only after a synced commit that moved everything out of it: GC and
//     hybrid drains commit with sync, and a group carrying a GC slice (which may finish and
//     reset its victim) commits with sync even when pipelined.
//   - A failed device write of a group commits nothing: its allocations are rolled back and
//     the group is planned again on other zones (the drive retired the zones: up to four
//     times), or the store stops taking writes (`fatal`). A failed metadata commit always
//     stops writes.
//   - deferred_seals_ holds the seal writes of zones a hybrid drain sealed between groups;
//     the next WriteAndCommit writes and finishes those still sealed (TakeDeferredSeals)
//     and drops the others (released or taken since).
//
// Thread safety
//   Enqueue: any thread, takes core.mu. Queued: any thread holding core.mu. StartIo, Start:
//   Open's thread, before anything else runs. Stop: Close's thread, once. The sync thread
//   (pipelined) owns what it took off to_sync_ (guarded by sync_mu_, a leaf lock). Everything else
//   runs on the commit thread (or on Open's thread before Start: its own commits) with
//   group_mu held where marked: WriteAndCommit and deferred_seals() are called by the GC
//   worker, the hybrid manager and the journal on that thread. queue_ is guarded by
//   core.mu (the store's run state lock, never held across I/O); lock order group_mu
//   before mu. deferred_seals_ belongs to the commit thread: the hybrid manager appends to
//   it without group_mu (BeginDrain between groups), so no lock guards it. committer_ and
//   io_pool_ are set by Start/StartIo and joined by Stop, which the store orders (Close
//   after Open).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/thread_pool.hpp>

#include "common/result.h"
#include "common/thread_annotations.h"
#include "meta/meta_store.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "store/transaction.h"
#include "zone/zone_manager.h"

namespace smr {

class CommitPipeline {
 public:
  // One queued piece of work: a transaction, or a GC request.
  struct Pending {
    Transaction txn;
    WriteCrcs crcs;  // of txn's records, computed by Submit on the caller's thread
    Store::Callback done;
    // A GC request instead of a transaction (Store::RunGc): clean up to gc_zones zones and
    // report through gc_done.
    uint32_t gc_zones = 0;
    std::function<void(const Result<GcReport>&)> gc_done;
    // Times this transaction was planned, found no zone for a record, and went back to the
    // queue for the commit loop to clean first (CommitGroup; kSpaceRetries).
    uint32_t space_retries = 0;
    uint64_t enqueued_ns = 0;  // steady clock at Enqueue (the queue wait, commit_queue_ns)
  };

  // `core`: the store's shared parts; the pipeline calls GC, the hybrid manager, the
  // journal and the read path through core.peers.
  explicit CommitPipeline(StoreCore& core);
  CommitPipeline(const CommitPipeline&) = delete;
  CommitPipeline& operator=(const CommitPipeline&) = delete;
  ~CommitPipeline();

  // Creates the write pool (a read-write mount, before its first commit: WriteAndCommit
  // needs it).
  void StartIo();
  // Starts the commit thread (the end of a read-write Open).
  void Start();
  // Wakes the commit thread, which commits what is queued and ends (`stopping` was set
  // under mu), joins it, then the sync thread (after it answered every group handed to
  // it) and the write pool. Close.
  void Stop() SMR_EXCLUDES(core_.mu, core_.group_mu);
  // Queues `p` and wakes the commit thread; kBusy ("store is unmounting", *p untouched)
  // once the store is stopping or closed.
  Status Enqueue(Pending* p) SMR_EXCLUDES(core_.mu);
  // Whether work is queued. The caller holds core.mu (checked).
  bool Queued() const;
  // Where a drain's seal writes wait for the next group (ZoneManager::BeginDrain's `seals`).
  // Commit thread only.
  std::vector<SealWrite>* deferred_seals() { return &deferred_seals_; }
  // Writes a group's records and commits its batch (the tail of CommitGroup, shared by GC,
  // hybrid drains, checkpoints and Open's commits). A failure stops the store taking writes
  // (`fatal`), except a failed device write when `recoverable_writes` (GC: it rolls its
  // allocations back and quarantines the victim). The caller holds group_mu (checked).
  // `sync` false (pipelined user groups only): the batch is committed without a WAL sync;
  // the caller answers through the sync thread (Answer).
  Status WriteAndCommit(GroupWrites* writes, MetaStore::Batch* batch, uint64_t ok_txns,
                        bool recoverable_writes = false, bool sync = true);

 private:
  // A group's answers: each transaction's status (the group's when that failed), handed to
  // the sync thread when pipelined.
  struct Answers {
    std::vector<Pending> group;
    std::vector<Status> results;
  };
  // Runs the callbacks of `a` in order: on this thread, or (pipelined) after the sync
  // thread's next WAL sync, after the answers of every group handed before.
  void Answer(Answers a) SMR_EXCLUDES(core_.group_mu, sync_mu_);
  // Pipelined: queues `a` for the sync thread (any lock but sync_mu_ may be held).
  void HandToSync(Answers a) SMR_EXCLUDES(sync_mu_);
  void SyncLoop() SMR_EXCLUDES(sync_mu_);
  // Zone bytes a transaction may need (its payload plus record headers).
  uint64_t SpaceNeeded(const Transaction& txn) const;
  void CommitLoop() SMR_EXCLUDES(core_.mu, core_.group_mu);
  // Logs (kWarning) a step of the commit thread that began at `start_ns` and took at least
  // kSlowStepNs (commit_pipeline.cc): what it was and how many transactions wait behind it.
  // `gc_trace`: the step was the GC worker's; the log line adds what its round did
  // (GcWorker::last_round).
  void NoteStep(const char* what, uint64_t start_ns, bool gc_trace = false)
      SMR_EXCLUDES(core_.mu);
  // A GC request (Store::RunGc), taken off the queue: GcOne up to req->gc_zones times (each
  // with group_mu, a checkpoint after each when the journal grew), then req->gc_done.
  void RunGcRequest(Pending* req) SMR_EXCLUDES(core_.mu, core_.group_mu);
  // Commits one group; `ride_live` > 0: a GC slice of that many live bytes of gc_cursor's
  // victim rides in it (StoreOptions::gc_in_groups).
  void CommitGroup(std::vector<Pending>* group, uint64_t ride_live = 0)
      SMR_EXCLUDES(core_.mu, core_.group_mu);
  // CommitGroup's steps, on the commit thread with group_mu held.
  // When the store stopped taking writes (`fatal`, read under mu): fails every transaction
  // of the group with the reason and returns true.
  bool FailGroupIfStopped(std::vector<Pending>* group) SMR_REQUIRES(core_.group_mu);
  // Plans the group's transactions in order into `batch` and `writes`, each behind a save
  // point (rolled back when it fails or is deferred); (*results)[i] is transaction i's
  // outcome, *ok_count counts those planned. Returns the index of the first transaction
  // deferred (its journal ops would pass JournalOpsLimit, or it found no zone and may be
  // retried: space_short set), or the group's size.
  size_t PlanGroupTxns(std::vector<Pending>* group, MetaStore::Batch* batch,
                       GroupWrites* writes, std::vector<Status>* results, size_t* ok_count)
      SMR_REQUIRES(core_.group_mu);
  // Plans a GC slice of `ride_live` live bytes of gc_cursor's victim into the group
  // (*ride). When it fails, its changes are taken back, the victim is quarantined and
  // gc_cursor reset; *s is set only when the rollback fails. Counts its time as throttle.
  void PlanRiddenSlice(uint64_t ride_live, MetaStore::Batch* batch, GroupWrites* writes,
                       std::optional<GcSlicePlan>* ride, Status* s)
      SMR_REQUIRES(core_.group_mu);
  // After the group's device writes failed (*s): rolls back its allocations and retires
  // the zones the drive reports offline or read-only. True (logged, counted) when some were
  // retired and `may_retry`: the group is planned again. Else sets *s to the kReadOnly that
  // stops writes (`fatal`, under mu) and returns false.
  bool RetryGroupElsewhere(const ZoneManager::AllocationMark& mark, bool may_retry,
                           Status* s) SMR_REQUIRES(core_.group_mu);
  Status WriteGroup(GroupWrites* w) SMR_REQUIRES(core_.group_mu);
  // Flushes the drives marked in `touched`, in parallel (one task per drive on io_pool_;
  // one drive: on this thread), and waits for every flush; the first failure, if any.
  Status FlushDrives(const std::vector<bool>& touched) SMR_REQUIRES(core_.group_mu);
  // Moves deferred_seals_ into `seals`, leaving out the zones no longer sealed (released or
  // taken since: their seal must not write into a reset or inactive zone).
  void TakeDeferredSeals(std::vector<SealWrite>* seals) SMR_REQUIRES(core_.group_mu);
  // The planner's view of the store for the next transaction (PlanContext).
  PlanContext PlanContextNow() SMR_REQUIRES(core_.group_mu);

  StoreCore& core_;
  std::deque<Pending> queue_ SMR_GUARDED_BY(core_.mu);
  std::thread committer_;
  std::thread syncer_;  // pipelined: SyncLoop
  Mutex sync_mu_{"sync_mu"};
  CondVar sync_cv_;
  std::deque<Answers> to_sync_ SMR_GUARDED_BY(sync_mu_);
  bool sync_stop_ SMR_GUARDED_BY(sync_mu_) = false;
  bool pipelined_ = false;  // StoreOptions::commit_pipeline, set by Start (fixed after)
  std::unique_ptr<boost::asio::thread_pool> io_pool_;
  // Seal writes of zones a drain sealed between groups (ZoneManager::BeginDrain), for the
  // next group WriteAndCommit writes; commit thread only.
  std::vector<SealWrite> deferred_seals_;
};

}  // namespace smr
