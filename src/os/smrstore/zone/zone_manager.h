// ZoneManager: which zone of which drive the next record goes to, and what each zone holds.
//
// Contract
//   Manages the sequential zones of one or more drives (ZonedDevice). Each drive keeps up
//   to kReservedZones zones for the superblock log (its first conventional zones, or its
//   first sequential zones when it has no conventional one); every other sequential zone
//   is a data zone, in one of these states:
//     free   - empty, in the free pool
//     open   - owned by one stream on that drive, receiving records at its write pointer
//     sealed - full (by writes, or finished when the next record did not fit)
//   Each stream has at most one open zone per drive; allocations of a stream rotate over the
//   drives (round-robin), so a stream's data is spread over all drives. The store therefore
//   keeps at most kNumStreams zones open per drive; a drive whose open/active limit is
//   smaller makes all streams share one open zone on it.
//
//   Allocate() hands out space in allocation order: records allocated in one zone must be
//   written in the order they were allocated (the zone's write pointer). When a record does
//   not fit in a stream's open zone, the zone is sealed: a zone footer record listing its
//   records (format/record.h) is made if room was kept for it, and the zone is finished:
//   the call that sealed it (Allocate, BeginDrain) returns that write to its caller, who
//   issues it after the records allocated before the seal. Live bytes per zone are adjusted by the caller as extents
//   are created and dropped; dirty zones are reported by TakeDirtyZones() for persisting.
//
//   Hybrid drives (device/zoned_device.h, "Hybrid drives"): the zones of each realm's active
//   domain are data zones. CMR data zones (conventional) are written exactly like sequential
//   ones — records in order from the zone start — but the write pointer is the manager's:
//   kept here and persisted as ZoneMeta::committed_wp; they are never reset or finished on
//   the drive (FinishZone skips them; ResetZone zeroes their first block) and bytes past
//   committed_wp are simply overwritten. A CMR zone that held committed records is zeroed
//   at its first block when it becomes free (ResetZone; Load for a zone GC emptied; Format;
//   RollBack for a zone the failed work wrote): a walk from a zone's start (rebuild-meta)
//   meets its current records, then zeros or an earlier use's records, whose sequence
//   numbers are smaller; records of transactions that never committed are voided by the
//   walk's mount markers, as on sequential zones. Zones of a realm's inactive domain are kInactive: no data, no capacity.
//   Converting a realm (store/hybrid_manager.cc drives it): BeginDrain stops allocation in it (its
//   open zones are sealed); once the caller has moved every live byte out and each of its
//   zones is free, TakeRealm takes them out (kInactive, ZoneMeta free: the caller commits
//   that before converting the drive), and RefreshRealm after the drive's ActivateRealms —
//   done or failed — makes the realm's active domain's zones free data zones again.
//
//   Load() reconciles persisted ZoneMeta with the drives' zone reports at mount:
//   - device write pointer beyond committed_wp: bytes from a transaction that never
//     committed — dead space, counted in dead_on_mount_bytes(), never referenced;
//   - a written zone with no ZoneMeta (only uncommitted data): reset, returned to free;
//   - device write pointer behind committed_wp: committed data is missing -> kCorruption.
//   Open zones whose write pointer is exactly at their committed end resume receiving
//   records there (without a footer); other written zones are finished (sealed).
//
// Thread safety: all methods are thread-safe (one mutex). Allocation order is only
// meaningful when a single thread allocates and writes (the store's commit thread).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/thread_annotations.h"
#include "device/zoned_device.h"
#include "format/record.h"
#include "format/zone_meta.h"
#include "zone/stream.h"

