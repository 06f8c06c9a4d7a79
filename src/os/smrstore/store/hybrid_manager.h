// HybridManager: elastic CMR/SMR capacity on hybrid drives, converted with bounded
// foreground latency, and the H-Buffer's eviction (store/hybrid_manager.cc).
//
// Contract
//   A hybrid drive (device/zoned_device.h, "Hybrid drives"; only the emulator models them)
//   keeps its realms as the drive has them at mkfs (the emulator's default: all CMR, so new
//   space is CMR first). The store writes CMR zones like sequential ones
//   (zone/zone_manager.h). Between commit groups, on the commit thread, the policy of
//   StoreOptions::hybrid_* decides (MaybeConvert):
//   * grow: the free fraction of the data zones is below hybrid_convert_free and a CMR realm
//     exists -> convert the CMR realm cheapest to empty (least live bytes; none of its zones
//     a journal zone or faulted) to SMR, if its live data fits in the free space outside it;
//   * shrink (hybrid_shrink_free > 0): the free fraction would still be above
//     hybrid_shrink_free without one SMR realm -> convert the SMR realm with the least live
//     bytes back to CMR.
//   An operator's request (Store::ConvertRealm -> ConvertRealm) is queued under the store's
//   `mu`, wakes the commit thread and is taken by MaybeConvert when no conversion runs.
//   One realm converts at a time, in four steps:
//   (1) drain: ZoneManager::BeginDrain (no allocation in it, its open zones sealed; their
//       seal writes wait in the commit pipeline's deferred_seals for the next group); its
//       zones are emptied by GC slices (GcSlice, store/gc_worker.h) of at most `quantum` live
//       bytes, one per commit group while foreground work is queued, back to back while
//       idle. The quantum is sized by gc/quantum_sizer.h from the quanta measured so far
//       (a fit of a fixed cost per quantum plus a cost per byte: a third of what the fixed
//       cost leaves of the bound is spent on bytes, the rest is margin; halved after a
//       quantum over the bound), and its walk stops at half the bound (a zone of dead
//       records costs header reads, not live bytes); a record larger than the quantum moves
//       in pieces of at least 64 KiB (split_records: one record each, the object's extent
//       split; the record is read and checked once, kept in the cursor for its next
//       pieces); each quantum's duration is recorded (the latency it added to a waiting
//       commit group) and counted as a violation when it exceeds the bound. Journal zones
//       and zones pinned by journal records are not relocated: a checkpoint (the metadata
//       journal's Checkpoint) frees or unpins them.
//   (2) take: every zone of it free -> ZoneManager::TakeRealm, their ZoneMeta committed free
//       (sync), then reads of older epochs are waited for (FenceReaders: a read that found
//       an extent in it before it moved must end before the drive destroys the data).
//   (3) activate: the drive's ActivateRealms runs on its own thread (it takes the drive's
//       conversion time; commit groups go on meanwhile, none can allocate in the realm).
//   (4) RefreshRealm + commit (FinishActivation): the new domain's zones are free data zones
//       (on failure the old domain's zones are free again and the failure is counted).
//   A crash at any step loses nothing: (1) is GC (relocations commit before a zone is given
//   up); after (2)'s commit nothing the metadata references lies in the realm; the drive's
//   conversion is atomic per realm; mount takes every realm's domain from the drive.
//   H-Buffer (hybrid_hbuffer, default on; MaybeEvict): the CMR space is a loop-back log for
//   the streams that prefer it (small, hot, young GC, journal; zone/stream.h). When at
//   most kHBufferLowZones CMR zones are free while SMR zones beyond the GC reserve are, the
//   oldest sealed CMR zone is emptied — one quantum per commit group, the same sizing and
//   bound as a conversion — into the SMR-preferring gc-cold stream: what survived a whole
//   loop of the buffer is cold; hot data was rewritten at the log's head meanwhile.
//   Zone-Swap (same switch): while the buffer has kSwapRoomZones free CMR zones more than
//   that, a sealed SMR zone opened within the last kSwapWindow transactions whose data is
//   at least half dead holds hot data: its survivors move, in quanta, into the young GC
//   stream, which prefers CMR.
//   A drain that cannot proceed (a slice fails: no room, a bad record; the checkpoint for
//   its journal zones fails) is abandoned: the realm takes data again, `stalled` says why,
//   and the policy retries after kRetryAfter.
//
// Invariants
//   At most one conversion runs (`conversion`); while it drains, its realm is draining in
//   the zone manager and no other zone cursor (GC's, the eviction's) is on the zone its
//   cursor empties: GC leaves the drain's and the eviction's zones out of its victims
//   (EmptiesZone), a drain takes over GC's cursor when it is in the realm, and the eviction
//   picks no zone of the draining realm nor GC's victim. A request's promise is kept
//   (pending_request_done) until its conversion ends — done, failed, abandoned or
//   unmounted — and is set exactly once.
//
// Thread safety
//   The commit thread calls everything but ConvertRealm and Counters; the fields marked
//   "commit thread" are touched by it alone (also without group_mu, between groups).
//   Slices, checkpoints and commits run with the store's group_mu held: the private steps
//   that do SMR_REQUIRES(core_.group_mu); the public entry points that take it are
//   SMR_EXCLUDES(core_.group_mu). The activation thread touches only the drive.
//   ConvertRealm (any thread) queues `convert_request` under the store's `mu`, which
//   guards it; RequestQueued is called with `mu` held. `hybrid_mu` guards the counters
//   (`hybrid`, read by Counters from any thread), the retry time and the quantum sizer;
//   it is taken last and never held across I/O.
#pragma once

