// MetaStore: smrstore's metadata in RocksDB (on flash), through the kv/ layer.
//
// Contract
//   Stored in an ordered key-value store (kv/kv_store.h) opened with OpenKvStore: RocksDB,
//   either linked into the program or loaded as the kv/ plugin behind dlopen(RTLD_DEEPBIND)
//   (kv/kv_plugin.h) — the program's CMake target chooses. meta/ never includes RocksDB.
//   The opened store goes through kv/kv_wrapper_hook.h's WrapOpenedKvStore (unchanged
//   unless a test set a wrapper: how tests inject KvStore faults, kv/testing/fault_kv.h).
//   Holds collections, onodes (extent maps, xattrs), omap headers and keys, per-zone
//   accounting, counters and the store superblock copy, under the key layout of
//   meta/key_schema.h (doc/format.md, "RocksDB keys"). Objects of a collection are keyed by
//   (cid, EncodeObjectKey(oid)), so iteration lists them in Ceph's ghobject_t order.
//
//   Writes go through a Batch: a write batch *with an index*, so reads made through the
//   batch (Get*/List* taking a `const Batch*`) see the batch's own pending writes layered
//   over the committed database — the transaction pipeline plans several transactions in
//   one batch and each must see the previous ones. SavePoint/RollbackToSavePoint undo the
//   writes of one failed transaction inside a batch. Commit applies a batch atomically;
//   with sync=true it is durable when Commit returns (WAL fsync).
//   Reads without a batch see only committed data.
//
//   Errors: kIOError for RocksDB I/O errors, kCorruption for undecodable values,
//   kBusy when the database is locked by another process, kNotFound / kAlreadyExists from
//   Open / Create; a failure to load the kv/ plugin is kIOError / kNotSupported.
//
// Thread safety: MetaStore methods are thread-safe (KvStore's are). A Batch is used by one
// thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "format/journal.h"
#include "format/object_id.h"
#include "meta/onode.h"

namespace smr {

// Whether the metadata journal carries `key` (all kinds but zone accounting, counters and
// the format version: those a rebuild derives or writes itself).
bool IsJournaledKey(std::string_view key);

class MetaStore {
 public:
  class Batch;

  // Creates a new database at `path` (kAlreadyExists if one is there).
  static Result<std::unique_ptr<MetaStore>> Create(const std::string& path);
  // Opens an existing database (kNotFound if none, kBusy if locked by another process).
  // read_only: nothing in the database directory is modified; Commit fails with kReadOnly
  // (kv_store.h, KvOpenMode::kReadOnly: no lock is taken, the caller excludes writers).
  static Result<std::unique_ptr<MetaStore>> Open(const std::string& path,
                                                 bool read_only = false);
  ~MetaStore();
  MetaStore(const MetaStore&) = delete;
  MetaStore& operator=(const MetaStore&) = delete;

  // A batch must not outlive the MetaStore that made it.
  std::unique_ptr<Batch> NewBatch();
  // On success the batch is applied and left empty (reusable); on error nothing is written
  // and the batch is unchanged. Fails with the batch's recorded error, if any (see Batch).
  Status Commit(Batch* batch, bool sync);
  // Makes every Commit made so far durable (after commits with sync=false: the store's
  // pipelined commits, store/commit_pipeline.h). Thread-safe, also beside Commit.
  Status SyncWal();

  // --- Reads. `batch` may be null (committed state only). ---

  // Opaque store-level values (e.g. the encoded StoreSuperblock), by name.
  Result<std::optional<std::string>> GetValue(const Batch* batch, const std::string& name);
  Result<std::optional<std::string>> GetDerivedValue(const Batch* batch, const std::string& name);
  // Named 64-bit counters (e.g. "nid_max", "cid_max", "seq").
  Result<uint64_t> GetCounter(const Batch* batch, const std::string& name);

  Result<std::optional<CollectionMeta>> GetCollection(const Batch* batch,
                                                      const std::string& name);
  // All collections, by name.
  Result<std::map<std::string, CollectionMeta>> ListCollections(const Batch* batch);

  Result<std::optional<Onode>> GetOnode(const Batch* batch, uint64_t cid, const ObjectId& oid);
  // Objects of collection `cid` with start <= oid < end (end.max = no bound) in Ceph order;
  // at most `max` (0 = no limit). `*next` is the first object not returned (end when the
  // listing is complete). `*out` is cleared first.
  Status ListObjects(const Batch* batch, uint64_t cid, const ObjectId& start,
                     const ObjectId& end, size_t max, std::vector<ObjectId>* out,
                     ObjectId* next);
  // Objects with their onodes (for split/merge/rmcoll/fsck), same bounds.
  Status ListOnodes(const Batch* batch, uint64_t cid, const ObjectId& start,
                    const ObjectId& end, size_t max,
                    std::vector<std::pair<ObjectId, Onode>>* out, ObjectId* next);
  Result<bool> CollectionEmpty(const Batch* batch, uint64_t cid);

