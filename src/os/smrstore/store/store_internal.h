// Internals of Store shared by store/*.cc (not a public header).
//
// Parts (each a section of Store::Impl below, with the file that implements it):
//   commit pipeline   store.cc        Submit queues; CommitLoop groups transactions, plans
//                                     them (txn_planner.cc, PlanTransaction) into one
//                                     MetaStore::Batch and one GroupWrites, writes the group's
//                                     records (WriteGroup, on `io_pool`), flushes the drives,
//                                     commits the batch with sync (WriteAndCommit) and runs the
//                                     callbacks in submission order.
//   read path         read_path.cc    reads on callers' threads against committed metadata,
//                                     each under a ReadFence::Reader (read_fence.h).
//   GC                gc.cc           victims, slices (alone or riding in a group), resets
//                                     after FenceReaders.
//   hybrid drives     hybrid_manager.h / hybrid_manager.cc: HybridManager (member
//                                     `hybrid_manager`), realm conversions and the H-Buffer's
//                                     eviction; its header states its contract and locks.
//   metadata journal  journal.cc      journal records with each group, checkpoints.
//
// Threads and locks
//   One commit thread owns the commit-thread state (marked "commit thread"); it holds
//   `group_mu` while anything writes and commits (WriteAndCommit requires it; Fsck takes it
//   to pause commits). `mu` guards the queue and the run state (stopping, closed, fatal, a
//   conversion request) and is never held across I/O; lock order group_mu before mu.
//   `counters_mu` and HybridManager's `hybrid_mu` guard the counters Stats reads from any
//   thread; the read fence has its own lock. Every lock is an annotated Mutex: clang's thread-safety
//   analysis (qa/static/thread_safety.py, part of `make test`) checks the GUARDED_BY and
//   REQUIRES marks.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/thread_pool.hpp>

#include "common/thread_annotations.h"
#include "device/zoned_device.h"
#include "format/journal.h"
#include "format/record.h"
#include "gc/death_rate.h"
#include "gc/lifetime_history.h"
#include "gc/pacer.h"
#include "gc/read_ahead.h"
#include "meta/meta_store.h"
#include "store/read_fence.h"
#include "store/store.h"
#include "zone/zone_manager.h"

namespace smr {

// Names of values and counters in MetaStore.
inline constexpr char kValueSuperblock[] = "superblock";
inline constexpr char kValueDevices[] = "devices";
inline constexpr char kValueOptions[] = "options";
inline constexpr char kValueJournal[] = "journal";  // last complete checkpoint (journal.cc)
// Data zones holding journal records newer than that checkpoint (journal.cc, "pins"): one
// "DRIVE ZONE" line each; absent = none.
inline constexpr char kValueJournalPins[] = "journal_pins";
inline constexpr char kCounterSeq[] = "seq";
inline constexpr char kCounterNid[] = "nid_max";
inline constexpr char kCounterCid[] = "cid_max";
inline constexpr char kCounterUserBytes[] = "lifetime_user_bytes";
inline constexpr char kCounterDeviceBytes[] = "lifetime_device_bytes";
inline constexpr char kCounterTxns[] = "lifetime_txns";
inline constexpr char kCounterInlineStored[] = "inline_stored_bytes";
inline constexpr char kCounterGcBytes[] = "lifetime_gc_bytes";
// Written by rebuild-meta when it left journal records out (their data torn or missing):
// the sequence number of the last record it replayed. The next mount's marker carries it
// instead of `seq` (which stays above every record on the drives), so that the records left
// out are void from then on for every later rebuild; that mount removes it.
inline constexpr char kCounterRebuiltCommitted[] = "rebuilt_committed_seq";

// A data record planned but not yet written. `payload` points into the transaction's own
// write buffer (alive until the group's callbacks ran) or into `owner`.
struct PendingRecord {
  RecordHeader header;
  std::string_view payload;
  std::shared_ptr<const std::string> owner;
  StreamId stream = StreamId::kUser;
  bool referenced = true;
  Allocation where;  // valid once allocated
  uint64_t payload_at = 0;  // device byte of its payload (entry) once allocated
  bool in_pack = false;     // placed as a pack entry (PlacePacked)
  uint32_t pack_offset = 0;
  bool allocated = false;
};

// The crc32c of every record a transaction's writes will make, computed by Store::Submit on
// the caller's thread so the commit thread does not (store/txn_planner.cc): a write's data
// is cut into records of `chunk` bytes from its first byte on, so per_op[i][k] is the crc
// of bytes [k * chunk, (k + 1) * chunk) of op i's data (empty for ops that write nothing).
struct WriteCrcs {
  uint32_t chunk = 0;
  std::vector<std::vector<uint32_t>> per_op;
};

// Everything one commit group will write.
struct GroupWrites {
  // Per zone, the pieces to write starting at `offset`, contiguous, in allocation order:
  // header blocks and padded tails are owned here, payloads are views (no copy).
  struct ZoneBuffer {
    uint16_t drive = 0;
    uint32_t zone = 0;
    uint64_t offset = 0;
    uint64_t length = 0;
    uint32_t order = 0;  // the group's n-th zone buffer (WriteGroup's order on a drive)
    std::vector<std::string_view> pieces;
    std::vector<std::unique_ptr<std::string>> owned;
  };
  std::map<ZoneAddress, ZoneBuffer> zones;
  uint32_t zones_created = 0;
  std::vector<SealWrite> seals;
  // Payloads of records allocated in this group, by (drive, payload device offset).
  std::map<std::pair<uint16_t, uint64_t>, std::string_view> payloads;
  std::vector<std::shared_ptr<const std::string>> keep_alive;
  std::map<ZoneAddress, int64_t> live_delta;
  std::map<ZoneAddress, int64_t> gc_live_delta;  // the part of live_delta GC relocations made
  std::vector<uint64_t> death_ages_ns;  // ages of objects removed in this group
  // (name hash, lifetime ns) of objects removed or overwritten whole in this group, for
  // lifetime_history after the commit.
  std::vector<std::pair<uint64_t, uint64_t>> name_deaths;
  // A pack record (format/record.h, RecordType::kPack) being filled by this group: small
  // data writes share its blocks. While open it is the last allocation of its zone and
  // grows with each entry (ZoneManager::TryExtend); ClosePacks* writes its header block
  // and padding, before anything else is placed in its zone and before the group is
  // written (WriteGroup).
  struct OpenPack {
    Allocation at;                        // its header block
    uint64_t bytes = 0;                   // allocated: header block + payload to blocks
    RecordHeader header;                  // kPack, the directory so far
    std::string* header_block = nullptr;  // owned by its ZoneBuffer; encoded at close
    uint32_t crc = 0;                     // crc32c of the payload so far
  };
  std::map<StreamId, OpenPack> packs;
  void ClosePack(StreamId stream);
  void ClosePacksIn(uint16_t drive, uint32_t zone);
  void CloseAllPacks();

