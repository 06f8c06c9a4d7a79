// GcWorker: zone garbage collection of a mounted store (store/gc_worker.cc).
//
// Contract
//   Picks victims (sealed data zones with dead bytes, gc/victim_policy.h), relocates their
//   live extents into the GC streams and commits the new locations (records durable, then
//   the metadata that points at them), and resets a victim only after (1) that commit and
//   (2) every read that may still use its old extents has ended (the read fence). The GC's
//   own victims wait for (2) off the commit thread (ReapResets, between groups); whole
//   victims for callers that need the zone now (GcOne, cleaning for space) and a hybrid
//   drain's wait for it. A crash before (1) leaves the victim as it was (the new records
//   are dead space); a crash between (1) and the reset leaves a sealed zone with no live
//   bytes, which mount resets.
//   For the commit pipeline: background GC between groups (MaybeGc, paced by gc/pacer.h),
//   a slice riding in a commit group (RideGcSlice, then GcPlanSlice into the group's batch,
//   CountSliceMoves and GcFinishSlice after its commit), cleaning for space (EnsureSpace,
//   CleanForSpace) and Store::RunGc's whole victims (GcOne). For the hybrid manager: slices
//   of its own cursors (GcSlice with a deadline, a destination stream, split records), and
//   the GC's cursor (gc_cursor()) to carry on with when its victim is in a draining realm.
//
// Invariants
//   gc_cursor() holds the victim being cleaned (if any) and the device offset of its next
//   record; the victim is sealed, so nothing below the cursor changes. A slice that fails
//   before its commit rolls its allocations back and its victim goes to the quarantine
//   (left out of victims for kQuarantinePicks << (failures - 1) picks, at most 1024); a
//   zone leaves the quarantine when it is reset. A victim is reset only when the zone
//   manager counts no live bytes in it. lifetime_gc_bytes() is the persisted counter
//   (kCounterGcBytes) as last committed.
//
// Thread safety
//   Everything but gc_auto()/SetGcAuto() runs on the commit thread (or the opening thread
//   before it starts). Slices hold core_.group_mu: public methods that the commit thread
//   calls with group_mu held (GcOne, GcSlice, GcPlanSlice, GcFinishSlice, Quarantine)
//   begin with core_.group_mu.AssertHeld(); MaybeGc, EnsureSpace, CleanForSpace and
//   RideGcSlice take it themselves (SMR_EXCLUDES). The read-ahead, the quarantine and the
//   pick count are SMR_GUARDED_BY(core_.group_mu); the cursor, the pacer, space_short,
//   gc_barren_at and lifetime_gc_bytes are commit-thread-only (also read between groups,
//   without group_mu). gc_auto is atomic (SetGcAuto and Stats from any thread). Counters
//   go to core_.counters under core_.counters_mu; the run state is read under core_.mu.
// Include order: this header needs StoreCore (its lock expressions) and Store::Impl needs
// GcCursor and GcWorker, so store/store_internal.h includes it right after StoreCore; it
// includes store_internal.h first, and its guard is set only after that, so either header
// may be included first.
#include "store/store_internal.h"

#ifndef SMRSTORE_STORE_GC_WORKER_H_
#define SMRSTORE_STORE_GC_WORKER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/thread_annotations.h"
#include "device/zoned_device.h"
#include "format/record.h"
#include "gc/pacer.h"
#include "gc/quantum_sizer.h"
#include "gc/read_ahead.h"
#include "meta/meta_store.h"
#include "store/store.h"
#include "zone/zone_manager.h"