namespace smr {

struct ZoneAddress {
  uint16_t drive = 0;
  uint32_t zone = 0;
  bool operator<(const ZoneAddress& o) const {
    return drive != o.drive ? drive < o.drive : zone < o.zone;
  }
  bool operator==(const ZoneAddress& o) const { return drive == o.drive && zone == o.zone; }
};

struct Allocation {
  uint16_t drive = 0;
  uint32_t zone = 0;
  uint64_t offset = 0;  // device byte offset of the record
};

// A write the caller must issue (a sealed zone's footer record), then finish the zone.
struct SealWrite {
  uint16_t drive = 0;
  uint32_t zone = 0;
  uint64_t offset = 0;   // device byte offset of the footer record (0 bytes: no footer)
  std::string bytes;     // the whole footer record, empty when the zone had no room
};

// A zone opened for a stream (ZoneManager::TakeOpenedZones).
struct OpenedZone {
  uint16_t drive = 0;
  uint32_t zone = 0;
  StreamId stream = StreamId::kUser;
  uint64_t opened_seq = 0;
};

// kInactive: a zone of a hybrid drive's realm that is active in the other domain (or is
// being converted): holds nothing, never allocated, counts in no capacity.
enum class ZoneState : uint8_t { kReserved, kFree, kOpen, kSealed, kInactive };
const char* ZoneStateName(ZoneState s);

// One zone as the manager sees it (for df, stats, GC and fsck).
struct ZoneStatus {
  ZoneAddress addr;
  ZoneState state = ZoneState::kFree;
  StreamId stream = StreamId::kUser;  // meaningful when open or sealed
  uint64_t start = 0;                 // device byte offset
  uint64_t capacity = 0;
  uint64_t written = 0;       // bytes allocated (the write pointer the store will reach)
  uint64_t live_bytes = 0;    // payload bytes referenced by committed extents
  uint64_t committed_wp = 0;  // persisted
  uint64_t opened_seq = 0;
  ZoneCondition device_cond = ZoneCondition::kEmpty;  // as last seen
  bool cmr = false;  // a CMR data zone of a hybrid drive (conventional; software write pointer)
  std::optional<uint32_t> realm;  // hybrid drives: the realm the zone belongs to
  // A data zone holding metadata journal records a rebuild still needs (newer than the
  // last checkpoint): never reset until a checkpoint unpins it (ZoneManager::PinJournal).
  bool journal_pinned = false;
  // Bytes from the zone start of the zone footer record queued when the zone was sealed
  // (persisted as ZoneMeta::footer_at, so later mounts know it too), 0 when not known: GC
  // reads the footer to skip records it can tell are dead without reading their headers.
  uint64_t footer_at = 0;
  // Payload bytes of the records placed in the zone (their footer entries' payload_len),
  // when known: for a zone opened since the manager loaded, else nullopt. With live_bytes it
  // tells the live records' footprint (headers, padding) apart from the dead (Store::Statfs).
  std::optional<uint64_t> payload_written;
};

// One realm of a hybrid drive as the manager sees it (ZoneManager::Realms).
struct RealmStatus {
  uint16_t drive = 0;
  uint32_t realm = 0;
  ZoneDomain domain = ZoneDomain::kCmr;  // active domain
  bool draining = false;  // BeginDrain: no allocation in it, being emptied
  bool taken = false;     // TakeRealm: its zones are out, the drive converts it
  uint32_t zones = 0;         // zones of its active domain
  uint32_t free_zones = 0;
  uint64_t capacity = 0;      // bytes of its active domain's zones
  uint64_t written = 0;       // bytes written in them
  uint64_t live_bytes = 0;
  bool has_journal = false;   // a journal zone is in it (freed by checkpoints, not by GC)
  bool faulted = false;       // one of its zones is offline or read-only
};

class ZoneManager {
 public:
  static constexpr uint32_t kReservedZones = 2;  // superblock log: two zones to roll over

  // `drives` must outlive the manager.
  explicit ZoneManager(std::vector<ZonedDevice*> drives);
  ZoneManager(const ZoneManager&) = delete;
  ZoneManager& operator=(const ZoneManager&) = delete;