  Result<std::optional<std::string>> GetOmapHeader(const Batch* batch, uint64_t nid);
  Result<std::optional<std::string>> GetOmapValue(const Batch* batch, uint64_t nid,
                                                  const std::string& key);
  // Omap keys of `nid` with key > after (or from the first key when after is null), at most
  // `max` (0 = all), in byte order. `*out` is cleared first.
  Status ListOmap(const Batch* batch, uint64_t nid, const std::string* after, size_t max,
                  std::vector<std::pair<std::string, std::string>>* out);

  // Where onode `nid` lives now (collection id and object), for GC's record -> object
  // lookups; nullopt when no object has that nid.
  Result<std::optional<std::pair<uint64_t, ObjectId>>> GetNid(const Batch* batch, uint64_t nid);

  // Every entry of the nid index (committed state), in nid order: fn(nid, cid, oid). A
  // malformed entry is kCorruption; `fn`'s error stops the walk and is returned.
  Status ForEachNid(const std::function<Status(uint64_t, uint64_t, const ObjectId&)>& fn);

  // Every zone's accounting, keyed by (drive, zone).
  Result<std::map<std::pair<uint16_t, uint32_t>, ZoneMeta>> LoadZones(const Batch* batch);

  // Every committed key the metadata journal carries (IsJournaledKey), in key order: what
  // a checkpoint holds (store/metadata_journal.cc). `fn`'s error stops the walk and is returned.
  Status ForEachJournaledKey(const std::function<Status(std::string_view, std::string_view)>& fn);
  // The same walk from the first key >= `from` until `fn` sets *stop (after that key) or
  // the keys end: a checkpoint taken in steps between commit groups resumes where the
  // last step stopped. Returns whether the keys ended (false: stopped by `fn`).
  Result<bool> ForEachJournaledKeyFrom(
      const std::string& from,
      const std::function<Status(std::string_view, std::string_view, bool* stop)>& fn);

  // Approximate database size on disk (for statfs).
  uint64_t ApproximateSizeBytes();
  // A RocksDB statistics / property dump for `smrstore-tool stats`.
  std::string PropertyDump();

 private:
  struct Impl;
  explicit MetaStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A set of pending metadata writes, committed atomically by MetaStore::Commit.
class MetaStore::Batch {
 public:
  ~Batch();
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  void PutValue(const std::string& name, const std::string& value);
  // A value the store derives from the drives (rebuild-meta recomputes it): not journaled.
  void PutDerivedValue(const std::string& name, const std::string& value);
  void PutCounter(const std::string& name, uint64_t value);
  void PutCollection(const std::string& name, const CollectionMeta& meta);
  void DeleteCollection(const std::string& name);
  void PutOnode(uint64_t cid, const ObjectId& oid, const Onode& onode);
  void DeleteOnode(uint64_t cid, const ObjectId& oid);
  void PutOmapHeader(uint64_t nid, const std::string& header);
  void DeleteOmapHeader(uint64_t nid);
  void PutOmapValue(uint64_t nid, const std::string& key, const std::string& value);
  void DeleteOmapValue(uint64_t nid, const std::string& key);
  // Deletes keys in [first, last) of nid's omap (Ceph's omap_rmkeyrange semantics).
  // This and ClearOmap read the keys to delete (through the batch); a read error is kept
  // and returned by MetaStore::Commit, which then writes nothing.
  void DeleteOmapRange(uint64_t nid, const std::string& first, const std::string& last);
  // Deletes the header and every key of nid's omap.
  void ClearOmap(uint64_t nid);
  void PutZone(uint16_t drive, uint32_t zone, const ZoneMeta& meta);
  void PutNid(uint64_t nid, uint64_t cid, const ObjectId& oid);
  void DeleteNid(uint64_t nid);

  // Marks a point the batch can roll back to (nested save points are allowed).
  void SetSavePoint();
  Status RollbackToSavePoint();
  Status PopSavePoint();

  size_t Count() const;         // number of writes
  size_t ApproximateBytes() const;

  // The writes since the last commit that the metadata journal carries (raw key-value
  // puts and deletes of journaled keys, in order; save-point rollbacks take theirs back).
  // Cleared by a successful Commit.
  const std::vector<JournalOp>& journal() const;
  // Applies a journal put/delete as a raw write (rebuild-meta replaying the journal);
  // other op kinds are ignored.
  void ApplyJournalOp(const JournalOp& op);

 private:
  friend class MetaStore;
  struct Impl;
  explicit Batch(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace smr