namespace smr {

// A victim being cleaned, slice by slice: the GC's own (GcWorker::gc_cursor()), or a hybrid
// conversion's or the H-Buffer eviction's (store/hybrid_manager.h).
struct GcCursor {
  ZoneStatus victim;
  uint64_t pos;  // device offset of the next record to look at
  // The record at `pos` as read and checked by the slice that moved part of it
  // (split_records), for the next pieces; the victim is sealed, so it cannot change.
  std::shared_ptr<const std::string> payload;
  // The victim's zone footer (its records in zone order), read by the first slice when
  // the zone has one (ZoneStatus::footer_at) and it checked out; null: every record's
  // header is read. A live data record the footer lists is read with its header in one
  // device read.
  std::shared_ptr<const std::vector<ZoneFooterEntry>> footer;
  bool footer_tried = false;
};

// A GC slice planned but not yet committed (GcWorker::GcPlanSlice).
struct GcSlicePlan {
  GcReport report;
  uint64_t pos = 0;     // where the cursor goes once committed
  bool at_end = false;  // the victim's end was reached: reset it once committed
  std::shared_ptr<const std::string> partial_payload;
  bool any = false;     // something to commit
};

class GcWorker {
 public:
  // `core`: the store's shared parts; GC calls the pipeline, the hybrid manager and the
  // journal through core.peers.
  explicit GcWorker(StoreCore& core) : core_(core) {}
  GcWorker(const GcWorker&) = delete;
  GcWorker& operator=(const GcWorker&) = delete;

  static constexpr uint64_t kGcSliceBytes = 4ull << 20;  // live bytes per background slice
  using Deadline = std::optional<std::chrono::steady_clock::time_point>;

  // Mount (Store::Impl::OpenDrives, LoadZonesAndCounters): the pacer from the options.
  void SetPacer(const GcPaceOptions& o) { gc_pacer_ = GcPacer(o); }
  // Background and for-space GC on or off (StoreOptions::gc_auto, Store::SetGcAuto); any
  // thread.
  bool gc_auto() const { return gc_auto_; }
  void SetGcAuto(bool on) { gc_auto_ = on; }
  // Record bytes GC ever wrote, as persisted (kCounterGcBytes): loaded at mount, advanced
  // by WriteAndCommit once a group's commit made its GC bytes durable; commit thread.
  uint64_t lifetime_gc_bytes() const { return lifetime_gc_bytes_; }
  void set_lifetime_gc_bytes(uint64_t v) { lifetime_gc_bytes_ = v; }
  // The GC's own cursor (commit thread): the commit pipeline plans a ridden slice of it,
  // the hybrid manager takes it over when its victim is in a draining realm.
  std::optional<GcCursor>& gc_cursor() { return gc_cursor_; }
  // Set by the planner when a transaction found no zone for a record (it went back to the
  // queue); the commit loop then cleans a whole zone first (CleanForSpace). Commit thread.
  bool space_short() const { return space_short_; }
  void set_space_short(bool v) { space_short_ = v; }
  // The free fraction GC's pacer compares with its watermarks: the data zones' free
  // fraction, scaled when StoreOptions::gc_free_zones_max caps them (gc/pacer.h,
  // GcPacedFree).
  double GcFree() const;