#include <chrono>
#include <cstdint>
#include <future>
#include <optional>
#include <vector>

#include "common/thread_annotations.h"
#include "gc/quantum_sizer.h"
#include "store/store.h"
// StoreCore; GcCursor (the GC's cursor, store/gc_worker.h).
#include "store/store_internal.h"
#include "zone/zone_manager.h"

namespace smr {

class HybridManager {
 public:
  // `core`: the store's shared parts; through core.peers it calls GC (slices, its cursor),
  // the journal (checkpoints) and the pipeline (the deferred seals).
  explicit HybridManager(StoreCore& core) : core_(core) {}
  HybridManager(const HybridManager&) = delete;
  HybridManager& operator=(const HybridManager&) = delete;

  // Commit thread, group_mu not held (they take it for their slices and commits).
  // Starts, advances or completes a conversion per the options' policy; one quantum at
  // most per call. `queued`: foreground work is waiting (the quantum adds to its latency).
  // `for_space`: a commit group needs room now: convert whatever CMR realm can grow the
  // store, whatever the watermark, and wait for the drive's conversion.
  void MaybeConvert(bool queued, bool for_space = false) SMR_EXCLUDES(core_.group_mu);
  // H-Buffer (StoreOptions::hybrid_hbuffer): when CMR data zones run short while SMR ones
  // are free, empties the oldest sealed CMR zone (a loop-back log: what survived a whole
  // loop is cold) into the SMR-preferring gc-cold stream, one quantum per call. True when
  // it ran a quantum.
  bool MaybeEvict(bool queued) SMR_EXCLUDES(core_.group_mu);
  // Converts CMR realms until users can write `bytes` (or nothing can be converted); true
  // when a realm was converted. EnsureSpace calls it before cleaning.
  bool GrowForSpace(uint64_t bytes) SMR_EXCLUDES(core_.group_mu);
  // Waits for an activation in flight and records its outcome (step 4).
  void FinishActivation() SMR_EXCLUDES(core_.group_mu);
  // At unmount (the commit loop, its queue empty and the store stopping, `mu` not held):
  // waits for an activation in flight (FinishActivation), drops a drain in progress (it
  // resumes from scratch at the next mount), and answers the pending request and a queued
  // one with kBusy.
  void StopForUnmount() SMR_EXCLUDES(core_.group_mu, core_.mu);

  // Commit thread.
  bool converting() const { return conversion.has_value(); }
  // Whether a cleaning cursor of this manager (a drain's, the H-Buffer eviction's) is on
  // `zone`: GC leaves it out of its victims (PickVictim, group_mu held).
  bool EmptiesZone(const ZoneAddress& zone) const;
  // Whether an operator's request waits for MaybeConvert; the caller holds the store's `mu`
  // (checked: Mutex::AssertHeld).
  bool RequestQueued() const;

  // Any thread.
  // Store::ConvertRealm: queues the request (kBusy when one is queued or the store is
  // unmounting), wakes the commit thread and waits for the conversion's outcome.
  // kReadOnly, kInvalidArgument (no such drive), kNotSupported (not a hybrid drive) at once.
  Status ConvertRealm(uint16_t drive, uint32_t realm, ZoneDomain to) SMR_EXCLUDES(core_.mu);
  // The hybrid counters and the conversion in progress (Store::Hybrid, Stats).
  HybridCounters Counters() SMR_EXCLUDES(hybrid_mu);

 private:

  // A conversion (commit thread): draining, its live data moves out in quanta (GC slices
  // of `quantum` live bytes, sized from the measured relocation rate so one quantum takes
  // at most the latency bound); activating: the drive converts it on `activation`'s thread.
  struct Conversion {
    uint16_t drive = 0;
    uint32_t realm = 0;
    ZoneDomain to = ZoneDomain::kSmr;
    bool activating = false;
    uint64_t live_at_start = 0;
    uint64_t moved = 0;
    std::optional<GcCursor> cursor;
    std::future<Status> activation;
    std::chrono::steady_clock::time_point started;
    std::chrono::steady_clock::time_point last_progress;
  };
  // Store::ConvertRealm's request, taken by MaybeConvert when no conversion runs; its
  // promise is kept in pending_request_done until the end.
  struct ConvertRequest {
    uint16_t drive = 0;
    uint32_t realm = 0;
    ZoneDomain to = ZoneDomain::kSmr;
    std::promise<Status> done;
  };

  // MaybeConvert's steps, on the commit thread (group_mu held only where said).
  // When the store stopped taking writes (`fatal`, read under mu): a waiting request and
  // the pending request get the reason, a drain (not an activation) is cancelled; true.
  bool ConversionStoppedByFatal() SMR_EXCLUDES(core_.mu);
  // No conversion running: takes an operator's request (under mu) or applies the policy
  // (grow when free space is low or `for_space`, shrink when high); true when a conversion
  // started (BeginConversion). A refused request gets its Status.
  bool StartConversion(bool for_space) SMR_EXCLUDES(core_.mu);
  // Checks `request` against `realms`: *pick is its realm if any; true when refused (the
  // request's promise then holds kInvalidArgument, kBusy or kNoSpace).
  bool RefuseConvertRequest(ConvertRequest* request, const std::vector<RealmStatus>& realms,
                            const RealmStatus** pick);
  // The CMR realm cheapest to convert to SMR whose live data fits elsewhere, or null.
  const RealmStatus* RealmToGrow(const std::vector<RealmStatus>& realms);
  // The SMR realm with the least live bytes without which the free fraction (`free` now)
  // stays above hybrid_shrink_free, or null.
  const RealmStatus* RealmToShrink(const std::vector<RealmStatus>& realms, double free);
  // Step (1)'s start: BeginDrain of `pick` (its seals into the pipeline's deferred_seals),
  // `conversion` set, the hybrid status updated and logged; false when BeginDrain failed
  // (a pending request gets its Status).
  bool BeginConversion(const RealmStatus* pick, ZoneDomain to);
  // Finds the next zone of the draining realm to empty (GC's cursor's victim when it is in
  // the realm) into c->cursor. True when this call's work is done: only journal zones (or
  // pinned ones) were left and a checkpoint ran to free them, or it failed and the
  // conversion was abandoned (AbandonConversion; *c is gone then).
  bool NextDrainZone(Conversion* c) SMR_REQUIRES(core_.group_mu);
  // The realm is empty (`now`: its status): steps (2) and (3): takes the realm (committed
  // free, synced), waits for older readers, starts the activation. A failed commit sets
  // `fatal`.
  void TakeAndActivateRealm(Conversion* c, const RealmStatus& now) SMR_REQUIRES(core_.group_mu);
  // One quantum of the drain (a GcSlice of NextQuantum() live bytes, split_records, half
  // the latency bound), its bookkeeping and the hybrid status; abandons the conversion
  // when the slice fails.
  void DrainQuantum(Conversion* c, const RealmStatus& now, bool queued)
      SMR_REQUIRES(core_.group_mu);
  // Ends the drain in progress: its realm takes data again; `why` goes to the log, the
  // hybrid status and a waiting ConvertRealm request.
  void AbandonConversion(const Status& why) SMR_REQUIRES(core_.group_mu);
  // The live bytes the next migration quantum may move (rate × bound / 2), and the
  // bookkeeping of one that ran (rate EWMA, its duration, bound violations).
  uint64_t NextQuantum() SMR_EXCLUDES(hybrid_mu);
  void NoteQuantum(uint64_t quantum, uint64_t moved, double ms, bool queued)
      SMR_EXCLUDES(hybrid_mu);

  StoreCore& core_;

  std::optional<Conversion> conversion;  // commit thread; at most one realm converts
  // The H-Buffer's eviction (MaybeEvict): the zone being emptied (commit thread).
  std::optional<GcCursor> evict_cursor;
  StreamId evict_to = StreamId::kGcCold;  // gc-cold: eviction to SMR; gc: Zone-Swap to CMR
  std::optional<ConvertRequest> convert_request SMR_GUARDED_BY(core_.mu);
  std::optional<std::promise<Status>> pending_request_done;  // commit thread
  Mutex hybrid_mu{"hybrid_mu"};  // guards `hybrid` (read by Counters from any thread)
  HybridCounters hybrid SMR_GUARDED_BY(hybrid_mu);
  std::chrono::steady_clock::time_point hybrid_retry_at SMR_GUARDED_BY(hybrid_mu);
  QuantumSizer quantum_sizer SMR_GUARDED_BY(hybrid_mu);  // migration quanta's sizes
};

}  // namespace smr
