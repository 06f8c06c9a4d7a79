// kv_store.h on RocksDB: the only code of the engine that includes RocksDB. The tuning
// (MakeOptions) is the metadata store's: metadata on flash, a 2-core machine, modest memory.

#include "kv/rocksdb_kv.h"

#include <cstdarg>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/status.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/write_batch_with_index.h>
#include <rocksdb/write_batch.h>

namespace smr {

namespace {

constexpr uint64_t kMiB = 1ull << 20;

// --- RocksDB configuration: metadata on flash, a 2-core machine, modest memory. ---

// Block cache shared by data, index and filter blocks: onode and omap reads are point
// lookups on a hot working set; 64 MiB keeps the OSD's footprint small (raise later from
// a store option if the hit rate calls for it).
constexpr size_t kBlockCacheBytes = 64 * kMiB;
// Memtable size: onode/omap/zone updates are small; 32 MiB absorbs a burst of transactions
// between flushes without a large memory cost.
constexpr size_t kWriteBufferBytes = 32 * kMiB;
// One active + one flushing + one spare memtable, so a slow flush does not stall writes.
constexpr int kMaxWriteBuffers = 3;

bool PathExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool ContainsNoCase(std::string_view haystack, std::string_view needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                     [](char a, char b) {
                       return std::tolower(static_cast<unsigned char>(a)) ==
                              std::tolower(static_cast<unsigned char>(b));
                     }) != haystack.end();
}

rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }

// Maps a RocksDB status onto the smrstore codes (status.h); `what` names the operation.
Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::OK();
  const std::string msg = std::string(what) + ": " + s.ToString();
  if (s.IsNotFound()) return Status::NotFound(msg);
  if (s.IsCorruption()) return Status::Corruption(msg);
  if (s.IsNotSupported()) return Status::NotSupported(msg);
  if (s.IsInvalidArgument()) return Status::InvalidArgument(msg);
  if (s.IsBusy() || s.IsTimedOut() || s.IsTryAgain()) return Status::Busy(msg);
  if (s.IsIOError()) {
    if (s.IsNoSpace()) return Status::NoSpace(msg);
    // The LOCK file held by another process ("While lock file ...: Resource temporarily
    // unavailable") or by this one ("lock hold by current process").
    if (ContainsNoCase(s.ToString(), "lock")) return Status::Busy(msg);
    return Status::IOError(msg);
  }
  return Status::IOError(msg);
}

rocksdb::Options MakeOptions(const std::shared_ptr<rocksdb::Cache>& cache) {
  rocksdb::Options o;
  // Two background threads (one flush, one compaction): the machine has 2 cores and the
  // OSD's data path needs CPU too.
  o.max_background_jobs = 2;
  o.write_buffer_size = kWriteBufferBytes;
  o.max_write_buffer_number = kMaxWriteBuffers;
  // Level compaction (RocksDB's default, stated) with dynamic level sizes: bounded space
  // amplification (~1.1x) and read amplification, the right trade on flash where writes
  // are cheap compared with an SMR drive.
  o.compaction_style = rocksdb::kCompactionStyleLevel;
  o.level_compaction_dynamic_level_bytes = true;
  o.target_file_size_base = 32 * kMiB;
  o.max_bytes_for_level_base = 128 * kMiB;
  // LZ4 where built in: cheap on CPU, and extent maps / omap values compress well.
  const auto supported = rocksdb::GetSupportedCompressions();
  const bool has_lz4 = std::find(supported.begin(), supported.end(),
                                 rocksdb::kLZ4Compression) != supported.end();
  o.compression = has_lz4 ? rocksdb::kLZ4Compression : rocksdb::kNoCompression;
  // Bounded file descriptors and table-reader memory (index/filter blocks are in the cache).
  o.max_open_files = 1024;
  // Bounds WAL size, hence replay time after a crash (forces flushes of old memtables).
  o.max_total_wal_size = 256 * kMiB;
  // Smooth SST writeback on flash instead of bursts at file close.
  o.bytes_per_sync = 1 * kMiB;
  // RocksDB's own info LOG: a few small files, not 1000.
  o.keep_log_file_num = 4;
  o.max_log_file_size = 8 * kMiB;
  // Memtable bloom on whole keys: point lookups of absent onodes/omap keys (common in
  // object creation) skip the memtable search.
  o.memtable_whole_key_filtering = true;
  o.memtable_prefix_bloom_size_ratio = 0.02;
  // No prefix extractor: every scan is bounded by iterate_lower/upper_bound instead, which
  // keeps total-order iteration correct for all key kinds of meta/key_schema.h.

  rocksdb::BlockBasedTableOptions t;
  t.block_cache = cache;
  // Full bloom filters (~1% false positives) for point lookups on onodes and omap keys.
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  t.whole_key_filtering = true;
  // Account index and filter blocks to the block cache (bounded memory), but keep L0's
  // pinned: they are hit by every lookup.
  t.cache_index_and_filter_blocks = true;
  t.pin_l0_filter_and_index_blocks_in_cache = true;
  // Size filters to jemalloc/glibc allocation classes: less memory for the same FP rate.
  t.optimize_filters_for_memory = true;
  t.format_version = 5;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return o;
}