  // Cleans one victim; NotFound when no zone has dead bytes. group_mu held.
  Result<GcReport> GcOne();
  // Runs background GC per the watermarks before a commit group; `queued` tells whether
  // foreground work is waiting (counted as throttle time); `group_bytes`, the zone bytes
  // the group about to commit needs (byte pacing, gc_slice_ms > 0).
  void MaybeGc(bool queued, uint64_t group_bytes = 0) SMR_EXCLUDES(core_.group_mu);
  // Cleans until users can write `bytes` (or nothing is left to clean).
  void EnsureSpace(uint64_t bytes) SMR_EXCLUDES(core_.group_mu);
  // A transaction found no zone for a record (space_short): a conversion, else one whole
  // victim (a few tries past victims whose cleaning fails), which frees a zone to the user
  // streams.
  void CleanForSpace() SMR_EXCLUDES(core_.group_mu);
  // Whether the pacer wants a slice with this group (picking a victim if none is in hand):
  // its live bytes, or 0. `group_bytes`: the zone bytes the group may need (SpaceNeeded);
  // with gc_slice_ms > 0 they bound the slice's time (SliceBudget), and the credit is
  // earned by what the groups before it did write to the zones (NoteGroupZoneBytes;
  // gc/pacer.h, PacedBytes).
  uint64_t RideGcSlice(uint64_t group_bytes) SMR_EXCLUDES(core_.group_mu);
  // A slice that rode in a commit group moved `moved` live bytes and added `ms` to it (its
  // planning, and its share by bytes of the group's write and commit): the ridden slices'
  // time fit (gc_slice_ms > 0). Commit thread.
  void NoteRiddenSlice(uint64_t moved, double ms);
  // A user group committed `bytes` of user records to the zones (GroupWrites::user_bytes;
  // inline data and metadata are not in it): byte pacing's credit is earned from these
  // at the next pacing decision (gc_slice_ms > 0). Commit thread.
  void NoteGroupZoneBytes(uint64_t bytes) { zone_bytes_written_ += bytes; }
  // What the last background round (MaybeGc), cleaning for space (EnsureSpace,
  // CleanForSpace) or ridden slice's victim pick (RideGcSlice) did, for the commit
  // thread's slow-step log: slices and victims finished, live bytes moved, and where the
  // time went (victim picks, the checkpoints a pick takes to unpin zones, read-ahead,
  // slices). Reset as each of those begins. Commit thread.
  struct RoundTrace {
    uint32_t slices = 0;
    uint32_t victims_done = 0;
    uint32_t read_ahead_yields = 0;
    uint64_t live_moved = 0;
    double pick_ms = 0;        // PickVictim, its checkpoints included
    double checkpoint_ms = 0;  // checkpoints a pick took to unpin journal-pinned zones
    double read_ahead_ms = 0;
    double slice_ms = 0;  // GcSlice: the victim's reads not read ahead, writes, commit, reset
    double plan_ms = 0;    // ... of which planning (the victim's reads not read ahead)
    double commit_ms = 0;  // ... writing the relocations and committing them
    double finish_ms = 0;  // ... the cursor's advance, a finished victim's fence and reset
    bool arrival = false;  // an idle round ended because a transaction arrived
    // "3 slices, 1 victims done, 2.0 MiB moved; pick 5 ms (checkpoint 0 ms), read-ahead 120
    // ms (1 yields), slices 300 ms (plan 20, write and commit 250, finish 30)"
    std::string ToString() const;
  };
  const RoundTrace& last_round() const { return round_; }
  // The current fits of slice time (ms = fixed + per MiB * MiB), for the log and tests.
  const QuantumSizer& ride_sizer() const { return ride_sizer_; }
  const QuantumSizer& idle_sizer() const { return idle_sizer_; }

