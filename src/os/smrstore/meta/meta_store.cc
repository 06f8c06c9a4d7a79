#include "meta/meta_store.h"

#include <string_view>

#include "common/coding.h"
#include "kv/kv_store.h"
#include "kv/kv_wrapper_hook.h"
#include "meta/key_schema.h"

namespace smr {

namespace {

// Bounds for one iteration: [lower, upper).
KvBounds Range(std::string lower, std::string upper) {
  KvBounds b;
  b.lower = std::move(lower);
  b.upper = std::move(upper);
  return b;
}

}  // namespace

// Keys the journal carries: everything but the derived kinds (zone accounting, counters,
// derived values), which a rebuild recomputes from the drives, and the format version,
// which the database writes itself.
bool IsJournaledKey(std::string_view key) {
  if (key.empty()) return false;
  return key[0] != keys::kZonePrefix && key[0] != keys::kCounterPrefix &&
         key[0] != keys::kDerivedValuePrefix && key[0] != keys::kFormatVersionPrefix;
}

// --- MetaStore::Batch ---

struct MetaStore::Batch::Impl {
  explicit Impl(std::unique_ptr<KvBatch> b) : kv(std::move(b)) {}

  std::unique_ptr<KvBatch> kv;
  // First error of a write that could not be planned (a failed batch write, a failed read
  // in DeleteOmapRange / ClearOmap); Commit returns it and writes nothing.
  Status error;

  void Record(const Status& s, std::string_view what) {
    if (!s.ok() && error.ok()) error = s.WithContext(what);
  }
  void Put(const std::string& key, const std::string& value) {
    Record(kv->Put(key, value), "metadata batch put");
    if (IsJournaledKey(key)) journal.push_back(JournalOp::Put(key, value));
  }
  void Delete(const std::string& key) {
    Record(kv->Delete(key), "metadata batch delete");
    if (IsJournaledKey(key)) journal.push_back(JournalOp::Delete(key));
  }