  uint64_t user_bytes = 0;
  uint64_t gc_bytes = 0;       // record bytes written by GC relocations
  uint64_t inline_bytes = 0;   // inline payload bytes written
  // Pack records closed in this group (ClosePack), counted once the group commits.
  uint64_t pack_records = 0;
  uint64_t pack_entries = 0;
  uint64_t pack_payload_bytes = 0;
  uint64_t pack_record_bytes = 0;  // header blocks + payloads padded to blocks
  int64_t inline_delta = 0;    // change of the bytes held inline in RocksDB

  // Appends a whole record (header block, payload, zero padding) to `buf`.
  static void AppendRecordPieces(const RecordHeader& h, std::string_view payload,
                                 ZoneBuffer* buf);
};

// A GC slice planned but not yet committed (Store::Impl::GcPlanSlice).
struct GcSlicePlan {
  GcReport report;
  uint64_t pos = 0;     // where the cursor goes once committed
  bool at_end = false;  // the victim's end was reached: reset it once committed
  std::shared_ptr<const std::string> partial_payload;
  bool any = false;     // something to commit
};

// The store's own lock (DIR/lock, flock): exclusive for a read-write mount, shared for a
// read-only one, so a read-only mount (fsck, a probe) never runs beside a writer and takes
// nothing a writer would need. Released when the Impl goes (after Close).
struct StoreLock {
  int fd = -1;
  StoreLock() = default;
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;
  ~StoreLock();
};

struct PlanContext;
class HybridManager;  // store/hybrid_manager.h

// The parts of a mounted store that its components share (Store::Impl derives from it;
// the components — commit pipeline, GC worker, hybrid manager, metadata journal, read
// path — are handed a StoreCore&, and call one another only through their own classes).
// What guards each field is marked on it; "commit thread" fields are written only by the
// thread that holds group_mu (the commit thread, or Open before it starts).
struct StoreCore {
  StoreLock lock;  // first member: released last
  std::string dir;
  StoreOptions options;
  std::vector<std::unique_ptr<ZonedDevice>> devices;
  std::unique_ptr<MetaStore> meta;
  std::unique_ptr<ZoneManager> zones;
  StoreSuperblock superblock;  // this mount's (drive_index of drive 0)
  bool read_only = false;