  // One slice of cleaning `cursor`'s victim (the GC's own cursor, or a hybrid conversion's):
  // until about `max_live` live bytes moved, the zone's end, or — when given — `deadline`
  // passed (checked before each record after the first: a walk over dead records is bounded
  // in time too); relocates and commits; *zone_done when the victim was reset.
  // `to`, when given, is the stream every relocated extent goes to (the H-Buffer's
  // eviction: SMR-preferring gc-cold); else young data to gc, old data to gc-cold.
  // `split_records` (hybrid quanta): an extent longer than what is left of `max_live` moves
  // in pieces (at least 64 KiB each, one record per piece; the cursor stays on the record
  // until all of it moved), so a quantum is not bounded below by the largest record.
  // Without it a record's live extents move whole.
  // `stop_on_arrival` (idle GC, StoreOptions::gc_idle_yield): the slice also ends, before
  // the next record (after the first), once a foreground transaction is queued; what it
  // planned so far is written and committed as usual. group_mu held.
  Result<GcReport> GcSlice(std::optional<GcCursor>* cursor, uint64_t max_live, bool* zone_done,
                           Deadline deadline = std::nullopt,
                           std::optional<StreamId> to = std::nullopt, bool split_records = false,
                           bool stop_on_arrival = false);
  // The two halves of a slice, for a slice that rides in a foreground commit group
  // (CommitGroup) as well as for GcSliceOrFail. GcPlanSlice plans the relocations into
  // `batch` and `writes` (nothing is written; the cursor is not moved); on error the caller
  // discards both and rolls the zone allocations back. GcFinishSlice, after the commit
  // that made them durable: the cursor, and at the victim's end its reset (after the read
  // fence). CountSliceMoves, right after that commit and before the callbacks of a group
  // the slice rode in: counters read after a commit include the moves it carried.
  // GcPlanSlice and GcFinishSlice: group_mu held.
  Result<GcSlicePlan> GcPlanSlice(std::optional<GcCursor>* cursor, uint64_t max_live,
                                  MetaStore::Batch* batch, GroupWrites* writes,
                                  Deadline deadline, std::optional<StreamId> to,
                                  bool split_records, bool stop_on_arrival = false);
  Result<GcReport> GcFinishSlice(std::optional<GcCursor>* cursor, GcSlicePlan plan,
                                 bool* zone_done);
  void CountSliceMoves(const GcSlicePlan& plan) SMR_EXCLUDES(core_.counters_mu);
  // Victims of the GC's own cursor whose relocations committed wait here for the reads
  // that may still use their old extents (those that entered the read fence before the
  // commit) before they are reset (GcFinishSlice defers them; a hybrid drain's victims are
  // reset at once). ReapResets resets those whose reads have ended — `wait`: all of them,
  // waiting — each checked to be still sealed, empty and the same zone (not reset and
  // reused meanwhile); returns the first reset's error (the zone stays sealed and empty:
  // mount resets it). group_mu held. ReapResetsBetweenGroups: the same, taking group_mu,
  // logging an error. Victims waiting count as free for the pacer (GcFree) and are never
  // picked again. Commit thread.
  Status ReapResets(bool wait);
  void ReapResetsBetweenGroups(bool wait) SMR_EXCLUDES(core_.group_mu);
  bool resets_pending() const { return !pending_resets_.empty(); }
  // A zone whose cleaning failed (a record failing its crc, a read or write error): left
  // out of the victims for a while (see Invariants), logged and counted (gc_failures,
  // gc_quarantined_zones). group_mu held.
  void Quarantine(const ZoneAddress& zone, const Status& why);

