// The commit pipeline (store/commit_pipeline.h): the queue, the commit thread's loop, a
// group's planning, writing and commit.
#include "store/commit_pipeline.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <chrono>
#include <cstring>
#include <future>
#include <iterator>
#include <map>
#include <string>

#include "common/engine_log.h"
#include "store/hybrid_manager.h"
#include "format/record_format.h"

namespace smr {

namespace {

// Records are aligned to the record format's block (format/record_format.h).
constexpr uint64_t kBlock = recfmt::kBlockSize;

uint64_t NowNanos() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// A step that holds the commit thread at least this long is logged with its cause, as
// Ceph's OSDs log their slow operations: every transaction queued meanwhile waits behind
// it (on the HDD model, doc/performance.md, GC and space cleaning between groups are where
// a 4 KiB write's tail comes from).
constexpr uint64_t kSlowStepNs = 250'000'000;

// How often an idle commit thread looks again at GC victims whose reset waits for reads.
constexpr int kResetPollMs = 10;

}  // namespace

void CommitPipeline::NoteStep(const char* what, uint64_t start_ns, bool gc_trace) {
  const uint64_t took = NowNanos() - start_ns;
  if (took < kSlowStepNs) return;
  size_t queued = 0;
  {
    MutexLock lock(&core_.mu);
    queued = queue_.size();
  }
  const std::string detail =
      gc_trace ? " [" + core_.peers.gc->last_round().ToString() + "]" : std::string();
  Log(LogLevel::kWarning,
      "slow commit-thread step: %s took %.0f ms (%zu transactions queued at its end)%s", what,
      static_cast<double>(took) / 1e6, queued, detail.c_str());
}

CommitPipeline::CommitPipeline(StoreCore& core) : core_(core) {}

CommitPipeline::~CommitPipeline() = default;

void CommitPipeline::StartIo() {
  io_pool_ = std::make_unique<boost::asio::thread_pool>(
      std::max<size_t>(2, core_.devices.size()));
}

void CommitPipeline::Start() {
  pipelined_ = core_.options.commit_pipeline;
  if (pipelined_) syncer_ = std::thread([this] { SyncLoop(); });
  committer_ = std::thread([this] { CommitLoop(); });
}

void CommitPipeline::Stop() {
  core_.cv.NotifyAll();
  if (committer_.joinable()) committer_.join();
  {
    MutexLock lock(&sync_mu_);
    sync_stop_ = true;
  }
  sync_cv_.NotifyAll();
  if (syncer_.joinable()) syncer_.join();
  if (io_pool_) io_pool_->join();
}

void CommitPipeline::Answer(Answers a) {
  if (pipelined_) {
    HandToSync(std::move(a));
    return;
  }
  const uint64_t start = NowNanos();
  for (size_t i = 0; i < a.group.size(); ++i) {
    if (a.group[i].done) a.group[i].done(a.results[i]);
  }
  MutexLock lock(&core_.counters_mu);
  core_.counters.commit_callback_ns += NowNanos() - start;
}

void CommitPipeline::HandToSync(Answers a) {
  {
    MutexLock lock(&sync_mu_);
    to_sync_.push_back(std::move(a));
  }
  sync_cv_.NotifyOne();
}

void CommitPipeline::SyncLoop() {
  for (;;) {
    std::deque<Answers> batch;
    {
      MutexUniqueLock lock(&sync_mu_);
      while (to_sync_.empty() && !sync_stop_) sync_cv_.Wait(&lock);
      if (to_sync_.empty()) return;  // stopping, and every group handed was answered
      batch.swap(to_sync_);
    }
    // One WAL sync makes every group committed so far durable (their records were flushed
    // before their metadata was written); then they are answered, in order.
    const uint64_t sync_start = NowNanos();
    Status s = core_.meta->SyncWal();
    const uint64_t callbacks_start = NowNanos();
    {
      MutexLock lock(&core_.counters_mu);  // counted before the answers go out
      core_.counters.commit_sync_ns += callbacks_start - sync_start;
    }
    if (!s.ok()) {
      s = Status::ReadOnly("store is read-only: syncing the metadata WAL failed (" +
                           s.ToString() + "); the last commit groups are not durable");
      Log(LogLevel::kError, "%s", s.ToString().c_str());
      {
        MutexLock lock(&core_.mu);
        if (core_.fatal.ok()) core_.fatal = s;
      }
      // CommitGroup counted the batch's planned transactions committed; they are answered
      // with the failure, so the counters say failed.
      uint64_t answered_failed = 0;
      for (const Answers& a : batch) {
        for (const Status& r : a.results) answered_failed += r.ok() ? 1 : 0;
      }
      MutexLock lock(&core_.counters_mu);
      core_.counters.txns_committed -= answered_failed;
      core_.counters.txns_failed += answered_failed;
    }
    for (Answers& a : batch) {
      for (size_t i = 0; i < a.group.size(); ++i) {
        if (a.group[i].done) a.group[i].done(s.ok() ? a.results[i] : s);
      }
    }
    MutexLock lock(&core_.counters_mu);
    core_.counters.commit_callback_ns += NowNanos() - callbacks_start;
  }
}

Status CommitPipeline::Enqueue(Pending* p) {
  {
    MutexLock lock(&core_.mu);
    if (core_.stopping || core_.closed) return Status::Busy("store is unmounting");
    p->enqueued_ns = NowNanos();
    queue_.push_back(std::move(*p));
  }
  core_.cv.NotifyOne();
  return Status::OK();
}

bool CommitPipeline::Queued() const {
  core_.mu.AssertHeld();
  return !queue_.empty();
}

uint64_t CommitPipeline::SpaceNeeded(const Transaction& txn) const {
  // Payload plus a record header per started record (and some slack per op).
  const uint64_t b = txn.data_bytes();
  return b + (b / core_.options.max_record_payload + txn.ops().size()) * 4096;
}

void CommitPipeline::CommitLoop() {
  GcWorker& gc = *core_.peers.gc;
  for (;;) {
    std::vector<Pending> group;
    bool queued_more = false;
    uint64_t ride = 0;  // live bytes of GC relocation this group carries (RideGcSlice)
    {
      MutexUniqueLock lock(&core_.mu);
      HybridManager& hybrid = *core_.peers.hybrid;
      if (hybrid.converting() || hybrid.RequestQueued()) {
        // A hybrid conversion goes on while idle (store/hybrid_manager.h): one quantum per
        // wakeup.
        if (!core_.stopping && queue_.empty()) {
          core_.cv.WaitFor(&lock, std::chrono::milliseconds(hybrid.converting() ? 5 : 0));
        }
        if (queue_.empty() && !core_.stopping) {
          lock.Unlock();
          hybrid.MaybeConvert(/*queued=*/false);
          gc.ReapResetsBetweenGroups(/*wait=*/false);
          continue;
        }
      } else {
        while (!core_.stopping && queue_.empty() && !hybrid.RequestQueued()) {
          if (gc.resets_pending()) {
            // Emptied victims wait for reads still using them (GcWorker::ReapResets):
            // look again shortly, so that an idle store still gets its zones back.
            core_.cv.WaitFor(&lock, std::chrono::milliseconds(kResetPollMs));
            if (core_.stopping || !queue_.empty() || hybrid.RequestQueued()) break;
            lock.Unlock();
            gc.ReapResetsBetweenGroups(/*wait=*/false);
            lock.Lock();
            continue;
          }
          core_.cv.Wait(&lock);
        }
        if (queue_.empty() && !core_.stopping) continue;  // a conversion request: handled above
      }
      if (queue_.empty() && core_.stopping) {
        lock.Unlock();
        gc.ReapResetsBetweenGroups(/*wait=*/true);
        // An activation waited for, a drain dropped, the requests answered (kBusy).
        hybrid.StopForUnmount();
        return;
      }
      // A GC request runs alone, in queue order.
      if (queue_.front().gc_done) {
        Pending req = std::move(queue_.front());
        queue_.pop_front();
        lock.Unlock();
        RunGcRequest(&req);
        continue;
      }
      // When space is tight (GC on), a group takes only the transactions that fit in what
      // users can still write, so foreground commits advance in small steps between GC
      // slices instead of waiting for whole zones to be cleaned.
      const uint64_t room = gc.gc_auto()
                                ? core_.zones->user_free_bytes(core_.MaxRecordBytes())
                                : UINT64_MAX;
      uint64_t need = 0;
      while (!queue_.empty() && group.size() < core_.options.max_group &&
             !queue_.front().gc_done) {
        const uint64_t n = SpaceNeeded(queue_.front().txn);
        if (!group.empty() && need + n > room) break;
        need += n;
        group.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      queued_more = !queue_.empty();
      lock.Unlock();
      uint64_t waited = 0;
      const uint64_t taken = NowNanos();
      for (const Pending& p : group) waited += taken - std::min(taken, p.enqueued_ns);
      {
        MutexLock clock(&core_.counters_mu);
        core_.counters.commit_queue_ns += waited;
      }
      uint64_t t = NowNanos();
      if (core_.options.gc_in_groups) {
        ride = gc.RideGcSlice(need);
        NoteStep("picking a victim for a ridden GC slice", t, true);
      } else {
        gc.MaybeGc(/*queued=*/true, need);
        NoteStep("a paced GC round", t, true);
      }
      if (gc.gc_auto() || core_.options.hybrid_auto) {
        if (gc.space_short()) {
          t = NowNanos();
          gc.CleanForSpace();
          NoteStep("cleaning a whole victim for a transaction that found no room", t, true);
        }
        gc.set_space_short(false);
        t = NowNanos();
        gc.EnsureSpace(need);
        NoteStep("cleaning for the group's room", t, true);
      }
    }
    uint64_t t = NowNanos();
    const size_t txns = group.size();
    CommitGroup(&group, ride);
    if (NowNanos() - t >= kSlowStepNs) {
      const std::string what = "a commit group of " + std::to_string(txns) +
                               " transactions" +
                               (ride ? " with a GC slice of " + std::to_string(ride >> 10) + " KiB"
                                     : "");
      NoteStep(what.c_str(), t);
    }
    t = NowNanos();
    core_.peers.journal->MaybeCheckpoint();
    NoteStep("a metadata checkpoint", t);
    t = NowNanos();
    core_.peers.hybrid->MaybeConvert(queued_more);
    core_.peers.hybrid->MaybeEvict(queued_more);
    NoteStep("hybrid conversion or eviction", t);
    if (!queued_more) {
      t = NowNanos();
      gc.MaybeGc(/*queued=*/false);
      NoteStep("an idle GC round", t, true);
    }
  }
}

void CommitPipeline::RunGcRequest(Pending* request) {
  Pending& req = *request;
  GcReport total;
  Status st;
  for (uint32_t i = 0; i < req.gc_zones; ++i) {
    MutexUniqueLock glock(&core_.group_mu);
    auto r = core_.peers.gc->GcOne();
    glock.Unlock();
    if (!r.ok()) {
      if (!r.status().IsNotFound()) st = r.status();
      break;
    }
    total.zones_cleaned += r->zones_cleaned;
    total.live_moved += r->live_moved;
    total.bytes_written += r->bytes_written;
    total.bytes_freed += r->bytes_freed;
    // Relocations rewrite onodes, which the metadata journal records: a long run of
    // victims takes checkpoints as commit groups do, or the journal's zones fill the
    // drives (found by the option-space run: 107 of 154 zones journal after a
    // `RunGc` of hundreds of victims). Only for the journal's size: the zones GC
    // pins are unpinned by the commit loop's checkpoints as before.
    core_.peers.journal->MaybeCheckpoint(/*for_pins=*/false);
  }
  if (st.ok()) {
    req.gc_done(total);
  } else {
    req.gc_done(st);
  }
}

void CommitPipeline::CommitGroup(std::vector<Pending>* group, uint64_t ride_live) {
  MutexUniqueLock group_lock(&core_.group_mu);
  if (FailGroupIfStopped(group)) return;
  // A write error on a zone the drive now reports offline or read-only costs that zone
  // only: nothing of the group was committed, so its allocations are rolled back, the zone
  // is retired (ZoneManager::RefreshConditions) and the group is planned again on other
  // zones. Any other write error, or no zone left to write, stops writes: the store turns
  // read-only (reads go on) and every later transaction fails with the reason.
  constexpr int kMaxFaultRetries = 4;
  std::vector<Status> results(group->size());
  std::unique_ptr<GroupWrites> writes;
  Status s;
  std::optional<GcSlicePlan> ride;  // the GC slice this group carries
  for (int attempt = 0;; ++attempt) {
    const ZoneManager::AllocationMark mark = core_.zones->MarkAllocations();
    auto batch = core_.meta->NewBatch();
    writes = std::make_unique<GroupWrites>();
    ride.reset();
    s = Status::OK();
    size_t ok_count = 0;
    const uint64_t plan_start = NowNanos();
    const size_t defer_from =
        PlanGroupTxns(group, batch.get(), writes.get(), &results, &ok_count);
    {
      MutexLock lock(&core_.counters_mu);
      core_.counters.commit_plan_ns += NowNanos() - plan_start;
    }
    if (defer_from < group->size()) {
      MutexLock lock(&core_.mu);
      for (size_t i = group->size(); i-- > defer_from;) {
        queue_.push_front(std::move((*group)[i]));
      }
      group->resize(defer_from);
      results.resize(defer_from);
    }
    if (group->empty()) {
      // Every transaction went back to the queue: nothing to write; what the planning
      // allocated is given back.
      s = core_.zones->RollBack(mark);
      if (!s.ok()) {
        s = Status::ReadOnly("store is read-only: rolling back an empty group failed (" +
                             s.ToString() + ")");
        Log(LogLevel::kError, "%s", s.ToString().c_str());
        MutexLock lock(&core_.mu);
        core_.fatal = s;
      }
      return;
    }
    const uint64_t ride_start = NowNanos();
    if (ride_live > 0 && core_.peers.gc->gc_cursor()) {
      PlanRiddenSlice(ride_live, batch.get(), writes.get(), &ride, &s);
    }
    const uint64_t write_start = NowNanos();
    // Pipelined, the WAL sync is the sync thread's; a group carrying a GC slice syncs here,
    // as its victim may be reset right after (GcFinishSlice).
    if (s.ok()) {
      s = WriteAndCommit(writes.get(), batch.get(), ok_count, /*recoverable_writes=*/true,
                         /*sync=*/!pipelined_ || ride.has_value());
    }
    if (s.ok() && ride) {
      // What the slice added to the group, for its time fit (gc_slice_ms): its planning
      // (the victim's reads) and its share by bytes of the group's write and commit.
      const double total = static_cast<double>(writes->user_bytes + writes->gc_bytes);
      const double share = total > 0 ? static_cast<double>(writes->gc_bytes) / total : 1.0;
      const uint64_t end = NowNanos();
      core_.peers.gc->NoteRiddenSlice(
          ride->report.live_moved,
          (static_cast<double>(write_start - ride_start) +
           share * static_cast<double>(end - write_start)) / 1e6);
    }
    if (s.ok()) break;
    {
      MutexUniqueLock lock(&core_.mu);
      if (!core_.fatal.ok()) break;  // the metadata commit failed: WriteAndCommit stopped writes
    }
    // The zones' writes failed; nothing was committed.
    if (RetryGroupElsewhere(mark, attempt < kMaxFaultRetries, &s)) continue;
    break;
  }
  if (s.ok()) {
    core_.UpdateDeathRates(*writes);
    core_.peers.gc->NoteGroupZoneBytes(writes->user_bytes);
  }
  if (ride && s.ok()) core_.peers.gc->CountSliceMoves(*ride);
  {
    MutexLock lock(&core_.counters_mu);
    for (const Status& r : results) {
      if (r.ok() && s.ok()) {
        core_.counters.txns_committed++;
      } else {
        core_.counters.txns_failed++;
      }
    }
  }
  group_lock.Unlock();
  if (!s.ok()) results.assign(group->size(), s);
  Answer(Answers{std::move(*group), std::move(results)});
  // The ridden slice's moves are durable: advance its cursor, and at the victim's end reset
  // it (after the read fence) — after the group's callbacks, which need not wait for it.
  if (ride && s.ok() && core_.peers.gc->gc_cursor()) {
    MutexLock glock(&core_.group_mu);
    bool zone_done = false;
    auto r = core_.peers.gc->GcFinishSlice(&core_.peers.gc->gc_cursor(),
                                   std::move(*ride), &zone_done);
    if (!r.ok()) {
      Log(LogLevel::kError, "background GC: %s", r.status().ToString().c_str());
      core_.peers.gc->gc_cursor().reset();
    }
  }
}

bool CommitPipeline::FailGroupIfStopped(std::vector<Pending>* group) {
  Status fatal_now;
  {
    MutexUniqueLock lock(&core_.mu);
    fatal_now = core_.fatal;
  }
  if (!fatal_now.ok()) {
    const Status why = fatal_now.WithContext("store stopped taking writes earlier");
    if (pipelined_) {  // after the answers of the groups before
      std::vector<Status> results(group->size(), why);
      HandToSync(Answers{std::move(*group), std::move(results)});
      return true;
    }
    for (auto& p : *group) {
      if (p.done) p.done(why);
    }
    return true;
  }
  return false;
}

size_t CommitPipeline::PlanGroupTxns(std::vector<Pending>* group, MetaStore::Batch* batch,
                                     GroupWrites* writes, std::vector<Status>* results_out,
                                     size_t* ok_count) {
  std::vector<Status>& results = *results_out;
  // The group's journal record must fit in one zone (JournalOpsLimit): a transaction
  // that would take it past ends the group (it and the ones after it go back to the
  // queue's front, for the next group); one that passes it alone fails.
  const uint64_t journal_limit =
      core_.options.journal ? core_.peers.journal->JournalOpsLimit() : UINT64_MAX;
  size_t defer_from = group->size();
  for (size_t i = 0; i < group->size(); ++i) {
    batch->SetSavePoint();
    const uint64_t user_before = writes->user_bytes, inline_before = writes->inline_bytes;
    const int64_t inline_delta_before = writes->inline_delta;
    const size_t journal_before = batch->journal().size();
    // What a planned transaction adds besides the batch, taken back if it is deferred.
    const auto live_before = writes->live_delta;
    const size_t deaths_before = writes->death_ages_ns.size();
    const size_t name_deaths_before = writes->name_deaths.size();
    Status r = PlanTransaction(PlanContextNow(), (*group)[i].txn, ++core_.seq, batch, writes,
                               &(*group)[i].crcs);
    if (r.ok() && JournalOpsBytes(batch->journal(), /*last_write_only=*/false) > journal_limit) {
      const uint64_t bytes = JournalOpsBytes(batch->journal(), /*last_write_only=*/true);
      if (bytes > journal_limit) {
        if (journal_before > 0) {
          defer_from = i;
        } else {
          r = Status::InvalidArgument(
              "transaction's metadata changes take " + std::to_string(bytes) +
              " bytes in the metadata journal; one commit's may take at most " +
              std::to_string(journal_limit) + " (a journal record fits in one zone)");
        }
      }
    }
    if (r.IsNoSpace() && (core_.peers.gc->gc_auto() || core_.options.hybrid_auto) &&
        (*group)[i].space_retries < Store::Impl::kSpaceRetries) {
      // No zone for one of its records: back to the queue, after a whole zone is cleaned
      // (CommitLoop, CleanForSpace); the transactions before it commit now.
      ++(*group)[i].space_retries;
      core_.peers.gc->set_space_short(true);
      defer_from = i;
    }
    if (!r.ok() || defer_from == i) {
      Status rb = batch->RollbackToSavePoint();
      if (!rb.ok()) r = rb;
      writes->user_bytes = user_before;
      writes->inline_bytes = inline_before;
      writes->inline_delta = inline_delta_before;  // (live deltas are added only on success)
      if (defer_from == i) {
        // Planned, then deferred: its records stay in the group's zone buffers as dead
        // bytes (as a failed transaction's), its accounting is taken back.
        writes->live_delta = live_before;
        writes->death_ages_ns.resize(deaths_before);
        writes->name_deaths.resize(name_deaths_before);
      }
    } else {
      (void)batch->PopSavePoint();
      ++*ok_count;
    }
    if (defer_from == i) break;
    results[i] = r;
  }
  return defer_from;
}

void CommitPipeline::PlanRiddenSlice(uint64_t ride_live, MetaStore::Batch* batch,
                                     GroupWrites* writes, std::optional<GcSlicePlan>* ride,
                                     Status* s) {
  // The GC slice this group carries, planned after its transactions (they get their
  // space first; the slice reads their changes through the batch). A slice that fails
  // costs the group nothing: what it placed stays as dead bytes, its live-byte deltas
  // are taken back, and its victim is quarantined, as GcSlice does.
  const uint64_t t0 = NowNanos();
  const auto live_delta = writes->live_delta;
  const auto gc_live_delta = writes->gc_live_delta;
  const uint64_t gc_bytes = writes->gc_bytes;
  batch->SetSavePoint();
  auto plan = core_.peers.gc->GcPlanSlice(&core_.peers.gc->gc_cursor(),
                                  ride_live, batch, writes, std::nullopt, std::nullopt,
                                  /*split_records=*/false);
  if (plan.ok()) {
    (void)batch->PopSavePoint();
    *ride = std::move(*plan);
  } else {
    Status rb = batch->RollbackToSavePoint();
    writes->live_delta = live_delta;
    writes->gc_live_delta = gc_live_delta;
    writes->gc_bytes = gc_bytes;
    if (!rb.ok()) *s = rb;
    const ZoneAddress victim = core_.peers.gc->gc_cursor()->victim.addr;
    core_.peers.gc->gc_cursor().reset();
    core_.peers.gc->Quarantine(victim, plan.status());
  }
  MutexLock lock(&core_.counters_mu);
  core_.counters.gc_throttle_ns += NowNanos() - t0;
}

bool CommitPipeline::RetryGroupElsewhere(const ZoneManager::AllocationMark& mark,
                                         bool may_retry, Status* s_io) {
  Status& s = *s_io;
  Status why = core_.zones->RollBack(mark);
  std::vector<ZoneAddress> retired;
  if (why.ok()) {
    auto r = core_.zones->RefreshConditions();
    if (r.ok()) {
      retired = std::move(*r);
    } else {
      why = r.status();
    }
  }
  if (why.ok() && !retired.empty() && may_retry) {
    std::string names;
    for (size_t i = 0; i < retired.size() && i < 8; ++i) {
      names += (i == 0 ? "" : ", ") + std::string("drive ") +
               std::to_string(retired[i].drive) + " zone " + std::to_string(retired[i].zone);
    }
    if (retired.size() > 8) names += " and " + std::to_string(retired.size() - 8) + " more";
    Log(LogLevel::kWarning, "%s reported offline or read-only; retired, the commit group "
                 "is written elsewhere (%s)",
                 names.c_str(), s.ToString().c_str());
    MutexLock lock(&core_.counters_mu);
    core_.counters.zones_retired += retired.size();
    return true;
  }
  s = Status::ReadOnly("store is read-only after a write error it cannot route around (" +
                       s.ToString() + (why.ok() ? "" : "; then: " + why.ToString()) +
                       "); reads still work; remount after fixing the drive");
  Log(LogLevel::kError, "%s", s.ToString().c_str());
  MutexUniqueLock lock(&core_.mu);
  core_.fatal = s;
  return false;
}

void CommitPipeline::TakeDeferredSeals(std::vector<SealWrite>* seals) {
  for (SealWrite& sw : deferred_seals_) {
    if (core_.zones->StateOf(sw.drive, sw.zone) == ZoneState::kSealed) {
      seals->push_back(std::move(sw));
    }
  }
  deferred_seals_.clear();
}

PlanContext CommitPipeline::PlanContextNow() {
  PlanContext c;
  c.meta = core_.meta.get();
  c.options = &core_.options;
  c.zones = core_.zones.get();
  c.nid_max = &core_.nid_max;
  c.cid_max = &core_.cid_max;
  c.lifetime_history = &core_.lifetime_history;
  c.mean_lifetime_ns = core_.mean_lifetime_ns;
  c.read_extent = [this](const Extent& e, uint64_t from, uint64_t len, char* dst,
                         const GroupWrites* pending) {
    return core_.peers.read_extent(e, from, len, dst, pending);
  };
  c.zone_size = [this](uint16_t drive) { return core_.ZoneSize(drive); };
  return c;
}

Status CommitPipeline::WriteAndCommit(GroupWrites* w, MetaStore::Batch* batch,
                                      uint64_t ok_txns, bool recoverable_writes, bool sync) {
  core_.group_mu.AssertHeld();
  const uint64_t nid_before = core_.meta_nid_max, cid_before = core_.meta_cid_max;
  // Seals a drain made between groups go with this one.
  const size_t own_seals = w->seals.size();
  TakeDeferredSeals(&w->seals);
  // The metadata journal record goes with the group's records, before the batch commits.
  Status s = core_.peers.journal->JournalBatch(batch, w);
  if (s.ok()) s = WriteGroup(w);
  uint64_t device_bytes = 0;
  for (const auto& [addr, buf] : w->zones) device_bytes += buf.length;
  for (const SealWrite& sw : w->seals) device_bytes += sw.bytes.size();
  if (!s.ok() && recoverable_writes) {  // nothing committed; the caller rolls back
    // The drain's seals wait for the next group again (the caller drops `w`).
    deferred_seals_.assign(std::make_move_iterator(w->seals.begin() + own_seals),
                           std::make_move_iterator(w->seals.end()));
    w->seals.resize(own_seals);
    core_.peers.journal->JournalCommitted(false);
    return s;
  }
  if (s.ok()) {
    for (const auto& [addr, delta] : w->live_delta) {
      core_.zones->AddLive(addr.drive, addr.zone, delta);
    }
    for (const auto& [addr, buf] : w->zones) {
      core_.zones->MarkCommitted(
          addr.drive, addr.zone,
          buf.offset + buf.length - uint64_t{addr.zone} * core_.ZoneSize(addr.drive));
    }
    for (const SealWrite& sw : w->seals) {
      if (!sw.bytes.empty()) {
        core_.zones->MarkCommitted(
            sw.drive, sw.zone,
            sw.offset + sw.bytes.size() - uint64_t{sw.zone} * core_.ZoneSize(sw.drive));
      }
    }
    for (const auto& [addr, zm] : core_.zones->TakeDirtyZones()) {
      batch->PutZone(addr.drive, addr.zone, zm);
    }
    batch->PutCounter(kCounterSeq, core_.seq);
    {
      MutexLock lock(&core_.counters_mu);
      batch->PutCounter(kCounterUserBytes, core_.counters.lifetime_user_bytes + w->user_bytes);
      batch->PutCounter(kCounterDeviceBytes, core_.counters.lifetime_device_bytes + device_bytes);
      batch->PutCounter(kCounterTxns, core_.counters.lifetime_txns + ok_txns);
      batch->PutCounter(kCounterGcBytes, core_.peers.gc->lifetime_gc_bytes() + w->gc_bytes);
      batch->PutCounter(kCounterInlineStored,
                        static_cast<uint64_t>(static_cast<int64_t>(core_.inline_stored) +
                                              w->inline_delta));
    }
    if (core_.nid_max != nid_before) batch->PutCounter(kCounterNid, core_.nid_max);
    if (core_.cid_max != cid_before) batch->PutCounter(kCounterCid, core_.cid_max);
    const uint64_t meta_start = NowNanos();
    s = core_.meta->Commit(batch, sync);
    MutexLock lock(&core_.counters_mu);
    core_.counters.commit_meta_ns += NowNanos() - meta_start;
  }
  if (!s.ok()) {
    // kReadOnly, as a failed WAL sync answers on the pipelined path (SyncLoop): the store
    // takes no more writes, whatever the database's own code was (kept in the message).
    s = Status::ReadOnly("store is read-only: committing a group's metadata failed (" +
                         s.ToString() + ")");
    Log(LogLevel::kError, "commit group failed, store stops taking writes: %s",
                 s.ToString().c_str());
    MutexUniqueLock lock(&core_.mu);
    core_.fatal = s;
  } else {
    core_.meta_nid_max = core_.nid_max;
    core_.meta_cid_max = core_.cid_max;
    // Where a drive's head is after this group (the zone it wrote last): the next group
    // without data puts its journal record there.
    if (auto z = LastDataZone(*w, *core_.zones)) {
      core_.peers.journal->SetLastGroupZone(*z);
    }
  }
  core_.peers.journal->JournalCommitted(s.ok());
  MutexLock lock(&core_.counters_mu);
  core_.counters.device_bytes_written += device_bytes;
  if (s.ok()) {
    core_.counters.groups_committed++;
    core_.counters.user_bytes_written += w->user_bytes;
    core_.counters.inline_bytes_written += w->inline_bytes;
    core_.counters.pack_records += w->pack_records;
    core_.counters.pack_entries += w->pack_entries;
    core_.counters.pack_payload_bytes += w->pack_payload_bytes;
    core_.counters.pack_record_bytes += w->pack_record_bytes;
    core_.counters.lifetime_user_bytes += w->user_bytes;
    core_.counters.lifetime_txns += ok_txns;
    core_.counters.lifetime_device_bytes += device_bytes;
    core_.counters.gc_bytes_written += w->gc_bytes;
    GcWorker& gc = *core_.peers.gc;
    gc.set_lifetime_gc_bytes(gc.lifetime_gc_bytes() + w->gc_bytes);
    core_.counters.lifetime_gc_bytes = gc.lifetime_gc_bytes();
    core_.inline_stored =
        static_cast<uint64_t>(static_cast<int64_t>(core_.inline_stored) + w->inline_delta);
  }
  return s;
}

void GroupWrites::AppendRecordPieces(const RecordHeader& h, std::string_view payload,
                                     ZoneBuffer* buf) {
  auto header = std::make_unique<std::string>(kBlock, '\0');
  RecordHeader hh = h;
  hh.payload_len = static_cast<uint32_t>(payload.size());
  EncodeRecordHeader(hh, header->data());
  buf->pieces.push_back(*header);
  buf->owned.push_back(std::move(header));
  const size_t whole = payload.size() / kBlock * kBlock;
  if (whole > 0) buf->pieces.push_back(payload.substr(0, whole));
  if (whole < payload.size()) {
    auto tail = std::make_unique<std::string>(kBlock, '\0');
    std::memcpy(tail->data(), payload.data() + whole, payload.size() - whole);
    buf->pieces.push_back(*tail);
    buf->owned.push_back(std::move(tail));
  }
  buf->length += RecordBytes(payload.size());
}

Status CommitPipeline::WriteGroup(GroupWrites* w) {
  const uint64_t write_start = NowNanos();
  w->CloseAllPacks();
  // One device write per zone at its write pointer (ZonedDevice::WriteV), a sealed zone's
  // footer in the same write as the zone's last records; a footer of a zone this group did
  // not write to (its records are all older) goes first, where the head most likely still
  // is. A rotational drive gets its writes one after the other in the order the group
  // created its zone buffers (the journal record is in the last: LastDataZone), so the
  // head moves once per zone; other drives get them all at once. Then the zones sealed are
  // finished and each drive touched is flushed once.
  struct ZoneWrite {
    uint16_t drive = 0;
    uint64_t offset = 0;
    std::vector<std::string_view> pieces;
  };
  std::vector<std::vector<ZoneWrite>> per_drive(core_.devices.size());
  std::vector<bool> touched(core_.devices.size(), false);
  std::vector<const SealWrite*> later;  // footers that fit neither way (not expected)
  uint64_t writes = 0, buffers = 0;
  std::map<ZoneAddress, const SealWrite*> footer_of;
  for (const SealWrite& s : w->seals) {
    touched[s.drive] = true;
    if (s.bytes.empty()) continue;
    auto z = w->zones.find({s.drive, s.zone});
    if (z == w->zones.end()) {
      per_drive[s.drive].push_back({s.drive, s.offset, {s.bytes}});
    } else if (z->second.offset + z->second.length == s.offset) {
      footer_of[z->first] = &s;
    } else {
      later.push_back(&s);
    }
  }
  std::vector<const GroupWrites::ZoneBuffer*> in_order;
  for (const auto& [addr, buf] : w->zones) in_order.push_back(&buf);
  std::sort(in_order.begin(), in_order.end(),
            [](const auto* a, const auto* b) { return a->order < b->order; });
  for (const GroupWrites::ZoneBuffer* buf : in_order) {
    touched[buf->drive] = true;
    ZoneWrite zw{buf->drive, buf->offset, buf->pieces};
    auto f = footer_of.find({buf->drive, buf->zone});
    if (f != footer_of.end()) zw.pieces.push_back(f->second->bytes);
    per_drive[buf->drive].push_back(std::move(zw));
  }
  std::vector<std::vector<ZoneWrite>*> chains;
  auto issue = [&](std::vector<ZoneWrite>* chain) { chains.push_back(chain); };
  auto write_chain = [this](const std::vector<ZoneWrite>* chain) {
    for (const ZoneWrite& zw : *chain) {
      SMR_RETURN_IF_ERROR(core_.devices[zw.drive]->WriteV(zw.offset, zw.pieces));
    }
    return Status::OK();
  };
  std::vector<std::vector<ZoneWrite>> singles;
  for (size_t d = 0; d < core_.devices.size(); ++d) {
    writes += per_drive[d].size();
    for (const ZoneWrite& zw : per_drive[d]) buffers += zw.pieces.size();
  }
  if (std::any_of(core_.devices.begin(), core_.devices.end(),
                  [](const auto& dev) { return !dev->info().rotational; })) {
    size_t n = 0;
    for (size_t d = 0; d < core_.devices.size(); ++d) {
      if (!core_.devices[d]->info().rotational) n += per_drive[d].size();
    }
    singles.reserve(n);  // the chains point into it
  }
  for (size_t d = 0; d < core_.devices.size(); ++d) {
    if (per_drive[d].empty()) continue;
    if (core_.devices[d]->info().rotational) {
      issue(&per_drive[d]);
    } else {
      for (ZoneWrite& zw : per_drive[d]) {
        singles.push_back({std::move(zw)});
        issue(&singles.back());
      }
    }
  }
  // One chain (a small group: one zone, or one rotational drive) is written on this thread:
  // handing it to the pool and waiting would only add two thread switches per group, which
  // is most of a 4 KiB group's cost on a busy host. Several chains go to the pool at once.
  Status first;
  if (chains.size() == 1) {
    first = write_chain(chains[0]);
  } else {
    std::vector<std::future<Status>> futures;
    futures.reserve(chains.size());
    for (const std::vector<ZoneWrite>* chain : chains) {
      auto task = std::make_shared<std::packaged_task<Status()>>(
          [&write_chain, chain] { return write_chain(chain); });
      futures.push_back(task->get_future());
      boost::asio::post(*io_pool_, [task] { (*task)(); });
    }
    for (auto& f : futures) {
      Status s = f.get();
      if (first.ok() && !s.ok()) first = s;
    }
  }
  {
    MutexLock lock(&core_.counters_mu);
    core_.counters.commit_write_ns += NowNanos() - write_start;
  }
  SMR_RETURN_IF_ERROR(first);
  for (const SealWrite* s : later) {
    SMR_RETURN_IF_ERROR(
        core_.devices[s->drive]->Write(s->offset, s->bytes.data(), s->bytes.size()));
    ++writes;
    ++buffers;
  }
  {
    MutexLock lock(&core_.counters_mu);
    core_.counters.device_writes += writes;
    core_.counters.device_write_buffers += buffers;
  }
  for (const SealWrite& s : w->seals) SMR_RETURN_IF_ERROR(core_.zones->FinishZone(s.drive, s.zone));
  const uint64_t flush_start = NowNanos();
  Status flushed = FlushDrives(touched);
  MutexLock lock(&core_.counters_mu);
  core_.counters.commit_flush_ns += NowNanos() - flush_start;
  return flushed;
}

Status CommitPipeline::FlushDrives(const std::vector<bool>& touched) {
  std::vector<size_t> drives;
  for (size_t d = 0; d < touched.size(); ++d) {
    if (touched[d]) drives.push_back(d);
  }
  if (drives.size() == 1) return core_.devices[drives[0]]->Flush();
  // One flush per drive on the write pool (it has a thread per drive), all waited for
  // before returning: they point at nothing on this stack but the futures.
  std::vector<std::future<Status>> futures;
  futures.reserve(drives.size());
  for (size_t d : drives) {
    auto task = std::make_shared<std::packaged_task<Status()>>(
        [this, d] { return core_.devices[d]->Flush(); });
    futures.push_back(task->get_future());
    boost::asio::post(*io_pool_, [task] { (*task)(); });
  }
  Status first;
  for (auto& f : futures) {
    Status s = f.get();
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

}  // namespace smr