  // The store's run state. `mu` guards it (and the commit pipeline's queue); the commit
  // thread waits on `cv` for work. Never held across device I/O or a metadata commit.
  Mutex mu{"mu"};
  CondVar cv;
  bool stopping SMR_GUARDED_BY(mu) = false;
  bool closed SMR_GUARDED_BY(mu) = false;
  // Set when a write or commit failed: the store takes no more writes.
  Status fatal SMR_GUARDED_BY(mu);
  // Held while a group (or a GC slice, a checkpoint, a conversion step) writes and commits:
  // WriteAndCommit requires it. Fsck holds it to pause commits. Taken before `mu` when
  // both are held.
  Mutex group_mu SMR_ACQUIRED_BEFORE(mu){"group_mu"};

  // Owned by the commit thread.
  uint64_t seq = 0;
  uint64_t nid_max = 0;
  uint64_t cid_max = 0;
  uint64_t meta_nid_max = 0;  // values last committed (counters are written when they move)
  uint64_t meta_cid_max = 0;

  Mutex counters_mu{"counters_mu"};
  StoreCounters counters SMR_GUARDED_BY(counters_mu);
  uint64_t inline_stored SMR_GUARDED_BY(counters_mu) = 0;  // bytes of object data held inline in RocksDB (committed)

  // Reads against zone resets (store/read_fence.h): reads hold a ReadFence::Reader; GC and
  // hybrid drains call FenceReaders after committing relocations and before resetting the
  // victim (counted as counters.gc_fence_waits when it had to wait).
  ReadFence read_fence;
  void FenceReaders() SMR_EXCLUDES(counters_mu);

  // Lifetime statistics (commit thread): mean age of data when it dies (EWMA, in ns of
  // onode mtime), to split GC relocations into young and old; and per stream the bytes
  // that died vs the integral of live bytes over time (txn seqs), the death rate the
  // lifetime policy needs.
  double mean_lifetime_ns = 0;
  // Lifetimes of the last dead incarnation per name: a new object under a name whose
  // previous incarnation died young goes to the user-hot stream (txn_planner.cc).
  LifetimeHistory lifetime_history;
  DeathRateEstimator death_rates{kNumStreams + 1};  // indexed by StreamId; clock = seq
  void NoteDeath(uint64_t age_ns);
  // Device bytes of the largest record a user write makes (header block + payload), plus
  // a footer's worth: what a zone's tail may be unable to take.
  uint64_t MaxRecordBytes() const {
    constexpr uint64_t kB = recfmt::kBlockSize;
    return 2 * kB + (uint64_t{options.max_record_payload} + kB - 1) / kB * kB;
  }
  void UpdateDeathRates(const GroupWrites& w);
  // Bytes users' writes and removes made dead, ever (UpdateDeathRates).
  uint64_t user_deaths = 0;
  uint64_t ZoneSize(uint16_t drive) const { return devices[drive]->info().zone_size; }
  void CountCrcError();
  void CountDataRead();  // one device read of one record's data
};

struct Store::Impl : StoreCore {

  // Store::Open's steps (store.cc), in its order, on the opening thread before any other
  // thread of this store runs (no lock held; counters_mu taken for the analysis).
  // The metadata database of `dir`: opened (read_only as set), the store superblock and
  // options read and checked; returns the drives' specs. Errors: the database's, phrased
  // as a damaged or unusable database (with `fix`, how to rebuild it) but for kBusy,
  // kNotSupported and kReadOnly; kInvalidArgument for another format version; kCorruption
  // for a device list that does not match the superblock.
  Result<std::vector<std::string>> OpenMetaStore(const std::string& fix);
  // Opens the drives of `specs` (through `opener` when given) and sets up what depends on
  // them and the options: the zone manager's configuration, gc_auto, journal_with_data,
  // gc_read_ahead, the GC pacer. Errors: a drive's open error, with its spec.
  Status OpenDrives(const std::vector<std::string>& specs, DeviceOpener opener);
  // Checks that every drive carries this store's superblock at its own index and takes
  // the highest sequence and mount count seen into `superblock`; returns whether the last
  // mount ended without a clean unmount (the database's or any drive's word).
  // Errors: kCorruption naming the drive's spec; a drive's read error.
  Result<bool> CheckDriveSuperblocks(const std::vector<std::string>& specs);
  // Loads the zones (with the journal pins; reconciled, changed only when read-write) and
  // the persisted counters. Errors: the database's and the zone manager's.
  Status LoadZonesAndCounters();
  // With the journal on (read-write mount): queues this mount's marker, writes it now in a
  // record of its own after a crash (or a rebuild that left records out), and writes the
  // first checkpoint of a store that has none. Errors: the commit's or the checkpoint's.
  Status JournalAtMount(bool after_crash);