// A bounded iterator over committed data, or over a batch layered on committed data. The
// bounds are given to RocksDB (iterate_lower/upper_bound, so scans stop early) and also
// checked here: the batch's delta iterator may not apply them.
class RocksIterator final : public KvIterator {
 public:
  RocksIterator(rocksdb::DB* db, rocksdb::WriteBatchWithIndex* wbwi, const KvBounds& bounds)
      : bounds_(bounds) {
    lower_slice_ = rocksdb::Slice(bounds_.lower);
    ro_.iterate_lower_bound = &lower_slice_;
    if (bounds_.upper) {
      upper_slice_ = rocksdb::Slice(*bounds_.upper);
      ro_.iterate_upper_bound = &upper_slice_;
    }
    it_.reset(db->NewIterator(ro_));
    if (wbwi != nullptr) {
      // The batch iterator takes ownership of the base iterator and keeps &ro_.
      it_.reset(wbwi->NewIteratorWithBase(db->DefaultColumnFamily(), it_.release(), &ro_));
    }
  }

  void Seek(std::string_view target) override {
    it_->Seek(target < std::string_view(bounds_.lower) ? lower_slice_ : ToSlice(target));
  }
  bool Valid() const override {
    return it_->Valid() && (!bounds_.upper || it_->key().compare(upper_slice_) < 0);
  }
  void Next() override { it_->Next(); }
  std::string_view key() const override {
    const rocksdb::Slice k = it_->key();
    return std::string_view(k.data(), k.size());
  }
  std::string_view value() const override {
    const rocksdb::Slice v = it_->value();
    return std::string_view(v.data(), v.size());
  }
  Status status() const override { return FromRocks(it_->status(), "iterate"); }

 private:
  // Declared before it_: the slices and options must outlive the RocksDB iterator.
  KvBounds bounds_;
  rocksdb::Slice lower_slice_;
  rocksdb::Slice upper_slice_;
  rocksdb::ReadOptions ro_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

class RocksKvStore;

class RocksBatch final : public KvBatch {
 public:
  explicit RocksBatch(rocksdb::DB* db)
      : db_(db),
        wbwi_(rocksdb::BytewiseComparator(), /*reserved_bytes=*/0, /*overwrite_key=*/true) {}

  Status Put(std::string_view key, std::string_view value) override {
    return FromRocks(wbwi_.Put(ToSlice(key), ToSlice(value)), "batch put");
  }
  Status Delete(std::string_view key) override {
    return FromRocks(wbwi_.Delete(ToSlice(key)), "batch delete");
  }

  Result<std::optional<std::string>> Get(std::string_view key) const override {
    std::string value;
    const rocksdb::Status s =
        wbwi_.GetFromBatchAndDB(db_, rocksdb::ReadOptions(), ToSlice(key), &value);
    if (s.IsNotFound()) return std::optional<std::string>();
    if (!s.ok()) return FromRocks(s, "get through batch");
    return std::optional<std::string>(std::move(value));
  }
  std::unique_ptr<KvIterator> NewIterator(const KvBounds& bounds) const override {
    return std::make_unique<RocksIterator>(db_, &wbwi_, bounds);
  }

  void SetSavePoint() override { wbwi_.SetSavePoint(); }
  Status RollbackToSavePoint() override {
    return FromRocks(wbwi_.RollbackToSavePoint(), "rollback to save point");
  }
  Status PopSavePoint() override { return FromRocks(wbwi_.PopSavePoint(), "pop save point"); }

  size_t Count() const override { return wbwi_.GetWriteBatch()->Count(); }
  size_t ApproximateBytes() const override { return wbwi_.GetWriteBatch()->GetDataSize(); }

 private:
  friend class RocksKvStore;
  // Not owned; the store outlives its batches.
  rocksdb::DB* db_;
  // RocksDB's read calls on it are not const.
  mutable rocksdb::WriteBatchWithIndex wbwi_;
};

class RocksKvStore final : public KvStore {
 public:
  RocksKvStore(std::string path, std::shared_ptr<rocksdb::Cache> cache,
               std::unique_ptr<rocksdb::DB> db, bool read_only)
      : path_(std::move(path)), cache_(std::move(cache)), db_(std::move(db)),
        read_only_(read_only) {}

