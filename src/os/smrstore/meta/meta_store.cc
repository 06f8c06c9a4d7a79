#include "meta/meta_store.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <string_view>

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

#include "common/coding.h"
#include "meta/key_schema.h"

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
  // keeps total-order iteration correct for all key kinds of key_schema.h.

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

// Bounds for one iteration: [lower, upper). The slices point into this object, which must
// outlive the iterator.
struct ScanRange {
  std::string lower;
  std::string upper;
  rocksdb::Slice lower_slice;
  rocksdb::Slice upper_slice;

  ScanRange(std::string lo, std::string up) : lower(std::move(lo)), upper(std::move(up)) {
    lower_slice = rocksdb::Slice(lower);
    upper_slice = rocksdb::Slice(upper);
  }
  ScanRange(const ScanRange&) = delete;
  ScanRange& operator=(const ScanRange&) = delete;
};

}  // namespace

// --- MetaStore::Batch ---

struct MetaStore::Batch::Impl {
  explicit Impl(rocksdb::DB* database)
      : db(database),
        wbwi(rocksdb::BytewiseComparator(), /*reserved_bytes=*/0, /*overwrite_key=*/true) {}

  // For the writes that must read first (DeleteOmapRange, ClearOmap). Not owned; the
  // MetaStore outlives its batches.
  rocksdb::DB* db;
  rocksdb::WriteBatchWithIndex wbwi;
  // First error of a write that could not be planned (a failed read in DeleteOmapRange,
  // ClearOmap); Commit returns it and writes nothing.
  Status error;

  void Record(const rocksdb::Status& s, std::string_view what) {
    if (!s.ok() && error.ok()) error = FromRocks(s, what);
  }
  void Put(const std::string& key, const std::string& value) {
    Record(wbwi.Put(key, value), "batch put");
  }
  void Delete(const std::string& key) { Record(wbwi.Delete(key), "batch delete"); }
  // Deletes every key of `range` as this batch sees it (pending writes over committed
  // data). The keys are collected first: writing to the batch invalidates its iterators.
  // A read error is recorded in `error`.
  void DeleteAllIn(const ScanRange& range, std::string_view what);
};

namespace {

// Visits the keys in [range.lower, range.upper) in byte order, as seen through `wbwi`
// (pending writes over committed data) or in committed data when `wbwi` is null.
// `fn(key, value)` returns false to stop early.
template <typename Fn>
Status Scan(rocksdb::DB* db, rocksdb::WriteBatchWithIndex* wbwi, const ScanRange& range,
            Fn&& fn) {
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &range.lower_slice;
  ro.iterate_upper_bound = &range.upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro));
  if (wbwi != nullptr) {
    // The batch iterator takes ownership of the base iterator.
    it.reset(wbwi->NewIteratorWithBase(db->DefaultColumnFamily(), it.release(), &ro));
  }
  for (it->Seek(range.lower_slice); it->Valid(); it->Next()) {
    const rocksdb::Slice key = it->key();
    // The bounds are also checked here: the batch's delta iterator may not apply them.
    if (key.compare(range.upper_slice) >= 0) break;
    if (!fn(std::string_view(key.data(), key.size()),
            std::string_view(it->value().data(), it->value().size()))) {
      break;
    }
  }
  return FromRocks(it->status(), "iterate metadata");
}

}  // namespace

void MetaStore::Batch::Impl::DeleteAllIn(const ScanRange& range, std::string_view what) {
  std::vector<std::string> doomed;
  const Status s = Scan(db, &wbwi, range, [&](std::string_view k, std::string_view) {
    doomed.emplace_back(k);
    return true;
  });
  if (!s.ok()) {
    if (error.ok()) error = s.WithContext(what);
    return;
  }
  for (const std::string& k : doomed) Delete(k);
}

MetaStore::Batch::Batch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MetaStore::Batch::~Batch() = default;

void MetaStore::Batch::PutValue(const std::string& name, const std::string& value) {
  impl_->Put(keys::ValueKey(name), value);
}

void MetaStore::Batch::PutCounter(const std::string& name, uint64_t value) {
  std::string v(8, '\0');
  EncodeFixed64(v.data(), value);
  impl_->Put(keys::CounterKey(name), v);
}

void MetaStore::Batch::PutCollection(const std::string& name, const CollectionMeta& meta) {
  impl_->Put(keys::CollectionKey(name), EncodeCollectionMeta(meta));
}