  // Commit pipeline.
  struct Pending {
    Transaction txn;
    WriteCrcs crcs;  // of txn's records, computed by Submit on the caller's thread
    Callback done;
    // A GC request instead of a transaction (Store::RunGc): clean up to gc_zones zones and
    // report through gc_done.
    uint32_t gc_zones = 0;
    std::function<void(const Result<GcReport>&)> gc_done;
    // Times this transaction was planned, found no zone for a record, and went back to the
    // queue for the commit loop to clean first (CommitGroup; kSpaceRetries).
    uint32_t space_retries = 0;
  };
  std::deque<Pending> queue SMR_GUARDED_BY(mu);
  std::thread committer;
  std::unique_ptr<boost::asio::thread_pool> io_pool;
  // One thread that checks a whole read's record crcs beside the reader (read_path.cc:
  // record k is checked there while the reader reads record k+1), when it is not busy;
  // crc_jobs counts its queued and running checks.
  std::unique_ptr<boost::asio::thread_pool> crc_pool;
  std::atomic<int> crc_jobs{0};
  static constexpr int kMaxCrcJobs = 2;


  // GC (store/gc.cc), on the commit thread only.
  std::atomic<bool> gc_auto{true};
  GcPacer gc_pacer{GcPaceOptions{}};  // when background GC runs (set from options at open)
  uint64_t lifetime_gc_bytes = 0;
  // Cleans one victim; NotFound when no zone has dead bytes.
  Result<GcReport> GcOne() SMR_REQUIRES(group_mu);
  // One slice: picks a victim if none is in hand, relocates up to `max_live` live bytes of
  // it and commits; *zone_done when the victim was reset.
  // `read_ahead` (idle GC, StoreOptions::gc_read_ahead): the records of this slice (of at
  // least kGcSliceBytes of live data: slices shorter than that share one read-ahead) are
  // read ahead first (GcReadAheadFor); when an arrival stops that, no slice runs (an empty
  // report, *zone_done false) and the arrival goes first.
  Result<GcReport> GcStep(uint64_t max_live, bool* zone_done, bool stop_on_arrival = false,
                          bool read_ahead = false) SMR_REQUIRES(group_mu);
  Result<ZoneStatus> PickVictim() SMR_REQUIRES(group_mu);
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
  // One slice of cleaning `cursor`'s victim (the GC's own cursor, or a hybrid conversion's):
  // until about `max_live` live bytes moved, the zone's end, or — when given — `deadline`
  // passed (checked before each record after the first: a walk over dead records is bounded
  // in time too).
  // `to`, when given, is the stream every relocated extent goes to (the H-Buffer's
  // eviction: SMR-preferring gc-cold); else young data to gc, old data to gc-cold.
  // `split_records` (hybrid quanta): an extent longer than what is left of `max_live` moves
  // in pieces (at least 64 KiB each, one record per piece; the cursor stays on the record
  // until all of it moved), so a quantum is not bounded below by the largest record.
  // Without it a record's live extents move whole.
  // `stop_on_arrival` (idle GC, StoreOptions::gc_idle_yield): the slice also ends, before
  // the next record (after the first), once a foreground transaction is queued; what it
  // planned so far is written and committed as usual.
  // The footer of `victim` when this mount sealed it and it reads back with a valid crc,
  // listing records that tile the zone up to it; else null (logged when the footer is
  // there but does not check out; GC then reads every header). At most kMaxFooterRead
  // bytes are read. Errors: the drive's read error (GC fails as for any other read).
  static constexpr uint64_t kMaxFooterRead = 8ull << 20;
  Result<std::shared_ptr<const std::vector<ZoneFooterEntry>>> ReadFooterIndex(
      ZonedDevice* dev, const ZoneStatus& victim);
  using Deadline = std::optional<std::chrono::steady_clock::time_point>;
  Result<GcReport> GcSlice(std::optional<GcCursor>* cursor, uint64_t max_live, bool* zone_done,
                           Deadline deadline = std::nullopt,
                           std::optional<StreamId> to = std::nullopt, bool split_records = false,
                           bool stop_on_arrival = false) SMR_REQUIRES(group_mu);
  // GcSlice's work; *committed once its relocations are durable (no rollback after that).
  Result<GcReport> GcSliceOrFail(std::optional<GcCursor>* cursor, uint64_t max_live,
                                 bool* zone_done, bool* committed, Deadline deadline,
                                 std::optional<StreamId> to, bool split_records,
                                 bool stop_on_arrival) SMR_REQUIRES(group_mu);
  // The two halves of a slice, for a slice that rides in a foreground commit group
  // (CommitGroup) as well as for GcSliceOrFail. GcPlanSlice plans the relocations into
  // `batch` and `writes` (nothing is written; the cursor is not moved); on error the caller
  // discards both and rolls the zone allocations back. GcFinishSlice, after the commit
  // that made them durable: the cursor, and at the victim's end its reset (after the read
  // fence). CountSliceMoves, right after that commit and before the callbacks of a group
  // the slice rode in: counters read after a commit include the moves it carried.
  Result<GcSlicePlan> GcPlanSlice(std::optional<GcCursor>* cursor, uint64_t max_live,
                                  MetaStore::Batch* batch, GroupWrites* writes,
                                  Deadline deadline, std::optional<StreamId> to,
                                  bool split_records, bool stop_on_arrival = false);
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
                            std::shared_ptr<const std::string>* kept);
  // Places `bytes` (extent *e of object `t`/`nid`, as it will be after the move) as a new
  // record or pack entry in to_stream (else by age: gc or gc-cold), points *e at it and
  // accounts the move (live deltas, gc bytes, the report). Errors: placement errors.
  Status GcMoveExtent(GcPlanState* s, GcPlanState::Touched* t, uint64_t nid,
                      std::string bytes, Extent* e);
  // Whether a foreground transaction is queued (or the store is stopping): idle GC yields.
  bool ForegroundWaiting();
  Result<GcReport> GcFinishSlice(std::optional<GcCursor>* cursor, GcSlicePlan plan,
                                 bool* zone_done);
  void CountSliceMoves(const GcSlicePlan& plan) SMR_EXCLUDES(counters_mu);
  std::optional<GcCursor> gc_cursor;
  // Idle GC's read-ahead of the cursor's victim (StoreOptions::gc_read_ahead): when the
  // live records of the next `need` payload bytes from the cursor on are not all held, its
  // live records from the cursor on until `target` payload bytes of them are held or the
  // zone's end (with the victim's footer: the records it lists that are live now, and pack
  // records; without: the bytes from the cursor on, the target and a quarter more), read in
  // pieces of at most GcReadAhead::kPiece, each after a check for a foreground arrival.
  // true: all of it is held; false: an arrival stopped it (what was read stays held).
  // Errors: the drive's read error (the caller treats it as the slice's).
  Result<bool> GcReadAheadFor(GcCursor* cursor, uint64_t need, uint64_t target);
  // A slice's read of its victim: from gc_ahead when it holds all of it, else the drive.
  Status GcReadVictim(ZonedDevice* dev, const ZoneStatus& victim, uint64_t offset,
                      const std::vector<ZonedDevice::ReadPiece>& pieces);
  static GcReadAhead::Key ReadAheadKey(const ZoneStatus& victim) {
    return GcReadAhead::Key{victim.addr.drive, victim.addr.zone, victim.start, victim.opened_seq};
  }
  GcReadAhead gc_ahead;  // commit thread only
  // Live bytes of the next idle GC slice: options.gc_idle_slice, or (0) the pacer's
  // IdleSlice for the current free space.
  uint64_t IdleSliceBytes();
  // The free fraction GC's pacer compares with its watermarks: the data zones' free
  // fraction, scaled when StoreOptions::gc_free_zones_max caps them (gc/pacer.h,
  // GcPacedFree).
  double GcFree() const;
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
  std::map<ZoneAddress, Quarantined> quarantine;
  uint64_t gc_picks = 0;
  void Quarantine(const ZoneAddress& zone, const Status& why);
  // Hybrid drives: realm conversions and the H-Buffer's eviction (store/hybrid_manager.h).
  // Made by Store::Open. Held by pointer while it holds GcCursors (GC's, Store::Impl's
  // own type, which needs Store::Impl complete).
  std::unique_ptr<HybridManager> hybrid_manager;