 private:
  // One slice of the GC's own cursor: picks a victim if none is in hand, relocates up to
  // `max_live` live bytes of it and commits; *zone_done when the victim was reset.
  // `read_ahead` (idle GC, StoreOptions::gc_read_ahead): the records of this slice (of at
  // least kGcSliceBytes of live data: slices shorter than that share one read-ahead) are
  // read ahead first (GcReadAheadFor); when an arrival stops that, no slice runs (an empty
  // report, *zone_done false) and the arrival goes first.
  Result<GcReport> GcStep(uint64_t max_live, bool* zone_done, bool stop_on_arrival = false,
                          bool read_ahead = false) SMR_REQUIRES(core_.group_mu);
  Result<ZoneStatus> PickVictim() SMR_REQUIRES(core_.group_mu);
  // The footer of `victim` when this mount sealed it and it reads back with a valid crc,
  // listing records that tile the zone up to it; else null (logged when the footer is
  // there but does not check out; GC then reads every header). At most kMaxFooterRead
  // bytes are read. Errors: the drive's read error (GC fails as for any other read).
  static constexpr uint64_t kMaxFooterRead = 8ull << 20;
  Result<std::shared_ptr<const std::vector<ZoneFooterEntry>>> ReadFooterIndex(
      ZonedDevice* dev, const ZoneStatus& victim);
  // GcSlice's work; *committed once its relocations are durable (no rollback after that).
  Result<GcReport> GcSliceOrFail(std::optional<GcCursor>* cursor, uint64_t max_live,
                                 bool* zone_done, bool* committed, Deadline deadline,
                                 std::optional<StreamId> to, bool split_records,
                                 bool stop_on_arrival) SMR_REQUIRES(core_.group_mu);
  // GcPlanSlice's steps, on the commit thread with group_mu held (as GcPlanSlice). The
  // state they share: the slice's victim, the caller's cursor (its pos and payload read,
  // not moved), batch and writes, the slice's parameters, its seq, its report so far, and
  // the objects whose extents it moved (`touched`: their onodes as changed, put into the
  // batch at the slice's end).
  struct GcPlanState {
    ZoneStatus victim;
    ZonedDevice* dev = nullptr;
    GcCursor* cursor = nullptr;
    MetaStore::Batch* batch = nullptr;
    GroupWrites* writes = nullptr;
    uint64_t max_live = 0;
    std::optional<StreamId> to_stream;
    bool split_records = false;
    uint64_t gc_seq = 0;
    GcReport report;
    struct Touched {
      uint64_t cid;
      ObjectId oid;
      Onode onode;
    };
    std::map<uint64_t, Touched> touched;  // by nid
  };
  // The object that owns `nid` now (read through the batch: a slice riding in a commit
  // group sees the group's changes; once read, from `touched`), or null when no object
  // does. Errors: the metadata's read errors.
  Result<GcPlanState::Touched*> GcLookup(GcPlanState* s, uint64_t nid);
  // Counts a crc error and returns the kCorruption of the victim's record at `at` (of
  // `rh`'s type) failing its checksum.
  Status GcCrcFailure(const ZoneStatus& victim, const RecordHeader& rh, uint64_t at);
  // With the victim's footer, the record at *pos: true when the footer lists it and it is
  // not a live data record (a record other than data or pack, or data no object references
  // there): *pos is moved past it without reading its header. Else false; for a live data
  // record the footer lists, *prefetched is made the size of its payload (read with its
  // header), unless the cursor holds its payload or it passes `end`.
  Result<bool> GcFooterPassOver(GcPlanState* s, const std::vector<ZoneFooterEntry>& footer,
                                uint64_t end, uint64_t* pos,
                                std::shared_ptr<std::string>* prefetched);
  // Relocates the live extents of the victim's record at `pos` (header `h`; `prefetched`:
  // its payload if read with the header): data records whole or, with split_records, up to
  // max_live in pieces; packs' entries whole. *kept: the record's payload once read (from
  // the cursor, `prefetched` or the drive; checked against its crc). True when the record
  // keeps live bytes for the next slice (the cursor stays on it). Errors: read errors,
  // kCorruption for a payload failing its crc (GcCrcFailure), placement errors.
  Result<bool> GcMoveRecord(GcPlanState* s, const RecordHeader& h, uint64_t pos,
                            std::shared_ptr<std::string> prefetched,
                            std::shared_ptr<const std::string>* kept)
      SMR_REQUIRES(core_.group_mu);
  // Places `bytes` (extent *e of object `t`/`nid`, as it will be after the move) as a new
  // record or pack entry in to_stream (else by age: gc or gc-cold), points *e at it and
  // accounts the move (live deltas, gc bytes, the report). Errors: placement errors.
  Status GcMoveExtent(GcPlanState* s, GcPlanState::Touched* t, uint64_t nid,
                      std::string bytes, Extent* e);
  // Whether a foreground transaction is queued (or the store is stopping): idle GC yields.
  bool ForegroundWaiting();
  // Idle GC's read-ahead of the cursor's victim (StoreOptions::gc_read_ahead): when the
  // live records of the next `need` payload bytes from the cursor on are not all held, its
  // live records from the cursor on until `target` payload bytes of them are held or the
  // zone's end (with the victim's footer: the records it lists that are live now, and pack
  // records; without: the bytes from the cursor on, the target and a quarter more), read in
  // pieces of at most GcReadAhead::kPiece, each after a check for a foreground arrival.
  // true: all of it is held; false: an arrival stopped it (what was read stays held).
  // Errors: the drive's read error (the caller treats it as the slice's).
  Result<bool> GcReadAheadFor(GcCursor* cursor, uint64_t need, uint64_t target)
      SMR_REQUIRES(core_.group_mu);
  // A slice's read of its victim: from gc_ahead when it holds all of it, else the drive.
  Status GcReadVictim(ZonedDevice* dev, const ZoneStatus& victim, uint64_t offset,
                      const std::vector<ZonedDevice::ReadPiece>& pieces)
      SMR_REQUIRES(core_.group_mu);
  static GcReadAhead::Key ReadAheadKey(const ZoneStatus& victim) {
    return GcReadAhead::Key{victim.addr.drive, victim.addr.zone, victim.start, victim.opened_seq};
  }
  // Live bytes of the next idle GC slice: options.gc_idle_slice, or (0) the pacer's
  // IdleSlice for the current free space; with gc_slice_ms > 0, at most what the idle
  // slices' time fit allows in gc_slice_ms.
  uint64_t IdleSliceBytes();
  // Byte pacing (gc_slice_ms > 0): the live bytes a slice riding in (or paced against) a
  // group needing `group_bytes` may move: the ridden slices' fit for the larger of
  // gc_slice_ms and the group's own write time (group_bytes at half the fitted slice rate:
  // a slice reads and writes each byte, the group only writes).
  uint64_t SliceBudget(uint64_t group_bytes);
  // The live fraction the pacer's credit is figured for: the victim in hand's, else the
  // last victim's.
  double VictimLive() const;
  // Byte pacing: the live bytes of the slice the group needing `group_bytes` carries (or
  // is preceded by), 0 for none (gc/pacer.h, PacedBytes with SliceBudget, credited with
  // the zone bytes noted since the last call).
  uint64_t PacedSliceBytes(uint64_t group_bytes);

