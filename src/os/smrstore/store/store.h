// Store: the smrstore engine facade — objects in zones, metadata in RocksDB.
//
// Contract
//   A store is a directory (its RocksDB metadata lives in DIR/meta, on flash) plus one or
//   more zoned drives named by device specs (device/device_spec.h). Object data is written
//   into sequential zones as data records (format/record.h) and never overwritten in place:
//   overwrites append new records and update the extent map. Tiny objects may live inline
//   in RocksDB (StoreOptions::inline_max).
//
//   Transactions (store/transaction.h) are all-or-nothing. Commit rule: the data records of
//   a transaction are durable on the drives (written and flushed) before the RocksDB batch
//   that references them commits with sync; a transaction is committed, visible to reads,
//   and its callback runs, only after that. Callbacks run in submission order on the
//   commit thread (so per collection too). Several threads may submit at once; concurrent
//   submissions are committed together (group commit: one device flush and one RocksDB
//   sync for the group).
//
//   Reads see committed state only. Every read of zone data verifies the record's crc32c;
//   a mismatch returns kCorruption (EIO) and logs a line — never wrong bytes. Holes read
//   as zeros.
//
//   Mount reconciles every drive's write pointers with the metadata (zone/zone_manager.h):
//   bytes written after the last committed transaction are dead space, counted, never
//   referenced. The store directory and every drive are locked while mounted (kBusy for a
//   second opener).
//
// Thread safety: all methods are thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "device/zoned_device.h"
#include "format/object_id.h"
#include "gc/victim_policy.h"
#include "store/transaction.h"