  // Metadata journal (store/journal.cc), commit thread only.
  bool has_checkpoint = false;
  uint64_t checkpoint_id = 0;
  uint64_t checkpoint_seq = 0;
  uint64_t last_checkpoint_bytes = 0;
  // Sizes the zones kept for the journal alone to the last checkpoint (journal.cc).
  void SizeJournalReserve();
  uint64_t journal_bytes = 0;          // journal record bytes since the last checkpoint
  uint64_t journal_bytes_pending = 0;  // placed in the group being committed
  std::vector<JournalOp> journal_markers;  // written with the next journal record
  bool journal_markers_now = false;  // write a record for the markers alone (mount)
  // StoreOptions::journal_with_data as resolved at mount (unset: any drive rotational).
  bool journal_with_data = false;
  // StoreOptions::gc_read_ahead as resolved at mount (unset: any drive rotational).
  bool gc_read_ahead = false;
  // Checkpoint's own commits: the record goes to a journal zone whatever the placement.
  bool journal_own_zones_now = false;
  // The zone the last committed group wrote last (where a drive's head is): a group
  // without data puts its journal record there.
  std::optional<ZoneAddress> last_group_zone;
  // Journal pins as persisted (kValueJournalPins), to decode at mount and encode in a commit.
  static std::string EncodeJournalPins(const std::vector<ZoneAddress>& pins);
  static Result<std::vector<ZoneAddress>> DecodeJournalPins(const std::string& v);
  Status LoadJournalState();
  // kNotSupported for a store made before the metadata journal (no checkpoint, yet
  // collections or objects committed); Open calls it before anything is written.
  Status RefusePreJournalStore() const;
  // Places the journal record of `batch` (and pending markers) into `writes`; no-op when
  // the journal is off or there is nothing to journal. WriteAndCommit calls it.
  Status JournalBatch(MetaStore::Batch* batch, GroupWrites* writes);
  // The most journal op bytes one commit group may carry: its journal record must fit in
  // one zone (of the smallest capacity) beside the zone's footer, with room for the
  // markers JournalBatch adds. CommitGroup ends a group before the transaction that would
  // pass it, and fails a transaction that passes it alone (kInvalidArgument).
  uint64_t JournalOpsLimit() const;
  void JournalCommitted(bool ok);
  // Writes a complete checkpoint and frees the journal zones it makes obsolete.
  Status Checkpoint() SMR_REQUIRES(group_mu);
  // Checkpoint's state, shared by its steps (commit thread, commits paused as Checkpoint).
  struct CheckpointState {
    uint64_t id = 0;      // the checkpoint's id
    uint64_t at_seq = 0;  // its sequence number
    uint64_t chunks = 0;  // chunk records placed so far
    uint64_t bytes = 0;   // their record bytes
    std::vector<std::pair<std::string, std::string>> kvs;  // the chunk being filled
    uint64_t kv_bytes = 0;
    std::unique_ptr<GroupWrites> group;  // chunks placed and not yet committed
    uint64_t group_bytes = 0;
  };
  // Writes and commits the chunks placed in c->group, if any, and starts a new group.
  Status CheckpointFlushGroup(CheckpointState* c) SMR_REQUIRES(group_mu);
  // Places the chunk being filled (if any) as one kCheckpoint record in the journal
  // stream; flushes the group at every ~64 MiB. Errors: placement and commit errors.
  Status CheckpointEmitChunk(CheckpointState* c) SMR_REQUIRES(group_mu);
  // The checkpoint's completing commit: the kOpCheckpointDone marker and the zone-open
  // notes of every data zone in use, the journal state and cleared pins, in a journal
  // zone; then the in-memory state (checkpoint id, reserve, counters).
  Status CheckpointComplete(CheckpointState* c) SMR_REQUIRES(group_mu);
  // Frees the journal zones the checkpoint made obsolete: committed free (synced), then
  // reset; a failed reset stops writes (`fatal`, under mu) and is returned.
  Status ReleaseJournalZones(const std::vector<ZoneAddress>& obsolete);
  // A checkpoint when the journal has grown enough (after a commit group).
  // Takes a checkpoint when the journal since the last one is large, or (with `for_pins`)
  // when many data zones are pinned by journal records.
  void MaybeCheckpoint(bool for_pins = true);

