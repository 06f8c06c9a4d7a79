// Internals of Store shared by store/*.cc (not a public header).
//
// Store::Impl is StoreCore (the shared parts) plus four components, each a class of its own
// with a header that states its contract, invariants and locks; they reach one another
// through StoreCore::peers only. Parts, with the files that implement them:
//   commit pipeline   commit_pipeline.h/.cc: class CommitPipeline, Store::Impl::pipeline.
//                                     Submit and RunGc queue (Enqueue); CommitLoop groups
//                                     transactions, plans them (txn_planner.cc,
//                                     PlanTransaction) into one MetaStore::Batch and one
//                                     GroupWrites, writes the group's records (WriteGroup, on
//                                     its io pool), flushes the drives, commits the batch with
//                                     sync (WriteAndCommit, which GC, hybrid drains and
//                                     checkpoints call too) and runs the callbacks in
//                                     submission order.
//   read path         read_path.cc    reads on callers' threads against committed metadata,
//                                     each under a ReadFence::Reader (read_fence.h).
//   GC worker         gc_worker.cc    GcWorker (gc_worker.h): victims, slices (alone or riding
//                                     in a group), resets after FenceReaders, quarantine,
//                                     pacing, cleaning for space.
//   hybrid drives     hybrid_manager.cc
//                                     HybridManager (hybrid_manager.h), member
//                                     `hybrid_manager`: realm conversions and the
//                                     H-Buffer's eviction.
//   metadata journal  metadata_journal.cc
//                                     MetadataJournal (store/metadata_journal.h), member
//                                     `journal`: journal records with each group,
//                                     checkpoints.
//
// Threads and locks
//   One commit thread owns the commit-thread state (marked "commit thread"); it holds
//   `group_mu` while anything writes and commits (WriteAndCommit requires it; Fsck takes it
//   to pause commits). `mu` guards the queue and the run state (stopping, closed, fatal, a
//   conversion request) and is never held across I/O; lock order group_mu before mu.
//   `counters_mu` and HybridManager's `hybrid_mu` guard the counters Stats reads from any
//   thread; the read fence has its own lock. Every lock is an annotated Mutex: clang's
//   thread-safety analysis (qa/static/thread_safety.py, part of `make test`) checks the
//   GUARDED_BY and REQUIRES marks within a class; a component's entry points that need a
//   lock its caller holds begin with Mutex::AssertHeld (checked at run time).
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
#include "store/metadata_journal.h"
#include "store/read_fence.h"
#include "store/store.h"
#include "zone/zone_manager.h"

namespace smr {

// Names of values and counters in MetaStore.
inline constexpr char kValueSuperblock[] = "superblock";
inline constexpr char kValueDevices[] = "devices";
inline constexpr char kValueOptions[] = "options";
// The last complete checkpoint (store/metadata_journal.cc).
inline constexpr char kValueJournal[] = "journal";
// Data zones holding journal records newer than that checkpoint (metadata_journal.cc,
// "pins"): one "DRIVE ZONE" line each; absent = none.
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

class CommitPipeline;
class GcWorker;
class HybridManager;
class MetadataJournal;
// A mounted store's components as they see one another: each is handed the StoreCore
// and reaches the others only here (never Store::Impl).
struct StorePeers {
  CommitPipeline* pipeline = nullptr;
  GcWorker* gc = nullptr;
  HybridManager* hybrid = nullptr;
  MetadataJournal* journal = nullptr;
  // The read path's ReadExtent (read_path.cc): the planner's read of existing extents.
  std::function<Status(const Extent& e, uint64_t from, uint64_t len, char* dst,
                       const GroupWrites* pending)>
      read_extent;
};

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
  // StoreOptions::gc_read_ahead as resolved at mount (unset: any drive rotational).
  bool gc_read_ahead = false;
  // The components of this store, for one another's calls (set by Store::Impl's
  // constructor and Store::Open before any thread of the store runs; fixed afterwards).
  StorePeers peers;

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

}  // namespace smr

// The components' headers need StoreCore; Store::Impl needs their classes.
#include "store/gc_worker.h"

namespace smr {

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
  // Writes the store superblock (this mount's, `clean` as given, its sequence advanced) to
  // every drive and commits it (Open, Close).
  Status UpdateSuperblocks(bool clean);

  Impl();  // makes the components (store.cc)
  ~Impl();

  // Commit pipeline (store/commit_pipeline.h): the queue, the commit thread, WriteAndCommit.
  std::unique_ptr<CommitPipeline> pipeline;
  // One thread that checks a whole read's record crcs beside the reader (read_path.cc:
  // record k is checked there while the reader reads record k+1), when it is not busy;
  // crc_jobs counts its queued and running checks.
  std::unique_ptr<boost::asio::thread_pool> crc_pool;
  std::atomic<int> crc_jobs{0};
  static constexpr int kMaxCrcJobs = 2;


  // GC (store/gc_worker.h): victims, slices (alone or riding in a group), quarantine,
  // pacing, cleaning for space; the GC's cursor and its counters.
  GcWorker gc_worker{*this};
  // Hybrid drives: realm conversions and the H-Buffer's eviction (store/hybrid_manager.h).
  // Made by Store::Open. Held by pointer while it holds GcCursors (GC's, Store::Impl's
  // own type, which needs Store::Impl complete).
  std::unique_ptr<HybridManager> hybrid_manager;

  // Metadata journal (store/metadata_journal.h).
  MetadataJournal journal{*this};

  // EnsureSpace's estimate is per drive, not per stream: a transaction may still find no
  // zone for one of its records (its stream has no open zone and the free ones are the
  // reserve). Such a transaction goes back to the queue up to kSpaceRetries times; before
  // the next group the commit loop converts or cleans one whole zone (CleanForSpace,
  // gc_worker.space_short()).
  static constexpr uint32_t kSpaceRetries = 3;
  // Payload written since mount before Statfs trusts its measured record footprint.
  static constexpr uint64_t kFootprintSampleBytes = 4u << 20;
  // StoreStatfs::writable (at most `total`) from one zone snapshot, the user_free_bytes of
  // the same moment (ZoneManager::Snapshot(max_record, &user_free)) and the counters: what
  // Store::Statfs and the stats document (statfs.writable) both report.
  uint64_t Writable(const std::vector<ZoneStatus>& zones, uint64_t user_available,
                    uint64_t total, const StoreCounters& c) const;

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
};

// Allocates zone space for a record in `stream` and appends it to the group's writes
// (store/txn_planner.cc). On success `*where` is the record's location.
// The group's buffer of zone `a.zone`, which `a` continues; a pack left open in that zone
// is closed first (the record placed at `a` follows it). kIOError if `a` does not continue
// the buffer (an allocation out of order).
Result<GroupWrites::ZoneBuffer*> ZoneBufferAt(GroupWrites* writes, const Allocation& a);
// LastDataZone, LastWriteOfEachKey, JournalOpsBytes: store/metadata_journal.h.
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
// Made by CommitPipeline::PlanContextNow for each transaction; commit thread, group_mu held.
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