namespace smr {

// Largest payload of one pack record (format/record.h, RecordType::kPack); pack_max may
// not exceed it.
inline constexpr uint32_t kMaxPackPayload = 1u << 20;
// Bounds of StoreOptions::gc_idle_slice.
inline constexpr uint32_t kMinGcIdleSlice = 64u << 10;
inline constexpr uint32_t kMaxGcIdleSlice = 64u << 20;

// The store's options: one field per row of store/options.def (name, type, default,
// scope, range, help, and the reasoning behind each default); parsed, checked, encoded and
// documented through store/options_table.h.
using StoreOptionCType_U32 = uint32_t;
using StoreOptionCType_Double = double;
using StoreOptionCType_Bool = bool;
using StoreOptionCType_AutoBool = std::optional<bool>;
using StoreOptionCType_Policy = VictimPolicy;

struct StoreOptions {
#define SMR_OPTION(name, type, def, scope, lo, hi, range, help) \
  StoreOptionCType_##type name = def;
#include "store/options.def"
#undef SMR_OPTION
};

// Hybrid conversions since mount (store/hybrid_manager.cc) and the one in progress.
struct HybridCounters {
  uint64_t conversions_started = 0;
  uint64_t conversions_done = 0;    // realms the drives converted
  uint64_t conversions_failed = 0;  // activations the drive refused or failed
  uint64_t to_smr = 0;              // of the done ones, CMR -> SMR
  uint64_t to_cmr = 0;              // ... and SMR -> CMR
  uint64_t quanta = 0;              // migration quanta run
  uint64_t migrated_bytes = 0;      // live payload bytes moved out of converting realms
  uint64_t evicted_zones = 0;       // H-Buffer: CMR zones emptied into SMR
  uint64_t evicted_bytes = 0;       // ... live payload bytes they moved
  uint64_t swapped_zones = 0;       // Zone-Swap: SMR zones of hot data emptied into CMR
  uint64_t swapped_bytes = 0;       // ... live payload bytes they moved
  uint64_t quantum_bytes = 0;       // live bytes the next quantum may move
  uint64_t max_overshoot_bytes = 0; // the most a quantum moved beyond its quantum_bytes
  double fixed_quantum_ms = 0;      // a quantum's fitted fixed cost (gc/quantum_sizer.h)
  double last_quantum_ms = 0;
  double max_quantum_ms = 0;
  uint64_t bound_violations = 0;    // quanta that took longer than the latency bound
  std::vector<double> recent_quantum_ms;  // the last (up to) 1024 quanta, oldest first
  double last_activation_ms = 0;    // the drive's conversion command, last one
  std::map<uint16_t, uint64_t> done_by_drive;  // conversions done, per drive index
  // The conversion in progress (active), else the last one.
  bool active = false;
  bool activating = false;          // the drive is converting it (data all moved)
  bool stalled = false;             // no progress for a while (stall_reason says why)
  std::string stall_reason;
  uint16_t drive = 0;
  uint32_t realm = 0;
  std::string to;                   // "smr" / "cmr"
  double progress = 0;              // 0..1
};

// One realm of a hybrid drive as the store accounts for it (Store::Realms; read-only view,
// e.g. for `smrstore-tool plan-conversion`).
struct RealmUsage {
  uint16_t drive = 0;
  uint32_t realm = 0;
  ZoneDomain domain = ZoneDomain::kCmr;  // the active domain
  bool converting = false;    // being drained or converted now
  uint32_t zones = 0;         // zones of its active domain
  uint32_t zones_in_use = 0;  // of them, not free (holding data, open or sealed)
  uint64_t capacity = 0;      // bytes of its active domain's zones
  uint64_t written = 0;       // bytes written in them (dead records included)
  uint64_t live_bytes = 0;    // live payload bytes in them (what a conversion moves)
  bool has_journal = false;   // a metadata journal zone is in it (freed by a checkpoint)
};

struct ObjectStat {
  uint64_t size = 0;
  uint64_t nid = 0;
  bool data_inline = false;
  size_t extents = 0;
};

struct StoreStatfs {
  uint64_t total = 0;        // data zone capacity of all drives
  uint64_t available = 0;    // free zones + room left in open zones
  uint64_t allocated = 0;    // bytes written into data zones (records incl. headers)
  uint64_t stored = 0;       // live object bytes referenced
  uint64_t meta_bytes = 0;   // RocksDB size on flash
  // Bytes of dead records in open and sealed zones: space zone GC can give back (it costs
  // relocating the zone's live records). Statfs as Ceph sees it counts them as available.
  uint64_t reclaimable = 0;
  // What users can surely still write now: free zones beyond the GC reserve plus the room in
  // open user zones, less a record's worth per zone (ZoneManager::user_free_bytes).
  uint64_t user_available = 0;
  // What users can still write counting what GC can give back: user_available plus the dead
  // bytes of open and sealed zones less the live records' headers and padding (a live
  // payload byte's footprint, measured on the records written since mount) and a record's
  // tail per zone. The space Ceph's full ratios see (SMRStore::statfs). Past it a write may
  // get NoSpace; before it, only a transaction larger than it should.
  uint64_t writable = 0;
};

// Counters since mount (bytes written for users vs to the devices -> write amplification).
struct StoreCounters {
  // Lifetime totals (persisted with every commit group) ...
  uint64_t lifetime_user_bytes = 0;
  uint64_t lifetime_device_bytes = 0;
  uint64_t lifetime_txns = 0;
  // ... and counts since this mount.
  uint64_t txns_committed = 0;
  uint64_t txns_failed = 0;
  uint64_t groups_committed = 0;
  // Where the commit path's time went since this mount (nanoseconds, summed): planning
  // user groups, writing the groups' records to the drives (every committed or failed
  // group: user groups, GC slices, drains, checkpoints), flushing the drives, committing
  // the metadata (with its WAL sync unless pipelined), the sync thread's WAL syncs
  // (StoreOptions::commit_pipeline), running user callbacks (on the sync thread when
  // pipelined); and how long user transactions waited in the queue before their group was
  // taken (summed over transactions).
  uint64_t commit_plan_ns = 0;
  uint64_t commit_write_ns = 0;
  uint64_t commit_flush_ns = 0;
  uint64_t commit_meta_ns = 0;
  uint64_t commit_sync_ns = 0;
  uint64_t commit_callback_ns = 0;
  uint64_t commit_queue_ns = 0;
  uint64_t user_bytes_written = 0;    // payload bytes of write ops
  uint64_t device_bytes_written = 0;  // record bytes written to the drives
  uint64_t device_writes = 0;         // device write commands for them (one per zone a
                                      // commit group writes, plus zone footers)
  uint64_t device_write_buffers = 0;  // the memory buffers those commands gathered (record
                                      // headers, payloads, padded tails): each was a device
                                      // write of its own before ZonedDevice::WriteV
  uint64_t inline_bytes_written = 0;  // payload bytes kept inline in RocksDB
  // Pack records (RecordType::kPack: the small data writes of a commit group, and small GC
  // relocations, sharing one header block) written by committed groups since this mount.
  uint64_t pack_records = 0;
  uint64_t pack_entries = 0;        // entries written into them
  uint64_t pack_payload_bytes = 0;  // the entries' payload bytes
  uint64_t pack_record_bytes = 0;   // their bytes in the zones: header blocks + payload padded
                                    // to blocks (part of device_bytes_written)
  uint64_t bytes_read = 0;
  // Device reads of object data since this mount, and the records they covered: one read per
  // record, but on a rotational drive an object's records that lie together on the drive
  // are read as one (read_path.cc, "gathered reads").
  uint64_t data_reads = 0;
  uint64_t data_read_records = 0;
  uint64_t crc_errors = 0;
  uint64_t dead_on_mount_bytes = 0;
  // Zone GC since this mount.
  uint64_t gc_runs = 0;            // victims cleaned
  uint64_t gc_slices = 0;          // relocation steps committed (background GC moves about
                                   // 4 MiB of live data per slice, between commit groups or
                                   // riding in one: StoreOptions::gc_in_groups)
  uint64_t gc_bytes_written = 0;   // relocated record bytes (part of device_bytes_written)
  uint64_t gc_live_moved = 0;      // live payload bytes relocated
  uint64_t gc_zones_reset = 0;
  uint64_t gc_smr_zones_reset = 0;  // of those, sequential (SMR) zones: the drive rewrote them
  uint64_t gc_throttle_ns = 0;     // foreground time spent waiting for GC
  uint64_t gc_fence_waits = 0;     // victim resets that waited (or were deferred) for reads
  // Idle GC's read-ahead (StoreOptions::gc_read_ahead): victim bytes read ahead of the
  // slices that move them, and the read-aheads a foreground arrival stopped.
  uint64_t gc_read_ahead_bytes = 0;
  uint64_t gc_read_ahead_yields = 0;
  uint64_t journal_bytes_written = 0;     // metadata journal records (since mount)
  uint64_t checkpoints = 0;               // metadata checkpoints written (since mount)
  uint64_t checkpoint_bytes_written = 0;  // their bytes
  uint64_t gc_failures = 0;        // cleanings that failed and were rolled back
  uint64_t gc_quarantined_zones = 0;  // now: zones GC leaves alone for a while (failed)
  uint64_t zones_retired = 0;  // since mount: zones a drive reported offline or read-only
                               // after a write failed there (the group went elsewhere)
  uint64_t lifetime_gc_bytes = 0;  // persisted
};

struct StatsDocumentOptions {
  bool zone_maps = true;  // include each drive's `zonemap` and `streams` strings
};

// One drive's zone map and stream strings (one character per zone, doc/stats-schema.md).
struct DriveZoneMaps {
  std::string zonemap;
  std::string streams;
};

struct GcReport {
  uint32_t zones_cleaned = 0;
  uint64_t live_moved = 0;     // payload bytes relocated
  uint64_t bytes_written = 0;  // record bytes written by GC
  uint64_t bytes_freed = 0;    // zone capacity returned to the free pool
};

// Progress of Store::RebuildMeta's zone scan.
struct RebuildProgress {
  uint64_t zones_done = 0, zones_total = 0;
  uint64_t bytes_done = 0, bytes_total = 0;  // written zone bytes covered by the scan
  double seconds = 0;
};

struct RebuildReport {
  uint64_t zones_scanned = 0;
  uint64_t bytes_scanned = 0;       // written bytes of the zones walked
  uint64_t bytes_read = 0;          // what the walk read: headers, journal payloads
  double scan_seconds = 0;          // the walk (MB/s = bytes_scanned / scan_seconds)
  double seconds = 0;               // all of it
  uint64_t records = 0;             // records found
  uint64_t journal_bytes = 0;       // of journal and checkpoint records
  uint64_t torn_zones = 0;          // zones whose walk ended at an undecodable record
  uint64_t cmr_zones = 0;           // hybrid drives: CMR zones walked (to their capacity)
  uint64_t cmr_stale_records = 0;   // CMR zones whose walk ended at an earlier use's record
  uint64_t unreadable_zones = 0;    // zones whose walk ended at a read error
  uint64_t checkpoint_id = 0;
  uint64_t checkpoint_chunks = 0;
  uint64_t replayed_records = 0;    // journal records replayed after the checkpoint
  uint64_t voided_records = 0;      // written by a mount but never committed
  uint64_t dropped_tail_records = 0;  // the last records, whose data the drives lack
  // The last commit of a mount that did not end cleanly (0 or 1), replayed: the drives
  // cannot tell whether its RocksDB commit happened before the crash (doc/operations.md,
  // "Rebuilding the metadata database").
  uint64_t in_doubt_records = 0;
  uint64_t collections = 0;
  uint64_t objects = 0;
};

struct FsckReport {
  uint64_t collections = 0;
  uint64_t objects = 0;
  uint64_t extents = 0;
  // Deep only. Every extent is accounted for once: extents = records_verified +
  // records_failed + extents_sharing_record + extents_not_read.
  uint64_t records_verified = 0;  // records (pack entries) read whole and checked
  uint64_t records_failed = 0;    // records whose read, header or crc check failed (errors)
  // Extents whose record another extent also references (a record partly overwritten or
  // cut by a later write keeps several extents): each is checked against the record's
  // header, whose payload is read and verified once.
  uint64_t extents_sharing_record = 0;
  // Extents not read: on a drive or zone that does not exist, or in a zone the drive
  // reports offline (each is also an error).
  uint64_t extents_not_read = 0;
  std::vector<std::string> errors;    // each a one-line description
  std::vector<std::string> repaired;  // what --repair fixed
  // "collection/object" of every object whose data cannot be read back: an extent in a
  // zone the drive reports offline; deep only: a record unreadable, or failing its checks.
  std::vector<std::string> lost;
  bool ok() const { return errors.empty(); }
};

class Store {
 public:
  // Creates a store in `dir` (must not hold one) on `device_specs` (emu: drives that do not
  // exist yet are created). Refuses drives that hold another store unless `force`.
  static Status Mkfs(const std::string& dir, const std::vector<std::string>& device_specs,
                     const StoreOptions& options, bool force = false);
  // How Open obtains a drive from its spec; tests substitute fault-injecting devices.
  using DeviceOpener = std::function<Result<std::unique_ptr<ZonedDevice>>(const std::string&)>;