  static constexpr uint64_t kGcSliceBytes = 4ull << 20;  // live bytes per background slice
  // Runs background GC per the watermarks before a commit group; `queued` tells whether
  // foreground work is waiting (counted as throttle time).
  void MaybeGc(bool queued);
  // Cleans until users can write `bytes` (or nothing is left to clean).
  void EnsureSpace(uint64_t bytes);
  // EnsureSpace's estimate is per drive, not per stream: a transaction may still find no
  // zone for one of its records (its stream has no open zone and the free ones are the
  // reserve). Such a transaction goes back to the queue up to kSpaceRetries times; before
  // the next group the commit loop converts or cleans one whole zone (CleanForSpace).
  static constexpr uint32_t kSpaceRetries = 3;
  bool space_short = false;  // commit thread only
  // user_deaths' value when cleaning for space last stopped paying (EnsureSpace): until
  // more bytes die, cleaning for space is not tried again — a full store answers NoSpace at
  // once rather than relocating zones for every refused transaction. Commit thread only.
  std::optional<uint64_t> gc_barren_at;
  void CleanForSpace();
  // Zone bytes a transaction may need (its payload plus record headers).
  uint64_t SpaceNeeded(const Transaction& txn) const;

  void CommitLoop();
  // Commits one group; `ride_live` > 0: a GC slice of that many live bytes of gc_cursor's
  // victim rides in it (StoreOptions::gc_in_groups).
  void CommitGroup(std::vector<Pending>* group, uint64_t ride_live = 0);
  // CommitGroup's steps, on the commit thread with group_mu held.
  // When the store stopped taking writes (`fatal`, read under mu): fails every transaction
  // of the group with the reason and returns true.
  bool FailGroupIfStopped(std::vector<Pending>* group);
  // Plans the group's transactions in order into `batch` and `writes`, each behind a save
  // point (rolled back when it fails or is deferred); (*results)[i] is transaction i's
  // outcome, *ok_count counts those planned. Returns the index of the first transaction
  // deferred (its journal ops would pass JournalOpsLimit, or it found no zone and may be
  // retried: space_short set), or the group's size.
  size_t PlanGroupTxns(std::vector<Pending>* group, MetaStore::Batch* batch,
                       GroupWrites* writes, std::vector<Status>* results, size_t* ok_count);
  // Plans a GC slice of `ride_live` live bytes of gc_cursor's victim into the group
  // (*ride). When it fails, its changes are taken back, the victim is quarantined and
  // gc_cursor reset; *s is set only when the rollback fails. Counts its time as throttle.
  void PlanRiddenSlice(uint64_t ride_live, MetaStore::Batch* batch, GroupWrites* writes,
                       std::optional<GcSlicePlan>* ride, Status* s);
  // After the group's device writes failed (*s): rolls back its allocations and retires
  // the zones the drive reports offline or read-only. True (logged, counted) when some were
  // retired and `may_retry`: the group is planned again. Else sets *s to the kReadOnly that
  // stops writes (`fatal`, under mu) and returns false.
  bool RetryGroupElsewhere(const ZoneManager::AllocationMark& mark, bool may_retry,
                           Status* s);
  // Whether the pacer wants a slice with this group (picking a victim if none is in hand):
  // its live bytes, or 0.
  uint64_t RideGcSlice();
  Status WriteGroup(GroupWrites* w);
  // Seal writes of zones a drain sealed between groups (ZoneManager::BeginDrain), for the
  // next group WriteAndCommit writes; commit thread (group_mu) only.
  std::vector<SealWrite> deferred_seals;
  // Moves deferred_seals into `seals`, leaving out the zones no longer sealed (released or
  // taken since: their seal must not write into a reset or inactive zone).
  void TakeDeferredSeals(std::vector<SealWrite>* seals);
  Status UpdateSuperblocks(bool clean);
  // Writes a group's records and commits its batch (the tail of CommitGroup, shared by GC).
  // A failure stops the store taking writes (`fatal`), except a failed device write when
  // `recoverable_writes` (GC: it rolls its allocations back and quarantines the victim).
  Status WriteAndCommit(GroupWrites* writes, MetaStore::Batch* batch, uint64_t ok_txns,
                        bool recoverable_writes = false) SMR_REQUIRES(group_mu);

