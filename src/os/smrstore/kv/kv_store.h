// KvStore: an ordered byte-string key-value store — what meta/ keeps its metadata in.
//
// Contract
//   Keys and values are arbitrary byte strings; keys are ordered bytewise (memcmp, shorter
//   first on a common prefix). Three objects:
//   - KvStore: the committed state. Get and NewIterator read committed data only.
//   - KvBatch: a write batch *with an index*. Put/Delete record pending writes (a later
//     write to a key replaces an earlier one). Reads through the batch (Get, NewIterator)
//     see the batch's pending writes layered over the committed state. Save points undo the
//     writes made after them: SetSavePoint pushes one (they nest), RollbackToSavePoint
//     undoes the writes since the latest one and pops it, PopSavePoint pops it keeping the
//     writes; both are kNotFound when there is no save point. Count() is the number of
//     writes recorded (a rewrite of a key counts again), ApproximateBytes() an estimate of
//     the batch's encoded size; both shrink back on rollback.
//   - KvIterator: a forward cursor over [bounds.lower, bounds.upper) in key order. After
//     Seek(target) it is at the first key >= max(target, lower); Next() moves on; Valid()
//     is false past the last key in bounds or on error (then status() says why; status()
//     is OK at a clean end). key()/value() are valid until the next Seek/Next.
//   KvStore::Commit(batch, sync) applies the whole batch atomically: no reader sees part
//   of it, and nothing of a batch is visible to KvStore reads before Commit. With
//   sync=true the batch is durable when Commit returns. On success the batch is left empty
//   (no writes, no save points) and reusable; on error nothing is applied and the batch is
//   unchanged.
//
//   Opening: OpenKvStore(path, kCreate) makes a new store (kAlreadyExists if one is at
//   `path`); OpenKvStore(path, kOpen) opens one (kNotFound if none). Which implementation
//   OpenKvStore is — RocksDB linked into the program, or RocksDB loaded as a plugin
//   behind dlopen(RTLD_DEEPBIND) (kv/kv_plugin.h) — is chosen at link time by CMake target
//   (smr_kv_rocksdb or smr_kv_plugin_loader); callers cannot tell the difference.
//   NewMemoryKvStore() is an in-memory fake with the same semantics, for tests.
//
//   Errors (Status/Result, never bool): kIOError for I/O errors, kCorruption for damaged
//   store files, kBusy when the store is locked (by another process, or already open in
//   this one), kNotFound / kAlreadyExists from OpenKvStore, kNotFound from save-point
//   calls with no save point. A failed plugin load is kIOError / kNotSupported naming the
//   plugin's path (never kNotFound, which means "no store here").
//
// Invariants
//   - A batch and an iterator must not outlive the store that made them, and a batch is
//     committed only to the store that made it.
//   - Writing to a batch invalidates the iterators over it (collect keys first, then write).
//   - An iterator over committed data sees the state of when it was made (a snapshot).
//   - Only these abstract classes, std:: value types and Status cross the plugin boundary:
//     no method throws (allocation failure aside) and none relies on RTTI.
//
// Thread safety: KvStore methods are thread-safe. A KvBatch, and a KvIterator, is used by
// one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace smr {

// [lower, upper): lower inclusive ("" = from the first key), upper exclusive (nullopt = to
// the last key).
struct KvBounds {
  std::string lower;
  std::optional<std::string> upper;
};

class KvIterator {
 public:
  virtual ~KvIterator() = default;
  virtual void Seek(std::string_view target) = 0;
  virtual bool Valid() const = 0;
  virtual void Next() = 0;
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  virtual Status status() const = 0;
};

class KvBatch {
 public:
  virtual ~KvBatch() = default;

  virtual Status Put(std::string_view key, std::string_view value) = 0;
  virtual Status Delete(std::string_view key) = 0;

  // Reads through the batch: its pending writes over the committed state. nullopt = absent.
  virtual Result<std::optional<std::string>> Get(std::string_view key) const = 0;
  virtual std::unique_ptr<KvIterator> NewIterator(const KvBounds& bounds) const = 0;

  virtual void SetSavePoint() = 0;
  virtual Status RollbackToSavePoint() = 0;
  virtual Status PopSavePoint() = 0;

  virtual size_t Count() const = 0;
  virtual size_t ApproximateBytes() const = 0;
};

class KvStore {
 public:
  virtual ~KvStore() = default;

  // Committed state only. nullopt = absent.
  virtual Result<std::optional<std::string>> Get(std::string_view key) const = 0;
  virtual std::unique_ptr<KvIterator> NewIterator(const KvBounds& bounds) const = 0;

  virtual std::unique_ptr<KvBatch> NewBatch() = 0;
  virtual Status Commit(KvBatch* batch, bool sync) = 0;
  // Makes every commit made so far durable (what Commit with sync=false wrote: the WAL
  // fsync'd). Safe beside concurrent commits. A read-only store has nothing to sync (OK).
  virtual Status SyncWal() = 0;

  // Approximate size on disk (for statfs).
  virtual uint64_t ApproximateSizeBytes() = 0;
  // Implementation statistics, human-readable (for `smrstore-tool stats`).
  virtual std::string PropertyDump() = 0;
};

// kCreate: a new database (kAlreadyExists if one is there); kOpen: an existing one for
// reading and writing (kNotFound if none, kBusy if another process has it open for writing);
// kReadOnly: an existing one for reading only — nothing under `path` is modified (no WAL
// replay into tables, no info log), Commit fails with kReadOnly; it does not take the
// database's write lock, so callers that must exclude writers lock for themselves (Store).
enum class KvOpenMode { kCreate, kOpen, kReadOnly };

// Defined by the CMake target the program links: smr_kv_rocksdb or smr_kv_plugin_loader.
Result<std::unique_ptr<KvStore>> OpenKvStore(const std::string& path, KvOpenMode mode);

// The in-memory fake (smr_kv): empty, nothing durable.
std::unique_ptr<KvStore> NewMemoryKvStore();

}  // namespace smr