  // Mounts the store in `dir`. Errors: kNotFound (no store), kBusy (in use),
  // kCorruption (metadata and drives disagree), kInvalidArgument (wrong version).
  // A read-write mount holds DIR/lock exclusively, a read-only one shared: a second
  // read-write mount, or a read-only one beside a writer, gets kBusy.
  // `opener` defaults to device/device_spec.h OpenDevice. A read-only mount changes
  // nothing on the drives or in the metadata (no superblock update, no zone
  // reconciliation writes); Submit and Fsck repair then fail with kReadOnly.
  static Result<std::unique_ptr<Store>> Open(const std::string& dir,
                                             DeviceOpener opener = nullptr,
                                             bool read_only = false);
  // Rebuilds the metadata database of the store on `device_specs` (any order) into
  // DIR/meta from the drives alone: the newest complete checkpoint of the metadata journal
  // plus the journal after it (store/rebuild.cc). DIR/meta must not exist (kAlreadyExists:
  // move a damaged one aside first). Errors: kCorruption (no superblock on a drive, no
  // complete checkpoint), kInvalidArgument (drives of different stores, a drive missing).
  // `progress` is called during the zone scan (about 5 times a second) and once at its end.
  static Result<RebuildReport> RebuildMeta(
      const std::string& dir, const std::vector<std::string>& device_specs,
      const std::function<void(const RebuildProgress&)>& progress = nullptr,
      DeviceOpener opener = nullptr);
  // Whether another Store (in this or another process) has the store in `dir` mounted
  // read-write. Touches nothing (a probe of DIR/lock). kNotFound: no store there.
  static Result<bool> InUse(const std::string& dir);
  // Unmounts cleanly (waits for queued transactions). The destructor calls it.
  Status Close();
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  using Callback = std::function<void(const Status&)>;
  // Queues `txn`; `on_commit` runs (on the commit thread) with OK once it is durable, or
  // with the error that failed it (nothing of it applied).
  void Submit(Transaction txn, Callback on_commit);
  // Submits and waits.
  Status Apply(Transaction txn);