  // Reads one extent's bytes (verifying its record) into dst; `pending` may hold payloads
  // of records not yet on the drives.
  Status ReadExtent(const Extent& e, uint64_t from, uint64_t len, char* dst,
                    const GroupWrites* pending);
  // The kCorruption of a read whose record `e` failed its crc (counted and logged).
  Status CrcMismatch(const Extent& e);
  // Reads [offset, offset+len) of an onode's data (holes as zeros).
  Status ReadOnode(const Onode& onode, uint64_t offset, uint64_t len, std::string* out,
                   const GroupWrites* pending);
  // The same into `dst`, which holds exactly the bytes that exist in [offset, offset+len)
  // (the caller clamps len to the object's size): extents are read into it in place, only
  // the holes between them are zeroed.
  Status ReadOnodeInto(const Onode& onode, uint64_t offset, uint64_t len, char* dst,
                       const GroupWrites* pending);
  // ReadOnodeInto's state, shared by its steps (the reader's thread, no lock held): the
  // read's arguments, the crc checks running on crc_pool (each reads dst), and the scratch
  // buffer of gathered reads' gaps (allocated on first use).
  struct OnodeRead {
    const Onode& o;
    uint64_t offset;
    uint64_t len;
    char* dst;
    const GroupWrites* pending;
    struct Check {
      const Extent* extent;
      std::future<bool> crc_ok;
    };
    std::vector<Check> checks;
    std::unique_ptr<char, decltype(&std::free)> scratch{nullptr, &std::free};
    using ExtentIt = std::map<uint64_t, Extent>::const_iterator;
  };
  // Waits for every check of `r`; returns `s`, or when `s` is OK the first mismatch
  // (CrcMismatch). Every return of ReadOnodeInto goes through it.
  Status EndCrcChecks(OnodeRead* r, Status s);
  // Whether the read wants all of extent `x`'s record payload (a data record's, not a pack
  // entry's; on a drive, not pending): it can be part of a gathered read.
  bool ReadWantsWhole(const OnodeRead& r, const Extent& x) const;
  // Checks the crc of `x`'s payload at `p` on crc_pool (counted in crc_jobs).
  void PostCrcCheck(OnodeRead* r, const Extent* x, char* p);
  // On a rotational drive, reads *it's extent (whole, into `at`) with the whole extents
  // that follow it closely on the drive in one device read, and checks them (on crc_pool
  // while it has room). False when none follows (nothing read); true when read: *it is the
  // last extent read, *filled advanced. Errors: kIOError when the scratch buffer cannot be
  // allocated, the read's error, a crc mismatch (CrcMismatch).
  Result<bool> ReadGathered(OnodeRead* r, OnodeRead::ExtentIt* it, char* at, uint64_t* filled);
  // The planner's view of the store for the next transaction (PlanContext).
  PlanContext PlanContextNow();
};