  // Reads the drives' geometry and zone reports and picks the reserved zones; changes
  // nothing on the drives. Load() and Format() call it.
  Status Attach();
  // Mount-time reconciliation (see the contract). `persisted` is MetaStore::LoadZones.
  // Resets zones that hold only uncommitted data and finishes zones it will not resume,
  // unless `modify` is false (read-only mounts: the drives are left exactly as they are).
  Status Load(const std::map<std::pair<uint16_t, uint32_t>, ZoneMeta>& persisted,
              bool modify = true);
  // For a new store: every data zone must be empty (resets any that are not).
  Status Format();

  // Space for a record of `bytes` (a multiple of 4096, at most a zone's capacity minus the
  // footer reserve) for `stream`, and notes `entry` for the zone footer. A user stream
  // that can get no zone of its own (no free zone beyond the GC reserve) borrows room in
  // another user stream's open zone. Likewise a GC stream with no open zone, when the
  // drive is down to the reserve, writes into the other GC stream's open zone if it fits
  // rather than open a second GC zone (both count in borrowed_allocations()). A record
  // larger than the zone's footer that fits only without the footer's room takes it on a
  // sequential zone — on a rotational drive only a record of at least 1/64 of the zone —
  // and that zone is then sealed without a footer (a footer saves reads, the tail would
  // stay unused). Zones sealed on the way (open zones that could not take the record) append
  // their SealWrite to `*seals`, in seal order — on error too. Errors: kNoSpace when there is
  // no room either, kInvalidArgument for a bad size.
  Result<Allocation> Allocate(StreamId stream, uint64_t bytes, const ZoneFooterEntry& entry,
                              uint64_t seq, std::vector<SealWrite>* seals);
  // Grows the record allocated at `a` by `extra` bytes (a multiple of 4096) when it is
  // still the last allocation of its zone, the zone is open and the bytes fit (with the
  // footer reserve); `entry` (but its block) replaces the record's footer entry. Returns
  // whether it grew (false: nothing changed; allocate a new record instead). Pack records
  // (format/record.h) grow this way while a commit group adds entries to them; `extra` 0
  // only updates the footer entry.
  bool TryExtend(const Allocation& a, uint64_t old_bytes, uint64_t extra,
                 const ZoneFooterEntry& entry);
  // Space for a record of `bytes` in one given zone, right after what was allocated in it
  // last: nullopt unless the zone is open and the record fits (with the footer reserve).
  // Never seals or opens a zone. The metadata journal record of a commit group goes where
  // the group's data goes this way (no seek to a journal zone on a drive with a head).
  std::optional<Allocation> AllocateIn(ZoneAddress zone, uint64_t bytes,
                                       const ZoneFooterEntry& entry);

  // Journal pins (store/metadata_journal.cc): data zones holding journal records newer than the
  // last complete checkpoint. A pinned zone is never freed here (Load does not free it
  // when nothing in it is live; ReleaseZone is for the caller's GC, which skips pinned
  // zones); ClearJournalPins after a checkpoint. SetJournalPins before Load (mount).
  void SetJournalPins(const std::vector<ZoneAddress>& pins);
  // Returns true when the zone was not pinned before.
  bool PinJournal(ZoneAddress zone);
  void ClearJournalPins();
  std::vector<ZoneAddress> JournalPins() const;

  // Zones opened since the last call (the metadata journal records them, so a rebuild
  // knows each zone's stream).
  std::vector<OpenedZone> TakeOpenedZones();
  // Sets an open or sealed zone's stream and age (rebuild-meta: what the journal said; an
  // open zone whose stream already has one is sealed).
  void SetZoneStream(uint16_t drive, uint32_t zone, StreamId stream, uint64_t opened_seq);

  // Live-byte bookkeeping (delta may be negative).
  void AddLive(uint16_t drive, uint32_t zone, int64_t delta);
  // After a commit: the committed write pointer of every zone written in it.
  void MarkCommitted(uint16_t drive, uint32_t zone, uint64_t committed_wp);
  // Zones whose ZoneMeta changed since the last call, with their new value.
  std::vector<std::pair<ZoneAddress, ZoneMeta>> TakeDirtyZones();