  // --- Reads (committed state). ---
  // len 0 reads to the end of the object. Reading past the end returns what exists.
  Result<std::string> Read(const std::string& coll, const ObjectId& oid, uint64_t offset,
                           uint64_t len);
  // The same read into memory the caller provides: once the object is found, `buffer(n)`
  // is called with the number of bytes the read returns (n may be 0) and gives where to put
  // them (n bytes, any alignment; nullptr when n > 0 fails the read with kInvalidArgument).
  // Records are read straight into it and checked there (no zero-fill, no copy but for a
  // record only partly read); holes are zeroed. Returns n. On an error the buffer's
  // contents are undefined.
  using ReadBuffer = std::function<char*(uint64_t n)>;
  Result<uint64_t> ReadInto(const std::string& coll, const ObjectId& oid, uint64_t offset,
                            uint64_t len, const ReadBuffer& buffer);
  Result<ObjectStat> Stat(const std::string& coll, const ObjectId& oid);
  // true / false for an object (or collection) that is there or not; any other failure of
  // the lookup (a metadata read error, a corrupt record) is the error, never a false.
  Result<bool> Exists(const std::string& coll, const ObjectId& oid);
  // kNotFound (object), kNoData (attribute).
  Result<std::string> GetAttr(const std::string& coll, const ObjectId& oid,
                              const std::string& name);
  Result<std::map<std::string, std::string>> GetAttrs(const std::string& coll,
                                                      const ObjectId& oid);
  // Allocated ranges (offset -> length) of [offset, offset+len), len 0 = to the end.
  Result<std::map<uint64_t, uint64_t>> Fiemap(const std::string& coll, const ObjectId& oid,
                                              uint64_t offset, uint64_t len);