void MetaStore::Batch::DeleteCollection(const std::string& name) {
  impl_->Delete(keys::CollectionKey(name));
}

void MetaStore::Batch::PutOnode(uint64_t cid, const ObjectId& oid, const Onode& onode) {
  impl_->Put(keys::ObjectKey(cid, oid), EncodeOnode(onode));
}

void MetaStore::Batch::DeleteOnode(uint64_t cid, const ObjectId& oid) {
  impl_->Delete(keys::ObjectKey(cid, oid));
}

void MetaStore::Batch::PutOmapHeader(uint64_t nid, const std::string& header) {
  impl_->Put(keys::OmapHeaderKey(nid), header);
}

void MetaStore::Batch::DeleteOmapHeader(uint64_t nid) { impl_->Delete(keys::OmapHeaderKey(nid)); }

void MetaStore::Batch::PutOmapValue(uint64_t nid, const std::string& key,
                                    const std::string& value) {
  impl_->Put(keys::OmapKey(nid, key), value);
}

void MetaStore::Batch::DeleteOmapValue(uint64_t nid, const std::string& key) {
  impl_->Delete(keys::OmapKey(nid, key));
}

void MetaStore::Batch::DeleteOmapRange(uint64_t nid, const std::string& first,
                                       const std::string& last) {
  if (first >= last) return;
  // WriteBatchWithIndex cannot read through a DeleteRange, so the keys in the range (as
  // this batch sees them) are deleted one by one.
  const ScanRange range(keys::OmapKey(nid, first), keys::OmapKey(nid, last));
  impl_->DeleteAllIn(range, "omap range delete");
}

void MetaStore::Batch::ClearOmap(uint64_t nid) {
  impl_->Delete(keys::OmapHeaderKey(nid));
  const std::string prefix = keys::OmapKeyPrefix(nid);
  const ScanRange range(prefix, keys::PrefixSuccessor(prefix));
  impl_->DeleteAllIn(range, "omap clear");
}

void MetaStore::Batch::PutZone(uint16_t drive, uint32_t zone, const ZoneMeta& meta) {
  impl_->Put(keys::ZoneKey(drive, zone), EncodeZoneMeta(meta));
}

void MetaStore::Batch::PutNid(uint64_t nid, uint64_t cid, const ObjectId& oid) {
  std::string value;
  AppendBigEndian64(cid, &value);
  EncodeObjectKey(oid, &value);
  impl_->Put(keys::NidKey(nid), value);
}

void MetaStore::Batch::DeleteNid(uint64_t nid) { impl_->Delete(keys::NidKey(nid)); }

void MetaStore::Batch::SetSavePoint() { impl_->wbwi.SetSavePoint(); }

Status MetaStore::Batch::RollbackToSavePoint() {
  return FromRocks(impl_->wbwi.RollbackToSavePoint(), "rollback to save point");
}

Status MetaStore::Batch::PopSavePoint() {
  return FromRocks(impl_->wbwi.PopSavePoint(), "pop save point");
}

size_t MetaStore::Batch::Count() const { return impl_->wbwi.GetWriteBatch()->Count(); }

size_t MetaStore::Batch::ApproximateBytes() const {
  return impl_->wbwi.GetWriteBatch()->GetDataSize();
}

// --- MetaStore ---

struct MetaStore::Impl {
  std::string path;
  std::shared_ptr<rocksdb::Cache> cache;
  std::unique_ptr<rocksdb::DB> db;

  ~Impl() {
    if (db) {
      // Close reports errors (e.g. a failed final sync) that the destructor cannot return;
      // committed data is in the WAL either way.
      (void)db->Close();
    }
  }

  // Reads `key` through `batch` (or committed state). nullopt when absent.
  Result<std::optional<std::string>> Get(const Batch* batch, const std::string& key) {
    std::string value;
    rocksdb::Status s;
    if (batch != nullptr) {
      s = batch->impl_->wbwi.GetFromBatchAndDB(db.get(), rocksdb::ReadOptions(), key, &value);
    } else {
      s = db->Get(rocksdb::ReadOptions(), key, &value);
    }
    if (s.IsNotFound()) return std::optional<std::string>();
    if (!s.ok()) return FromRocks(s, "metadata get");
    return std::optional<std::string>(std::move(value));
  }

  template <typename Fn>
  Status ScanThrough(const Batch* batch, const ScanRange& range, Fn&& fn) {
    return Scan(db.get(), batch != nullptr ? &batch->impl_->wbwi : nullptr, range,
                std::forward<Fn>(fn));
  }