  // The journaled writes since the last commit, in order; sizes at each save point.
  std::vector<JournalOp> journal;
  std::vector<size_t> journal_marks;
  // Deletes every key of `range` as this batch sees it (pending writes over committed
  // data). The keys are collected first: writing to the batch invalidates its iterators.
  // A read error is recorded in `error`.
  void DeleteAllIn(const KvBounds& range, std::string_view what);
};

namespace {

// Visits the keys of `it` (made with bounds `range`) in byte order. `fn(key, value)`
// returns false to stop early.
template <typename Fn>
Status Scan(std::unique_ptr<KvIterator> it, const KvBounds& range, Fn&& fn) {
  for (it->Seek(range.lower); it->Valid(); it->Next()) {
    if (!fn(it->key(), it->value())) break;
  }
  return it->status().WithContext("iterate metadata");
}

}  // namespace

void MetaStore::Batch::Impl::DeleteAllIn(const KvBounds& range, std::string_view what) {
  std::vector<std::string> doomed;
  const Status s = Scan(kv->NewIterator(range), range, [&](std::string_view k, std::string_view) {
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

void MetaStore::Batch::PutDerivedValue(const std::string& name, const std::string& value) {
  impl_->Put(keys::DerivedValueKey(name), value);
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
  // A batch cannot read through a range delete (RocksDB's WriteBatchWithIndex), so the keys
  // in the range (as this batch sees them) are deleted one by one.
  const KvBounds range = Range(keys::OmapKey(nid, first), keys::OmapKey(nid, last));
  impl_->DeleteAllIn(range, "omap range delete");
}

void MetaStore::Batch::ClearOmap(uint64_t nid) {
  impl_->Delete(keys::OmapHeaderKey(nid));
  const std::string prefix = keys::OmapKeyPrefix(nid);
  impl_->DeleteAllIn(Range(prefix, keys::PrefixSuccessor(prefix)), "omap clear");
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

void MetaStore::Batch::SetSavePoint() {
  impl_->kv->SetSavePoint();
  impl_->journal_marks.push_back(impl_->journal.size());
}

Status MetaStore::Batch::RollbackToSavePoint() {
  SMR_RETURN_IF_ERROR(impl_->kv->RollbackToSavePoint());
  if (!impl_->journal_marks.empty()) {
    impl_->journal.resize(impl_->journal_marks.back());
    impl_->journal_marks.pop_back();
  }
  return Status::OK();
}

Status MetaStore::Batch::PopSavePoint() {
  SMR_RETURN_IF_ERROR(impl_->kv->PopSavePoint());
  if (!impl_->journal_marks.empty()) impl_->journal_marks.pop_back();
  return Status::OK();
}

const std::vector<JournalOp>& MetaStore::Batch::journal() const { return impl_->journal; }

void MetaStore::Batch::ApplyJournalOp(const JournalOp& op) {
  if (op.kind == journalfmt::kOpPut) {
    impl_->Put(op.key, op.value);
  } else if (op.kind == journalfmt::kOpDelete) {
    impl_->Delete(op.key);
  }
}

size_t MetaStore::Batch::Count() const { return impl_->kv->Count(); }

size_t MetaStore::Batch::ApproximateBytes() const { return impl_->kv->ApproximateBytes(); }

// --- MetaStore ---

struct MetaStore::Impl {
  std::string path;
  std::unique_ptr<KvStore> kv;

  // Reads `key` through `batch` (or committed state). nullopt when absent.
  Result<std::optional<std::string>> Get(const Batch* batch, const std::string& key) {
    Result<std::optional<std::string>> r =
        batch != nullptr ? batch->impl_->kv->Get(key) : kv->Get(key);
    if (!r.ok()) return r.status().WithContext("metadata get");
    return r;
  }

  // Visits the keys in [range.lower, range.upper) as seen through `batch` (pending writes
  // over committed data), or in committed data when `batch` is null.
  template <typename Fn>
  Status ScanThrough(const Batch* batch, const KvBounds& range, Fn&& fn) {
    return Scan(batch != nullptr ? batch->impl_->kv->NewIterator(range) : kv->NewIterator(range),
                range, std::forward<Fn>(fn));
  }

  // Shared by ListObjects and ListOnodes: visits objects of `cid` in [start, end), at most
  // `max`, and sets *next. fn(oid, value) returns an error to stop the listing.
  template <typename Fn>
  Status ListObjectRange(const Batch* batch, uint64_t cid, const ObjectId& start,
                         const ObjectId& end, size_t max, ObjectId* next, Fn&& fn) {
    // A max `end` encodes as prefix + 0x01, above every object (0x00 ...) of the
    // collection, so one exclusive bound serves both cases.
    const KvBounds range = Range(keys::ObjectKey(cid, start), keys::ObjectKey(cid, end));
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

Result<std::unique_ptr<MetaStore>> MetaStore::Create(const std::string& path) {
  Result<std::unique_ptr<KvStore>> kv = OpenKvStore(path, KvOpenMode::kCreate);
  if (!kv.ok()) return kv.status().WithContext("metadata");
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->kv = WrapOpenedKvStore(path, KvOpenMode::kCreate, std::move(kv).value());
  std::unique_ptr<KvBatch> batch = impl->kv->NewBatch();
  SMR_RETURN_IF_ERROR(
      batch->Put(keys::FormatVersionKey(), keys::EncodeFormatVersion(keys::kFormatVersion)));
  SMR_RETURN_IF_ERROR(
      impl->kv->Commit(batch.get(), /*sync=*/true).WithContext("write format_version"));
  batch.reset();
  return std::unique_ptr<MetaStore>(new MetaStore(std::move(impl)));
}

Result<std::unique_ptr<MetaStore>> MetaStore::Open(const std::string& path, bool read_only) {
  const KvOpenMode mode = read_only ? KvOpenMode::kReadOnly : KvOpenMode::kOpen;
  Result<std::unique_ptr<KvStore>> kv = OpenKvStore(path, mode);
  if (!kv.ok()) return kv.status().WithContext("metadata");
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->kv = WrapOpenedKvStore(path, mode, std::move(kv).value());
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
  return std::unique_ptr<Batch>(new Batch(std::make_unique<Batch::Impl>(impl_->kv->NewBatch())));
}

Status MetaStore::SyncWal() { return impl_->kv->SyncWal().WithContext("sync metadata"); }

Status MetaStore::Commit(Batch* batch, bool sync) {
  if (!batch->impl_->error.ok()) return batch->impl_->error.WithContext("batch not committed");
  // On success the batch is applied and left empty (its writes are now committed state).
  SMR_RETURN_IF_ERROR(
      impl_->kv->Commit(batch->impl_->kv.get(), sync).WithContext("commit metadata"));
  batch->impl_->journal.clear();
  batch->impl_->journal_marks.clear();
  return Status::OK();
}

Status MetaStore::ForEachJournaledKey(
    const std::function<Status(std::string_view, std::string_view)>& fn) {
  std::unique_ptr<KvIterator> it = impl_->kv->NewIterator(KvBounds{});
  for (it->Seek(""); it->Valid(); it->Next()) {
    if (!IsJournaledKey(it->key())) continue;
    SMR_RETURN_IF_ERROR(fn(it->key(), it->value()));
  }
  return it->status().WithContext("iterate metadata for a checkpoint");
}

Result<bool> MetaStore::ForEachJournaledKeyFrom(
    const std::string& from,
    const std::function<Status(std::string_view, std::string_view, bool* stop)>& fn) {
  std::unique_ptr<KvIterator> it = impl_->kv->NewIterator(KvBounds{});
  bool stop = false;
  for (it->Seek(from); it->Valid(); it->Next()) {
    if (!IsJournaledKey(it->key())) continue;
    SMR_RETURN_IF_ERROR(fn(it->key(), it->value(), &stop));
    if (stop) break;
  }
  SMR_RETURN_IF_ERROR(it->status().WithContext("iterate metadata for a checkpoint"));
  return !stop;
}

Result<std::optional<std::string>> MetaStore::GetValue(const Batch* batch,
                                                       const std::string& name) {
  return impl_->Get(batch, keys::ValueKey(name));
}

Result<std::optional<std::string>> MetaStore::GetDerivedValue(const Batch* batch,
                                                              const std::string& name) {
  return impl_->Get(batch, keys::DerivedValueKey(name));
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
  const KvBounds range = Range(prefix, keys::PrefixSuccessor(prefix));
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

Result<bool> MetaStore::CollectionEmpty(const Batch* batch, uint64_t cid) {
  ObjectId max_object;
  max_object.max = true;
  const KvBounds range = Range(keys::ObjectKeyPrefix(cid), keys::ObjectKey(cid, max_object));
  bool empty = true;
  Status s = impl_->ScanThrough(batch, range, [&](std::string_view, std::string_view) {
    empty = false;
    return false;
  });
  SMR_RETURN_IF_ERROR(s);
  return empty;
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
  const KvBounds range = Range(std::move(lower), keys::PrefixSuccessor(prefix));
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

Status MetaStore::ForEachNid(
    const std::function<Status(uint64_t, uint64_t, const ObjectId&)>& fn) {
  const std::string prefix(1, keys::kNidPrefix);
  const KvBounds range = Range(prefix, keys::PrefixSuccessor(prefix));
  Status inner;
  Status s = Scan(impl_->kv->NewIterator(range), range, [&](std::string_view k, std::string_view v) {
    k.remove_prefix(1);
    uint64_t nid = 0, cid = 0;
    if (!ConsumeBigEndian64(&k, &nid) || !k.empty() || !ConsumeBigEndian64(&v, &cid)) {
      inner = Status::Corruption("malformed nid index entry");
      return false;
    }
    auto oid = DecodeObjectKey(v);
    if (!oid.ok()) {
      inner = oid.status().WithContext("nid index entry " + std::to_string(nid));
      return false;
    }
    inner = fn(nid, cid, *oid);
    return inner.ok();
  });
  SMR_RETURN_IF_ERROR(inner);
  return s;
}

Result<std::map<std::pair<uint16_t, uint32_t>, ZoneMeta>> MetaStore::LoadZones(
    const Batch* batch) {
  const std::string prefix(1, keys::kZonePrefix);
  const KvBounds range = Range(prefix, keys::PrefixSuccessor(prefix));
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

uint64_t MetaStore::ApproximateSizeBytes() { return impl_->kv->ApproximateSizeBytes(); }

std::string MetaStore::PropertyDump() {
  std::string out = "metadata database " + impl_->path + "\n";
  out += impl_->kv->PropertyDump();
  out += "approximate size bytes: " + std::to_string(ApproximateSizeBytes()) + "\n";
  return out;
}

}  // namespace smr