  // Allocation rollback, for work that allocated and then failed before it committed (a
  // GC slice that met a bad record or a write error). MarkAllocations() saves the
  // allocation state: zones, open slots, round-robin cursors, dirty set. Seal writes made
  // since the mark were returned to their callers, who drop them with the failed work.
  // RollBack(mark) restores it, as if no Allocate since had happened, then reconciles it
  // with what a failed write may have left on the drives: a zone written past its restored
  // write pointer is finished (sealed, the tail dead space, as mount does), and a zone free
  // again that holds bytes is reset. Errors: the drives' (zone report, finish, reset).
  // REQUIRES: no other thread allocated, or changed live bytes, since the mark.
  class AllocationMark {
   private:
    friend class ZoneManager;
    struct State;
    std::shared_ptr<const State> state_;
  };
  AllocationMark MarkAllocations() const;
  Status RollBack(const AllocationMark& mark);

  // Media faults at run time. Re-reads every drive's zone report; a zone the drive now
  // reports offline or read-only (and did not before) is retired: never allocated again
  // (its open slot is freed; a free zone leaves the free pool: sealed, nothing live), its
  // ZoneMeta marked dirty. Its extents stay referenced: a read-only zone still reads, an
  // offline zone's objects are lost (Store::Fsck lists them). A zone that reported a fault
  // before keeps its state. Returns the zones retired by this call. Errors: the drives'
  // zone reports. Mount (Load) does the same for faults found at mount.
  Result<std::vector<ZoneAddress>> RefreshConditions();

  // Placement switches (from StoreOptions): with `shared` every stream uses one open zone
  // per drive (the baseline placement); `reserve` free zones per drive are kept for the GC
  // stream, so cleaning can always relocate.
  // `journal_reserve` more free zones per drive are kept for the metadata journal alone
  // (from users and from GC: GC's commits write journal records too), so a full drive
  // can still commit, checkpoint and mount.
  void Configure(bool shared, uint32_t reserve, uint32_t journal_reserve = 0);
  // Sets the journal's reserve (the store sizes it to its last checkpoint: Configure).
  void SetJournalReserve(uint32_t zones);
  // Whether the journal has begun taking its reserve on some drive (fewer free zones than
  // it): a checkpoint then frees the obsolete journal zones before it runs out.
  bool JournalInReserve() const;
  // Hybrid drives: whether streams prefer their domain (stream.h PrefersCmr; the default)
  // or take the first free zone of either (the baseline the H-Buffer is measured against).
  void SetDomainPlacement(bool on);
  // Free data zones in CMR and in SMR (sequential) zones over all drives, draining realms'
  // zones not counted.
  std::pair<uint32_t, uint32_t> FreeZonesByDomain() const;
  // Returns a reset victim zone to the free pool (its accounting zeroed).
  void ReleaseZone(uint16_t drive, uint32_t zone);
  // Free data zones and all data zones over all drives, not counting the zones kept for GC
  // (nor a draining realm's free zones, nor inactive zones); free_fraction() is free / total
  // (0 without data zones).
  struct FreeZones {
    uint64_t free = 0;
    uint64_t total = 0;
  };
  FreeZones free_zones() const;
  double free_fraction() const;
  // Bytes users can surely still write: free zones beyond the GC reserve plus the room left
  // in open zones of the user streams, each zone less one record (`max_record_bytes`, the
  // tail a zone may not fit). Any user stream may use that room: Allocate falls back to
  // another user stream's open zone when its own stream can get no zone.
  uint64_t user_free_bytes(uint64_t max_record_bytes) const;
  // User records placed in another user stream's zone for want of a zone (since load).
  uint64_t borrowed_allocations() const;