// Allocates zone space for a record in `stream` and appends it to the group's writes
// (store/txn_planner.cc). On success `*where` is the record's location.
// The group's buffer of zone `a.zone`, which `a` continues; a pack left open in that zone
// is closed first (the record placed at `a` follows it). kIOError if `a` does not continue
// the buffer (an allocation out of order).
Result<GroupWrites::ZoneBuffer*> ZoneBufferAt(GroupWrites* writes, const Allocation& a);
// The data zone (not a journal zone) the group's writes reach last, if any — the one whose
// buffer it created last, as WriteGroup writes a drive's zones in that order: where the
// drive's head ends up, and where the group's journal record goes (journal_with_data).
std::optional<ZoneAddress> LastDataZone(const GroupWrites& writes, const ZoneManager& zones);
// The indexes of `ops` a journal record carries: every marker, and of the puts and deletes
// only the last of each key (store/journal.cc).
std::vector<size_t> LastWriteOfEachKey(const std::vector<JournalOp>& ops);
// The bytes AppendJournalOp gives `ops` (all of them, or only those LastWriteOfEachKey keeps).
uint64_t JournalOpsBytes(const std::vector<JournalOp>& ops, bool last_write_only);
Status PlaceRecord(ZoneManager* zones, uint64_t seq, StreamId stream, const RecordHeader& h,
                   std::string_view payload, std::shared_ptr<const std::string> owner,
                   GroupWrites* writes, Allocation* where);

// Where PlacePacked put an entry.
struct PackedAt {
  uint16_t drive = 0;
  uint64_t payload_offset = 0;  // device byte of the entry's first byte
  uint32_t pack_offset = 0;     // its offset in the pack's payload
  uint64_t allocated = 0;       // zone bytes this entry added (0 when it fit the last block)
};

// Adds `payload` as an entry (entry.offset is set here) of `stream`'s open pack in this
// group, growing it, or starts a new pack when it is full (kMaxPackEntries,
// kMaxPackPayload) or cannot grow in its zone (store/txn_planner.cc).
Status PlacePacked(ZoneManager* zones, uint64_t seq, StreamId stream, PackEntry entry,
                   std::string_view payload, std::shared_ptr<const std::string> owner,
                   GroupWrites* writes, PackedAt* where);

// A transaction's WriteCrcs (store/txn_planner.cc: the planner's cut of writes into
// records of `chunk` bytes).
WriteCrcs ComputeWriteCrcs(const Transaction& txn, uint32_t chunk);

// What planning one transaction sees of the store and may change (store/txn_planner.cc):
// committed metadata (read through the group's batch), the options, the zone manager (its
// records' placement), the id counters it advances, the lifetime statistics its stream
// choice uses, and a read of existing extents (a partial overwrite merges with them).
// Made by Store::Impl::PlanContextNow for each transaction; commit thread, group_mu held.
struct PlanContext {
  MetaStore* meta = nullptr;
  const StoreOptions* options = nullptr;
  ZoneManager* zones = nullptr;
  uint64_t* nid_max = nullptr;  // the last object id handed out; a new object takes the next
  uint64_t* cid_max = nullptr;  // the same for collections
  const LifetimeHistory* lifetime_history = nullptr;
  double mean_lifetime_ns = 0;
  // Bytes [from, from + len) of extent `e`'s data, its record verified, into dst; `pending`
  // holds the records this group placed but has not written.
  std::function<Status(const Extent& e, uint64_t from, uint64_t len, char* dst,
                       const GroupWrites* pending)>
      read_extent;
  std::function<uint64_t(uint16_t drive)> zone_size;  // bytes per zone of a drive
};

// Plans one transaction into `batch` and `writes` (store/txn_planner.cc). On error the
// caller rolls the batch back to its save point; allocated space stays in `writes` as
// dead bytes. `crcs`, when given, holds the crcs of the records its writes make (they are
// computed here otherwise); a chunk other than options.max_record_payload is ignored.
Status PlanTransaction(const PlanContext& ctx, const Transaction& txn, uint64_t seq,
                       MetaStore::Batch* batch, GroupWrites* writes,
                       const WriteCrcs* crcs = nullptr);

}  // namespace smr