  ~RocksKvStore() override {
    // Close reports errors (e.g. a failed final sync) that the destructor cannot return;
    // committed data is in the WAL either way.
    (void)db_->Close();
  }

  Result<std::optional<std::string>> Get(std::string_view key) const override {
    std::string value;
    const rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), ToSlice(key), &value);
    if (s.IsNotFound()) return std::optional<std::string>();
    if (!s.ok()) return FromRocks(s, "get");
    return std::optional<std::string>(std::move(value));
  }

  std::unique_ptr<KvIterator> NewIterator(const KvBounds& bounds) const override {
    return std::make_unique<RocksIterator>(db_.get(), nullptr, bounds);
  }

  std::unique_ptr<KvBatch> NewBatch() override { return std::make_unique<RocksBatch>(db_.get()); }

  Status Commit(KvBatch* kv_batch, bool sync) override {
    // No RTTI across the plugin boundary: a batch comes from NewBatch of this store
    // (kv_store.h), and its database is checked.
    auto* batch = static_cast<RocksBatch*>(kv_batch);
    if (read_only_) return Status::ReadOnly("database " + path_ + " is open read-only");
    if (batch->db_ != db_.get()) {
      return Status::InvalidArgument("batch committed to a store that did not make it");
    }
    rocksdb::WriteOptions wo;
    wo.sync = sync;
    SMR_RETURN_IF_ERROR(FromRocks(db_->Write(wo, batch->wbwi_.GetWriteBatch()), "commit"));
    // Applied: the batch starts over empty (its writes are now committed state).
    batch->wbwi_.Clear();
    return Status::OK();
  }

  Status SyncWal() override {
    if (read_only_) return Status::OK();
    return FromRocks(db_->SyncWAL(), "sync the write-ahead log");
  }

  uint64_t ApproximateSizeBytes() override {
    uint64_t sst = 0;
    uint64_t mem = 0;
    db_->GetIntProperty(rocksdb::DB::Properties::kLiveSstFilesSize, &sst);
    db_->GetIntProperty(rocksdb::DB::Properties::kCurSizeAllMemTables, &mem);
    return sst + mem;
  }

  std::string PropertyDump() override {
    std::string out;
    std::string stats;
    if (db_->GetProperty(rocksdb::DB::Properties::kStats, &stats)) out += stats;
    uint64_t keys_estimate = 0;
    if (db_->GetIntProperty(rocksdb::DB::Properties::kEstimateNumKeys, &keys_estimate)) {
      out += "estimated keys: " + std::to_string(keys_estimate) + "\n";
    }
    return out;
  }

 private:
  std::string path_;
  std::shared_ptr<rocksdb::Cache> cache_;
  std::unique_ptr<rocksdb::DB> db_;
  bool read_only_;
};

// Read-only opens must not write even RocksDB's info log (LOG) in the database directory.
class DiscardLogger final : public rocksdb::Logger {
 public:
  using rocksdb::Logger::Logv;
  void Logv(const char*, va_list) override {}
};

}  // namespace

Result<std::unique_ptr<KvStore>> OpenRocksDbKvStore(const std::string& path, KvOpenMode mode) {
  const bool create = mode == KvOpenMode::kCreate;
  const bool exists = PathExists(path + "/CURRENT");
  if (create && exists) return Status::AlreadyExists("database exists at " + path);
  if (!create && !exists) return Status::NotFound("no database at " + path);

  std::shared_ptr<rocksdb::Cache> cache = rocksdb::NewLRUCache(kBlockCacheBytes);
  rocksdb::Options options = MakeOptions(cache);
  options.create_if_missing = create;
  options.error_if_exists = create;
  const bool read_only = mode == KvOpenMode::kReadOnly;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s;
  if (read_only) {
    options.info_log = std::make_shared<DiscardLogger>();
    s = rocksdb::DB::OpenForReadOnly(options, path, &raw);
  } else {
    s = rocksdb::DB::Open(options, path, &raw);
  }
  if (!s.ok()) {
    // Another creator or remover raced the existence check above.
    if (s.IsInvalidArgument() && ContainsNoCase(s.ToString(), "exists (error_if_exists")) {
      return Status::AlreadyExists("database exists at " + path);
    }
    if (s.IsInvalidArgument() && ContainsNoCase(s.ToString(), "does not exist")) {
      return Status::NotFound("no database at " + path);
    }
    return FromRocks(s, "open database " + path);
  }
  return std::unique_ptr<KvStore>(
      std::make_unique<RocksKvStore>(path, std::move(cache), std::unique_ptr<rocksdb::DB>(raw),
                                     read_only));
}

}  // namespace smr