  // --- Hybrid drives (see the contract). ---
  // Realms of every hybrid drive (empty when none is hybrid).
  std::vector<RealmStatus> Realms() const;
  // Stops allocation in the realm: its open zones are sealed (their SealWrites appended to
  // `*seals`, for the caller to issue with its next writes) and none of its free zones is
  // opened until CancelDrain or a conversion. A zone sealed here and released or taken
  // (ReleaseZone, TakeRealm) before its seal was written must not get it: it is no longer
  // kSealed, which is what the caller checks. Errors: kInvalidArgument (no such realm, or
  // it is taken).
  Status BeginDrain(uint16_t drive, uint32_t realm, std::vector<SealWrite>* seals);
  void CancelDrain(uint16_t drive, uint32_t realm);
  // Takes the drained realm's zones out (kInactive; their ZoneMeta marked dirty as free).
  // Errors: kInvalidArgument (not draining), kBusy (a zone of it is not free).
  Status TakeRealm(uint16_t drive, uint32_t realm);
  // Re-reads the realm from the drive (after ActivateRealms, whether it succeeded or not):
  // the zones of its active domain become free data zones, the others kInactive; it is no
  // longer draining or taken. Errors: the drive's reports; kBusy if it is not taken.
  Status RefreshRealm(uint16_t drive, uint32_t realm);
  // The drive operations on a data zone. CMR zones (conventional: their write pointer is
  // the manager's) are not finished, and "reset" zeroes their first block: a free CMR zone
  // never starts with a record (rebuild-meta walks CMR zones from their start).
  Status ResetZone(uint16_t drive, uint32_t zone);
  Status FinishZone(uint16_t drive, uint32_t zone);

  // Reserved (superblock) zones of a drive, in order.
  std::vector<uint32_t> ReservedZones(uint16_t drive) const;
  size_t nr_drives() const { return drives_.size(); }
  ZonedDevice* drive(uint16_t d) const { return drives_[d]; }

  std::vector<ZoneStatus> Snapshot() const;
  // Snapshot() and user_free_bytes(max_record_bytes) of the same moment (taken under one
  // lock): what Store::Statfs and the stats document count StoreStatfs::writable from.
  std::vector<ZoneStatus> Snapshot(uint64_t max_record_bytes, uint64_t* user_free) const;
  // One zone's state (kReserved for an address out of range).
  ZoneState StateOf(uint16_t drive, uint32_t zone) const;
  // Live bytes of open and sealed zones per stream (index = StreamId value; 0 unused), and
  // the stream of one zone (nullopt unless open or sealed): cheap, no copy of the zones.
  std::array<uint64_t, kNumStreams + 1> LiveBytesByStream() const;
  std::optional<StreamId> StreamOf(ZoneAddress addr) const;
  uint64_t free_bytes() const;       // capacity of free zones + room left in open zones
  uint64_t data_capacity() const;    // capacity of all data zones
  uint64_t dead_on_mount_bytes() const;