  // Shared by ListObjects and ListOnodes: visits objects of `cid` in [start, end), at most
  // `max`, and sets *next. fn(oid, value) returns an error to stop the listing.
  template <typename Fn>
  Status ListObjectRange(const Batch* batch, uint64_t cid, const ObjectId& start,
                         const ObjectId& end, size_t max, ObjectId* next, Fn&& fn) {
    // A max `end` encodes as prefix + 0x01, above every object (0x00 ...) of the
    // collection, so one exclusive bound serves both cases.
    const ScanRange range(keys::ObjectKey(cid, start), keys::ObjectKey(cid, end));
    size_t n = 0;
    bool more = false;
    Status inner;
    Status s = ScanThrough(batch, range, [&](std::string_view k, std::string_view v) {
      Result<ObjectId> oid = keys::DecodeObjectKeyOf(cid, k);
      if (!oid.ok()) {
        inner = oid.status();
        return false;
      }
      if (max != 0 && n == max) {
        if (next != nullptr) *next = std::move(oid).value();
        more = true;
        return false;
      }
      inner = fn(std::move(oid).value(), v);
      ++n;
      return inner.ok();
    });
    SMR_RETURN_IF_ERROR(s);
    SMR_RETURN_IF_ERROR(inner);
    if (!more && next != nullptr) *next = end;
    return Status::OK();
  }
};

MetaStore::MetaStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MetaStore::~MetaStore() = default;