  Result<std::vector<std::string>> ListCollections();
  Result<bool> CollectionExists(const std::string& coll);
  Result<bool> CollectionEmpty(const std::string& coll);
  Result<uint32_t> CollectionBits(const std::string& coll);
  // Objects with start <= oid < end (end.max = unbounded), at most max (0 = no limit), in
  // Ceph's order. *next = first object not returned, or an id with max=true when done.
  Status ListObjects(const std::string& coll, const ObjectId& start, const ObjectId& end,
                     size_t max, std::vector<ObjectId>* out, ObjectId* next);

  Result<std::string> GetOmapHeader(const std::string& coll, const ObjectId& oid);
  // Keys after `after` (null = from the start), at most max (0 = all).
  Result<std::vector<std::pair<std::string, std::string>>> ListOmap(const std::string& coll,
                                                                    const ObjectId& oid,
                                                                    const std::string* after,
                                                                    size_t max);
  Result<std::map<std::string, std::string>> GetOmapValues(const std::string& coll,
                                                           const ObjectId& oid,
                                                           const std::set<std::string>& keys);

  // Cleans up to `max_zones` victims now (chosen by the store's policy), on the commit
  // thread between commit groups. Relocations commit (records, then metadata) before any
  // victim is reset, and a victim is reset only after reads that might still use it end.
  Result<GcReport> RunGc(uint32_t max_zones);
  // Turns background GC on or off at run time (admin command "smrstore gc start|stop").
  void SetGcAuto(bool on);
  // The options the store was made with (mkfs), as persisted in its metadata.
  const StoreOptions& options() const;

  StoreStatfs Statfs();
  StoreCounters Counters();
  HybridCounters Hybrid();
  // Every realm of every hybrid drive, as the store accounts for it now (empty when no
  // drive is hybrid). Works on a read-only mount.
  std::vector<RealmUsage> Realms();
  // Converts realm `realm` of drive `drive` into `to` now (operator command; the policy of
  // StoreOptions does it on its own): moves its live data out in quanta, then has the drive
  // convert it; returns when done. Errors: kNotSupported (not a hybrid drive),
  // kInvalidArgument (no such realm), kBusy (another conversion in progress), kNoSpace
  // (its live data does not fit elsewhere), the drive's errors.
  Status ConvertRealm(uint16_t drive, uint32_t realm, ZoneDomain to);
  // The store's own view for `smrstore-tool stats` / `zones`: {"store": {dir, uuid, drives,
  // mount_count}, "statfs": {...}, "counters": {...}, "zones": {"<state>[_<stream>]": n},
  // "host_cache": [{drive, mode, cached_bytes, dirty_bytes, writeback_bytes}, one per drive:
  // ZonedDevice::HostCache, the byte counts null where not measured]}
  // (doc/tools/smrstore-tool.md). StatsJson() is that document as indented JSON text.
  Json Stats();
  std::string StatsJson();
  // The operator stats document of doc/stats-schema.md (`smrstore.stats/1`, one line of
  // JSON) for a store published as `name`, taken from one zone snapshot
  // (store/stats_document.cc). `maps`, when given, receives each drive's zonemap/streams
  // strings of that same snapshot (also with zone_maps off: the compact form).
  Json StatsDocumentJson(const std::string& name, const StatsDocumentOptions& options = {},
                         std::vector<DriveZoneMaps>* maps = nullptr);
  // StatsDocumentJson as compact JSON text (what is published and answered).
  std::string StatsDocument(const std::string& name, const StatsDocumentOptions& options = {},
                            std::vector<DriveZoneMaps>* maps = nullptr);
  // Shallow: metadata <-> zone accounting <-> records' placement. Deep: also reads and
  // verifies every record an extent references. Repair fixes what is repairable without
  // losing data (zone live counters, zone states).
  Result<FsckReport> Fsck(bool deep, bool repair);

  const std::string& dir() const;

  // Opaque outside store/ (defined in store/store_internal.h).
  struct Impl;

 private:
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace smr