 private:
  // Writes zeros over a CMR zone's first block (the zone's "reset").
  static Status ClearCmrHead(ZonedDevice* dev, uint32_t zone);
  // Forgets a queued seal of the zone (its footer and finish): the zone was reset.
  struct Zone {
    ZoneState state = ZoneState::kFree;
    StreamId stream = StreamId::kUser;
    uint64_t capacity = 0;
    uint64_t written = 0;
    uint64_t live = 0;
    uint64_t committed_wp = 0;
    uint64_t opened_seq = 0;
    bool footer_ok = true;  // footer entries complete (false for zones resumed at mount)
    uint64_t payload = 0;        // ZoneStatus::payload_written ...
    bool payload_known = true;   // ... false for zones loaded written at mount
    std::vector<ZoneFooterEntry> footer;
    uint64_t footer_at = 0;  // ZoneStatus::footer_at
    ZoneCondition device_cond = ZoneCondition::kEmpty;
    bool cmr = false;  // hybrid drive: CMR data zone (software write pointer)
  };
  struct Realm {
    ZoneDomain domain = ZoneDomain::kCmr;
    bool draining = false;
    bool taken = false;
  };
  struct Drive {
    ZonedDevice* dev = nullptr;
    std::vector<Zone> zones;
    std::vector<uint32_t> reserved;
    std::array<std::optional<uint32_t>, kNumStreams> open;  // stream -> open zone
    bool shared_open = false;  // open limit too small, or shared placement: open[0] only
    std::vector<Realm> realms;  // hybrid drives only
  };
  // Whether zone `z` of `drive` lies in a realm that is draining or taken.
  bool InDrainingRealm(const Drive& drive, uint32_t z) const SMR_REQUIRES(mu_);
  // Snapshot() and user_free_bytes() with mu_ held.
  std::vector<ZoneStatus> SnapshotLocked() const SMR_REQUIRES(mu_);
  uint64_t UserFreeBytesLocked(uint64_t max_record_bytes) const SMR_REQUIRES(mu_);
  // Sets the zones of one realm from a zone report of the drive (Attach, RefreshRealm).
  void ApplyRealm(Drive& drive, uint32_t realm, const std::vector<ZoneInfo>& report)
      SMR_REQUIRES(mu_);
  // Load's steps for zone `z` of drive `d` (zone_manager.cc says what each does).
  Status LoadZone(uint16_t d, uint32_t z, const std::vector<ZoneInfo>& report,
                  const ZoneMeta* m, bool modify) SMR_REQUIRES(mu_);
  Status LoadCommittedZone(uint16_t d, uint32_t z, const ZoneInfo& zi, const ZoneMeta& m,
                           bool modify) SMR_REQUIRES(mu_);

  std::optional<uint32_t>& OpenSlot(Drive& d, StreamId s) SMR_REQUIRES(mu_);
  // Seals the zone (appends its footer write to `*out`) and frees the stream's slot.
  void Seal(uint16_t drive, uint32_t zone, std::vector<SealWrite>* out) SMR_REQUIRES(mu_);
  // Opens a free zone for `stream` on `drive`; nullopt if the drive has none (or only
  // reserved-for-GC ones and `stream` is not the GC stream).
  std::optional<uint32_t> OpenNewZone(uint16_t drive, StreamId stream, uint64_t seq)
      SMR_REQUIRES(mu_);
  // True when the drive's free zones are down to the GC (and journal) reserve.
  bool InReserve(const Drive& drive) const SMR_REQUIRES(mu_);
  uint32_t FreeCount(const Drive& drive) const SMR_REQUIRES(mu_);  // free data zones
  uint64_t FooterReserve(const Zone& z) const;
  void MarkDirty(uint16_t drive, uint32_t zone) SMR_REQUIRES(mu_);
  // RefreshConditions for one zone the drive reports as `cond`; true if it was retired now.
  bool RetireIfFaulted(uint16_t drive, uint32_t zone, ZoneCondition cond) SMR_REQUIRES(mu_);

  mutable Mutex mu_;
  std::vector<ZonedDevice*> drives_;
  std::vector<Drive> state_ SMR_GUARDED_BY(mu_);
  std::array<uint16_t, kNumStreams> next_drive_ SMR_GUARDED_BY(mu_) = {};
  std::map<ZoneAddress, bool> dirty_ SMR_GUARDED_BY(mu_);
  std::vector<OpenedZone> opened_ SMR_GUARDED_BY(mu_);
  uint64_t dead_on_mount_ SMR_GUARDED_BY(mu_) = 0;
  bool shared_ SMR_GUARDED_BY(mu_) = false;
  uint64_t borrowed_ SMR_GUARDED_BY(mu_) = 0;
  uint32_t reserve_ SMR_GUARDED_BY(mu_) = 0;
  uint32_t journal_reserve_ SMR_GUARDED_BY(mu_) = 0;
  bool domain_placement_ SMR_GUARDED_BY(mu_) = true;
  std::set<ZoneAddress> journal_pins_ SMR_GUARDED_BY(mu_);
};

}  // namespace smr