namespace {

// Opens (or creates) the RocksDB database at `path`; see Create/Open for the checks.
Status OpenRocks(const std::string& path, bool create, const std::shared_ptr<rocksdb::Cache>& cache,
                 std::unique_ptr<rocksdb::DB>* out) {
  rocksdb::Options options = MakeOptions(cache);
  options.create_if_missing = create;
  options.error_if_exists = create;
  rocksdb::DB* raw = nullptr;
  const rocksdb::Status s = rocksdb::DB::Open(options, path, &raw);
  if (!s.ok()) {
    // Another creator or remover raced the existence check of Create/Open.
    if (s.IsInvalidArgument() && ContainsNoCase(s.ToString(), "exists (error_if_exists")) {
      return Status::AlreadyExists("metadata database exists at " + path);
    }
    if (s.IsInvalidArgument() && ContainsNoCase(s.ToString(), "does not exist")) {
      return Status::NotFound("no metadata database at " + path);
    }
    return FromRocks(s, "open metadata database " + path);
  }
  out->reset(raw);
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<MetaStore>> MetaStore::Create(const std::string& path) {
  if (PathExists(path + "/CURRENT")) {
    return Status::AlreadyExists("metadata database exists at " + path);
  }
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->cache = rocksdb::NewLRUCache(kBlockCacheBytes);
  SMR_RETURN_IF_ERROR(OpenRocks(path, /*create=*/true, impl->cache, &impl->db));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  SMR_RETURN_IF_ERROR(FromRocks(impl->db->Put(wo, keys::FormatVersionKey(),
                                              keys::EncodeFormatVersion(keys::kFormatVersion)),
                                "write format_version"));
  return std::unique_ptr<MetaStore>(new MetaStore(std::move(impl)));
}

Result<std::unique_ptr<MetaStore>> MetaStore::Open(const std::string& path) {
  if (!PathExists(path + "/CURRENT")) {
    return Status::NotFound("no metadata database at " + path);
  }
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->cache = rocksdb::NewLRUCache(kBlockCacheBytes);
  SMR_RETURN_IF_ERROR(OpenRocks(path, /*create=*/false, impl->cache, &impl->db));
  SMR_ASSIGN_OR_RETURN(std::optional<std::string> version,
                       impl->Get(nullptr, keys::FormatVersionKey()));
  if (!version) {
    return Status::Corruption("metadata database at " + path + " has no format_version");
  }
  SMR_ASSIGN_OR_RETURN(uint32_t v, keys::DecodeFormatVersion(*version));
  if (v != keys::kFormatVersion) {
    return Status::Corruption("metadata database at " + path + " has format version " +
                              std::to_string(v) + ", this build reads " +
                              std::to_string(keys::kFormatVersion));
  }
  return std::unique_ptr<MetaStore>(new MetaStore(std::move(impl)));
}

std::unique_ptr<MetaStore::Batch> MetaStore::NewBatch() {
  return std::unique_ptr<Batch>(new Batch(std::make_unique<Batch::Impl>(impl_->db.get())));
}

Status MetaStore::Commit(Batch* batch, bool sync) {
  if (!batch->impl_->error.ok()) return batch->impl_->error.WithContext("batch not committed");
  rocksdb::WriteOptions wo;
  wo.sync = sync;
  SMR_RETURN_IF_ERROR(
      FromRocks(impl_->db->Write(wo, batch->impl_->wbwi.GetWriteBatch()), "commit metadata"));
  // Applied: the batch starts over empty (its writes are now committed state).
  batch->impl_->wbwi.Clear();
  return Status::OK();
}

Result<std::optional<std::string>> MetaStore::GetValue(const Batch* batch,
                                                       const std::string& name) {
  return impl_->Get(batch, keys::ValueKey(name));
}

Result<uint64_t> MetaStore::GetCounter(const Batch* batch, const std::string& name) {
  SMR_ASSIGN_OR_RETURN(std::optional<std::string> v, impl_->Get(batch, keys::CounterKey(name)));
  if (!v) return uint64_t{0};
  if (v->size() != 8) return Status::Corruption("malformed counter " + name);
  return DecodeFixed64(v->data());
}

Result<std::optional<CollectionMeta>> MetaStore::GetCollection(const Batch* batch,
                                                               const std::string& name) {
  SMR_ASSIGN_OR_RETURN(std::optional<std::string> v,
                       impl_->Get(batch, keys::CollectionKey(name)));
  if (!v) return std::optional<CollectionMeta>();
  Result<CollectionMeta> c = DecodeCollectionMeta(*v);
  if (!c.ok()) return c.status().WithContext("collection " + name);
  return std::optional<CollectionMeta>(std::move(c).value());
}

Result<std::map<std::string, CollectionMeta>> MetaStore::ListCollections(const Batch* batch) {
  const std::string prefix(1, keys::kCollectionPrefix);
  const ScanRange range(prefix, keys::PrefixSuccessor(prefix));
  std::map<std::string, CollectionMeta> out;
  Status inner;
  SMR_RETURN_IF_ERROR(impl_->ScanThrough(batch, range, [&](std::string_view k,
                                                           std::string_view v) {
    Result<std::string> name = keys::DecodeCollectionKey(k);
    if (!name.ok()) {
      inner = name.status();
      return false;
    }
    Result<CollectionMeta> c = DecodeCollectionMeta(v);
    if (!c.ok()) {
      inner = c.status().WithContext("collection " + *name);
      return false;
    }
    out.emplace(std::move(name).value(), std::move(c).value());
    return true;
  }));
  SMR_RETURN_IF_ERROR(inner);
  return out;
}

Result<std::optional<Onode>> MetaStore::GetOnode(const Batch* batch, uint64_t cid,
                                                 const ObjectId& oid) {
  SMR_ASSIGN_OR_RETURN(std::optional<std::string> v, impl_->Get(batch, keys::ObjectKey(cid, oid)));
  if (!v) return std::optional<Onode>();
  Result<Onode> o = DecodeOnode(*v);
  if (!o.ok()) return o.status().WithContext("onode " + oid.ToString());
  return std::optional<Onode>(std::move(o).value());
}

Status MetaStore::ListObjects(const Batch* batch, uint64_t cid, const ObjectId& start,
                              const ObjectId& end, size_t max, std::vector<ObjectId>* out,
                              ObjectId* next) {
  out->clear();
  return impl_->ListObjectRange(batch, cid, start, end, max, next,
                                [&](ObjectId oid, std::string_view) {
                                  out->push_back(std::move(oid));
                                  return Status::OK();
                                });
}

Status MetaStore::ListOnodes(const Batch* batch, uint64_t cid, const ObjectId& start,
                             const ObjectId& end, size_t max,
                             std::vector<std::pair<ObjectId, Onode>>* out, ObjectId* next) {
  out->clear();
  return impl_->ListObjectRange(batch, cid, start, end, max, next,
                                [&](ObjectId oid, std::string_view v) {
                                  Result<Onode> o = DecodeOnode(v);
                                  if (!o.ok()) {
                                    return o.status().WithContext("onode " + oid.ToString());
                                  }
                                  out->emplace_back(std::move(oid), std::move(o).value());
                                  return Status::OK();
                                });
}

bool MetaStore::CollectionEmpty(const Batch* batch, uint64_t cid, Status* status) {
  ObjectId max_object;
  max_object.max = true;
  const ScanRange range(keys::ObjectKeyPrefix(cid), keys::ObjectKey(cid, max_object));
  bool empty = true;
  Status s = impl_->ScanThrough(batch, range, [&](std::string_view, std::string_view) {
    empty = false;
    return false;
  });
  if (status != nullptr) *status = s;
  // On error the answer is "not empty": the caller must not act as if nothing were there.
  return s.ok() && empty;
}

Result<std::optional<std::string>> MetaStore::GetOmapHeader(const Batch* batch, uint64_t nid) {
  return impl_->Get(batch, keys::OmapHeaderKey(nid));
}

Result<std::optional<std::string>> MetaStore::GetOmapValue(const Batch* batch, uint64_t nid,
                                                           const std::string& key) {
  return impl_->Get(batch, keys::OmapKey(nid, key));
}

Status MetaStore::ListOmap(const Batch* batch, uint64_t nid, const std::string* after,
                           size_t max, std::vector<std::pair<std::string, std::string>>* out) {
  out->clear();
  const std::string prefix = keys::OmapKeyPrefix(nid);
  std::string lower = prefix;
  if (after != nullptr) {
    // The smallest key greater than `after` is after + '\0'.
    lower = keys::OmapKey(nid, *after);
    lower.push_back('\0');
  }
  const ScanRange range(std::move(lower), keys::PrefixSuccessor(prefix));
  return impl_->ScanThrough(batch, range, [&](std::string_view k, std::string_view v) {
    if (max != 0 && out->size() == max) return false;
    k.remove_prefix(prefix.size());
    out->emplace_back(std::string(k), std::string(v));
    return true;
  });
}

Result<std::optional<std::pair<uint64_t, ObjectId>>> MetaStore::GetNid(const Batch* batch,
                                                                       uint64_t nid) {
  SMR_ASSIGN_OR_RETURN(auto value, impl_->Get(batch, keys::NidKey(nid)));
  std::optional<std::pair<uint64_t, ObjectId>> out;
  if (!value) return out;
  std::string_view v(*value);
  uint64_t cid = 0;
  if (!ConsumeBigEndian64(&v, &cid)) return Status::Corruption("malformed nid index value");
  SMR_ASSIGN_OR_RETURN(ObjectId oid, DecodeObjectKey(v));
  out.emplace(cid, std::move(oid));
  return out;
}

Result<std::map<std::pair<uint16_t, uint32_t>, ZoneMeta>> MetaStore::LoadZones(
    const Batch* batch) {
  const std::string prefix(1, keys::kZonePrefix);
  const ScanRange range(prefix, keys::PrefixSuccessor(prefix));
  std::map<std::pair<uint16_t, uint32_t>, ZoneMeta> out;
  Status inner;
  SMR_RETURN_IF_ERROR(impl_->ScanThrough(batch, range, [&](std::string_view k,
                                                           std::string_view v) {
    Result<std::pair<uint16_t, uint32_t>> id = keys::DecodeZoneKey(k);
    if (!id.ok()) {
      inner = id.status();
      return false;
    }
    Result<ZoneMeta> z = DecodeZoneMeta(v);
    if (!z.ok()) {
      inner = z.status().WithContext("zone " + std::to_string(id->first) + "/" +
                                     std::to_string(id->second));
      return false;
    }
    out.emplace(*id, std::move(z).value());
    return true;
  }));
  SMR_RETURN_IF_ERROR(inner);
  return out;
}

uint64_t MetaStore::ApproximateSizeBytes() {
  uint64_t sst = 0;
  uint64_t mem = 0;
  impl_->db->GetIntProperty(rocksdb::DB::Properties::kLiveSstFilesSize, &sst);
  impl_->db->GetIntProperty(rocksdb::DB::Properties::kCurSizeAllMemTables, &mem);
  return sst + mem;
}

std::string MetaStore::PropertyDump() {
  std::string out = "metadata database " + impl_->path + "\n";
  std::string stats;
  if (impl_->db->GetProperty(rocksdb::DB::Properties::kStats, &stats)) out += stats;
  uint64_t keys_estimate = 0;
  if (impl_->db->GetIntProperty(rocksdb::DB::Properties::kEstimateNumKeys, &keys_estimate)) {
    out += "estimated keys: " + std::to_string(keys_estimate) + "\n";
  }
  out += "approximate size bytes: " + std::to_string(ApproximateSizeBytes()) + "\n";
  return out;
}

}  // namespace smr