  StoreCore& core_;

  std::atomic<bool> gc_auto_{true};
  GcPacer gc_pacer_{GcPaceOptions{}};  // when background GC runs (set from options at open)
  // gc_slice_ms > 0: slice time fits, of slices riding in groups (or paced against them)
  // and of idle slices (which read ahead: mostly write time). A slice targets half of what
  // a fit's fixed cost leaves of its time; commit thread only.
  static constexpr double kSliceShare = 0.5;
  QuantumSizer ride_sizer_{kSliceShare};
  QuantumSizer idle_sizer_{kSliceShare};
  double last_victim_live_ = 0.5;  // live / written of the last victim picked
  double last_ride_bound_ms_ = 0;  // the time SliceBudget sized the last budget for
  double last_slice_ms_ = 0;       // GcStep: how long its slice (not its read-ahead) took
  RoundTrace round_;               // commit thread (last_round)
  uint64_t zone_bytes_written_ = 0;  // NoteGroupZoneBytes since the last PacedSliceBytes
  struct PendingReset {
    ZoneStatus victim;     // as GcFinishSlice found it
    uint64_t epoch = 0;    // the read fence's epoch after its relocations committed
    bool waited = false;   // counted in gc_fence_waits
  };
  std::vector<PendingReset> pending_resets_;  // commit thread (ReapResets)
  bool IsPendingReset(const ZoneAddress& zone) const;
  // Resets an emptied victim, releases it, commits its zone metadata (sync), counts it.
  Status ResetVictim(const ZoneStatus& victim) SMR_REQUIRES(core_.group_mu);
  uint64_t lifetime_gc_bytes_ = 0;     // commit thread (and the opening thread)
  std::optional<GcCursor> gc_cursor_;  // commit thread
  GcReadAhead gc_ahead_ SMR_GUARDED_BY(core_.group_mu);
  // Zones whose cleaning failed (a record failing its crc, a read or write error): GC
  // leaves them out of its victims until PickVictim has run `kQuarantinePicks << (failures
  // - 1)` more times (at most 1024), then tries again. Forgotten when the zone is reset.
  // Their number is counters.gc_quarantined_zones (stats: gc.quarantined_zones).
  struct Quarantined {
    uint32_t failures = 0;
    uint64_t retry_at_pick = 0;
  };
  static constexpr uint64_t kQuarantinePicks = 16;
  // Victims whose cleaning may fail before EnsureSpace gives up on a group's room.
  static constexpr int kGcTriesForSpace = 4;
  std::map<ZoneAddress, Quarantined> quarantine_ SMR_GUARDED_BY(core_.group_mu);
  uint64_t gc_picks_ SMR_GUARDED_BY(core_.group_mu) = 0;
  bool space_short_ = false;  // commit thread only
  // user_deaths' value when cleaning for space last stopped paying (EnsureSpace): until
  // more bytes die, cleaning for space is not tried again — a full store answers NoSpace at
  // once rather than relocating zones for every refused transaction. Commit thread only.
  std::optional<uint64_t> gc_barren_at_;
};

}  // namespace smr

#endif  // SMRSTORE_STORE_GC_WORKER_H_
