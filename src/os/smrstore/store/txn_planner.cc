// Plans one transaction: applies its ops, in order, to the onodes, omap and collections
// seen through the group's MetaStore::Batch, and turns its writes into data records.
//
// How: objects the transaction touches are kept in `objs_` (original and current onode).
// New data becomes PendingRecords; extents point at them through placeholder offsets
// (kPendingBase + index) until Finish() allocates zone space for the records still
// referenced, patches the extents, derives the zones' live-byte deltas from the difference
// between original and final extents, and writes the final onodes into the batch. Omap and
// collection changes go to the batch directly (the caller's save point undoes them if the
// transaction fails).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <set>

#include "common/crc32c.h"
#include "format/record_format.h"
#include "store/store_internal.h"

namespace smr {

namespace {

constexpr uint64_t kPendingBase = 1ull << 63;
// Records are aligned to the record format's block (format/record_format.h).
constexpr uint64_t kBlock = recfmt::kBlockSize;

bool IsPending(const Extent& e) { return e.payload_offset >= kPendingBase; }

std::string Describe(const std::string& coll, const ObjectId& oid) {
  return coll + "/" + oid.ToString();
}

class Planner {
 public:
  Planner(const PlanContext& ctx, uint64_t seq, MetaStore::Batch* batch, GroupWrites* writes,
          const WriteCrcs* crcs)
      : ctx_(ctx), seq_(seq), batch_(batch), writes_(writes), crcs_(crcs) {}

  Status Run(const Transaction& txn) {
    using C = Transaction::OpCode;
    const bool have_crcs = crcs_ != nullptr &&
                           crcs_->chunk == ctx_.options->max_record_payload &&
                           crcs_->per_op.size() == txn.ops().size();
    for (size_t i = 0; i < txn.ops().size(); ++i) {
      const Transaction::Op& op = txn.ops()[i];
      op_crcs_ = have_crcs ? &crcs_->per_op[i] : nullptr;
      Status s = Apply(op);
      op_crcs_ = nullptr;
      if (s.ok()) continue;
      // Collection-level ops name only the collection.
      const bool coll_op = op.code == C::kMkColl || op.code == C::kRmColl ||
                           op.code == C::kCollSetBits || op.code == C::kSplitCollection ||
                           op.code == C::kMergeCollection || op.code == C::kCollHint;
      return s.WithContext(std::string(OpName(op.code)) + " " +
                           (coll_op ? op.coll : Describe(op.coll, op.oid)));
    }
    return Finish();
  }

 private:
  struct Obj {
    uint64_t cid = 0;
    ObjectId oid;
    std::optional<Onode> orig;
    std::optional<Onode> cur;
    std::optional<Onode> in_batch;  // what the batch holds for this key right now
  };
  using Key = std::pair<uint64_t, std::string>;

  static Key KeyOf(uint64_t cid, const ObjectId& oid) {
    std::string k;
    EncodeObjectKey(oid, &k);
    return {cid, std::move(k)};
  }

  Result<CollectionMeta> Coll(const std::string& name) {
    SMR_ASSIGN_OR_RETURN(auto c, ctx_.meta->GetCollection(batch_, name));
    if (!c) return Status::NotFound("collection " + name + " does not exist");
    return *c;
  }

  Result<Obj*> Get(uint64_t cid, const ObjectId& oid) {
    Key key = KeyOf(cid, oid);
    auto it = objs_.find(key);
    if (it != objs_.end()) return &it->second;
    SMR_ASSIGN_OR_RETURN(auto onode, ctx_.meta->GetOnode(batch_, cid, oid));
    Obj& obj = objs_[key];
    obj.cid = cid;
    obj.oid = oid;
    obj.orig = onode;
    obj.in_batch = onode;
    obj.cur = std::move(onode);
    return &obj;
  }

  // The object's onode, created empty if missing.
  Result<Onode*> GetOrCreate(uint64_t cid, const ObjectId& oid) {
    SMR_RETURN_IF_ERROR(oid.Validate());
    SMR_ASSIGN_OR_RETURN(Obj * obj, Get(cid, oid));
    if (!obj->cur) {
      obj->cur.emplace();
      obj->cur->nid = ++*ctx_.nid_max;
    }
    return &*obj->cur;
  }

  Result<Onode*> GetExisting(uint64_t cid, const ObjectId& oid) {
    SMR_ASSIGN_OR_RETURN(Obj * obj, Get(cid, oid));
    if (!obj->cur) return Status::NotFound("object " + oid.ToString() + " does not exist");
    return &*obj->cur;
  }

  // Writes every tracked object's current state into the batch, so batch reads (listing a
  // collection, emptiness) see this transaction's changes.
  static bool Changed(const Obj& obj) {
    if (!obj.orig && !obj.cur) return false;
    if (obj.orig && obj.cur) return !(*obj.orig == *obj.cur);
    return true;
  }

  // Writes every tracked object whose current state differs from what the batch holds (an
  // earlier flush in this transaction may have put a state that later ops changed).
  // Keeps the nid index (nid -> where the object lives now) in step: deletions first, so a
  // move (delete at the old key, put at the new one, same nid) ends with the new place.
  void FlushObjects() {
    auto same = [](const Obj& obj) {
      return obj.cur.has_value() == obj.in_batch.has_value() &&
             (!obj.cur || *obj.cur == *obj.in_batch);
    };
    std::set<uint64_t> live_nids;  // a nid that moved keeps its index entry
    for (const auto& [key, obj] : objs_) {
      if (obj.cur) live_nids.insert(obj.cur->nid);
    }
    auto drop_nid = [&](uint64_t nid) {
      if (live_nids.count(nid) == 0) batch_->DeleteNid(nid);
    };
    for (auto& [key, obj] : objs_) {
      if (same(obj) || obj.cur) continue;
      batch_->DeleteOnode(obj.cid, obj.oid);
      drop_nid(obj.in_batch->nid);
      obj.in_batch.reset();
    }
    for (auto& [key, obj] : objs_) {
      if (same(obj)) continue;
      batch_->PutOnode(obj.cid, obj.oid, *obj.cur);
      if (!obj.in_batch || obj.in_batch->nid != obj.cur->nid) {
        if (obj.in_batch) drop_nid(obj.in_batch->nid);
        batch_->PutNid(obj.cur->nid, obj.cid, obj.oid);
      }
      obj.in_batch = obj.cur;
    }
  }

  // --- Data ---

  // Removes [off, off+len) from the extent map (splitting extents at the edges).
  static void Punch(Onode* o, uint64_t off, uint64_t len) {
    if (len == 0) return;
    const uint64_t end = len == UINT64_MAX ? UINT64_MAX : off + len;
    auto it = o->extents.upper_bound(off);
    if (it != o->extents.begin()) --it;
    while (it != o->extents.end() && it->first < end) {
      Extent e = it->second;
      if (e.end() <= off) {
        ++it;
        continue;
      }
      it = o->extents.erase(it);
      if (e.logical_offset < off) {
        Extent left = e;
        left.length = static_cast<uint32_t>(off - e.logical_offset);
        o->extents.emplace(left.logical_offset, left);
      }
      if (e.end() > end) {
        Extent right = e;
        const uint64_t cut = end - e.logical_offset;
        right.logical_offset = end;
        right.payload_skip = static_cast<uint32_t>(e.payload_skip + cut);
        right.length = static_cast<uint32_t>(e.length - cut);
        it = o->extents.emplace(right.logical_offset, right).first;
        ++it;
      }
    }
  }

  // `data` must stay valid until the group is written: a view into the transaction's own
  // op data, or into `owner`.
  // `crcs`, when given, holds the crc of each max_record_payload chunk of `data`.
  void AddRecordWrite(Onode* o, uint64_t cid, const ObjectId& oid, uint64_t off,
                      std::string_view data, std::shared_ptr<const std::string> owner,
                      const std::vector<uint32_t>* crcs = nullptr) {
    const uint32_t max = ctx_.options->max_record_payload;
    for (uint64_t done = 0, k = 0; done < data.size(); ++k) {
      const auto n = static_cast<uint32_t>(std::min<uint64_t>(max, data.size() - done));
      PendingRecord rec;
      rec.payload = data.substr(done, n);
      rec.owner = owner;
      rec.header.type = RecordType::kData;
      rec.header.seq = seq_;
      rec.header.collection_id = cid;
      rec.header.nid = o->nid;
      rec.header.logical_offset = off + done;
      EncodeObjectKey(oid, &rec.header.object_key);
      rec.header.payload_len = n;
      rec.header.payload_crc = crcs != nullptr && k < crcs->size()
                                   ? (*crcs)[k]
                                   : crc32c::Value(rec.payload.data(), n);
      rec.stream = data.size() < ctx_.options->small_write_max ? StreamId::kSmall
                   : write_hot_                                     ? StreamId::kUserHot
                                                                    : StreamId::kUser;
      Extent e;
      e.logical_offset = off + done;
      e.length = n;
      e.payload_offset = kPendingBase + pending_.size();
      e.payload_len = n;
      e.payload_crc = rec.header.payload_crc;
      Punch(o, e.logical_offset, n);
      o->extents.emplace(e.logical_offset, e);
      pending_.push_back(std::move(rec));
      done += n;
    }
  }

  // Moves inline data into zone records (the object outgrew inline_max).
  void Uninline(Onode* o, uint64_t cid, const ObjectId& oid) {
    if (!o->data_inline) return;
    auto data = std::make_shared<const std::string>(std::move(o->inline_data));
    o->inline_data.clear();
    o->data_inline = false;
    if (!data->empty()) AddRecordWrite(o, cid, oid, 0, *data, data);
  }

  bool FitsInline(const Onode& o, uint64_t new_size) const {
    const uint32_t max = ctx_.options->inline_max;
    return max > 0 && o.extents.empty() && new_size <= max;
  }

  // `owner` owns `data` unless it is a view into the transaction's op (then null).
  // `crcs`, when given, are the crcs of `data`'s records (WriteCrcs).
  Status DoWrite(Onode* o, uint64_t cid, const ObjectId& oid, uint64_t off,
                 std::string_view data, std::shared_ptr<const std::string> owner = nullptr,
                 const std::vector<uint32_t>* crcs = nullptr) {
    if (data.empty()) return Status::OK();  // Ceph: a zero-length write only creates
    const uint64_t end = off + data.size();
    if (end < off) return Status::InvalidArgument("write range overflows");
    const uint64_t new_size = std::max(o->size, end);
    if (FitsInline(*o, new_size)) {
      o->data_inline = true;
      o->inline_data.resize(new_size, '\0');
      std::memcpy(o->inline_data.data() + off, data.data(), data.size());
      o->size = new_size;
      writes_->inline_bytes += data.size();
      return Status::OK();
    }
    Uninline(o, cid, oid);
    AddRecordWrite(o, cid, oid, off, data, std::move(owner), crcs);
    o->size = new_size;
    writes_->user_bytes += data.size();
    return Status::OK();
  }

  // Offsets and lengths here passed Transaction::Validate: off + len < kMaxObjectSize.
  void DoZero(Onode* o, uint64_t cid, const ObjectId& oid, uint64_t off, uint64_t len) {
    if (len == 0) return;
    const uint64_t new_size = std::max(o->size, off + len);
    // Growing an inline object past inline_max moves it to the zones first: the zeroed
    // tail is a hole there, never bytes in memory and in RocksDB.
    if (o->data_inline && !FitsInline(*o, new_size)) Uninline(o, cid, oid);
    if (o->data_inline || FitsInline(*o, new_size)) {
      if (!o->data_inline && o->size > 0) {
        // Only reachable with no extents: the object is all hole so far.
        o->inline_data.assign(o->size, '\0');
      }
      if (FitsInline(*o, new_size) || o->data_inline) {
        o->data_inline = true;
        o->inline_data.resize(std::max<uint64_t>(o->inline_data.size(), new_size), '\0');
        const uint64_t stop = std::min<uint64_t>(off + len, o->inline_data.size());
        if (off < stop) std::memset(o->inline_data.data() + off, 0, stop - off);
        o->size = new_size;
        return;
      }
    }
    Punch(o, off, len);
    o->size = new_size;
  }

  void DoTruncate(Onode* o, uint64_t cid, const ObjectId& oid, uint64_t size) {
    if (o->data_inline && size > o->inline_data.size() && !FitsInline(*o, size)) {
      Uninline(o, cid, oid);  // as in DoZero: the grown tail becomes a hole
    }
    if (o->data_inline) {
      o->inline_data.resize(size, '\0');
    } else {
      Punch(o, size, UINT64_MAX);
    }
    o->size = size;
  }

  Result<std::string> ReadData(const Onode& o, uint64_t off, uint64_t len) {
    std::string out;
    if (off >= o.size) return out;
    len = std::min(len, o.size - off);
    if (o.data_inline) return o.inline_data.substr(off, len);
    out.assign(len, '\0');
    auto it = o.extents.upper_bound(off);
    if (it != o.extents.begin()) --it;
    for (; it != o.extents.end() && it->first < off + len; ++it) {
      const Extent& e = it->second;
      if (e.end() <= off) continue;
      const uint64_t from = std::max(off, e.logical_offset);
      const uint64_t to = std::min(off + len, e.end());
      char* dst = out.data() + (from - off);
      if (IsPending(e)) {
        const std::string_view p = pending_[e.payload_offset - kPendingBase].payload;
        std::memcpy(dst, p.data() + e.payload_skip + (from - e.logical_offset), to - from);
      } else {
        SMR_RETURN_IF_ERROR(ctx_.read_extent(e, from - e.logical_offset, to - from, dst,
                                               writes_));
      }
    }
    return out;
  }

  // --- Omap (written to the batch directly) ---

  Status CopyOmap(uint64_t src_nid, uint64_t dst_nid) {
    SMR_ASSIGN_OR_RETURN(auto header, ctx_.meta->GetOmapHeader(batch_, src_nid));
    if (header) batch_->PutOmapHeader(dst_nid, *header);
    std::vector<std::pair<std::string, std::string>> kv;
    SMR_RETURN_IF_ERROR(ctx_.meta->ListOmap(batch_, src_nid, nullptr, 0, &kv));
    for (const auto& [k, v] : kv) batch_->PutOmapValue(dst_nid, k, v);
    return Status::OK();
  }

  // Removes an object's data, attrs and omap (keeps nothing but the key).
  void Destroy(Obj* obj) {
    if (obj->cur && obj->cur->has_omap) batch_->ClearOmap(obj->cur->nid);
    if (obj->cur) NoteDeathOf(*obj);
    obj->cur.reset();
  }

  // --- Lifetimes (placement hints; gc/lifetime_history.h) ---

  static uint64_t NowNs() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
  }
  static uint64_t NameHash(const Obj& obj) {
    return std::hash<std::string>{}(KeyOf(obj.cid, obj.oid).second) ^
           (obj.cid * 0x9e3779b97f4a7c15ull);
  }
  // obj->cur's data dies now (removed, or truncated to 0 to be rewritten).
  void NoteDeathOf(const Obj& obj) {
    const uint64_t now = NowNs();
    if (obj.cur->mtime_ns == 0 || now <= obj.cur->mtime_ns) return;
    const uint64_t age = now - obj.cur->mtime_ns;
    writes_->death_ages_ns.push_back(age);
    writes_->name_deaths.emplace_back(NameHash(obj), age);
  }
  // Whether data written now under obj's name is expected to die young: the age of the data
  // it replaces (the object's current data, or the last dead incarnation of the name)
  // against the mean lifetime.
  bool PredictHot(const Obj& obj) const {
    if (!ctx_.options->separate_streams) return false;
    std::optional<uint64_t> prev;
    const uint64_t now = NowNs();
    if (obj.cur && obj.cur->size > 0 && obj.cur->mtime_ns != 0 && now > obj.cur->mtime_ns) {
      prev = now - obj.cur->mtime_ns;
    } else {
      // A death earlier in this group (not yet in lifetime_history), else the history.
      const uint64_t name = NameHash(obj);
      for (auto it = writes_->name_deaths.rbegin(); it != writes_->name_deaths.rend(); ++it) {
        if (it->first == name) {
          prev = it->second;
          break;
        }
      }
      if (!prev) prev = ctx_.lifetime_history->Lookup(name);
    }
    return PredictShortLived(prev, ctx_.mean_lifetime_ns);
  }

  // --- Collections ---

  // Moves object (cid, oid) to (dcid, doid), replacing nothing (caller checks).
  Status Move(uint64_t cid, const ObjectId& oid, uint64_t dcid, const ObjectId& doid) {
    SMR_ASSIGN_OR_RETURN(Obj * src, Get(cid, oid));
    Onode onode = *src->cur;
    src->cur.reset();
    SMR_ASSIGN_OR_RETURN(Obj * dst, Get(dcid, doid));
    dst->cur = std::move(onode);
    return Status::OK();
  }

  Status MoveMatching(uint64_t cid, uint64_t dcid, uint32_t bits, uint32_t rem, bool all) {
    FlushObjects();
    std::vector<ObjectId> oids;
    ObjectId next;
    SMR_RETURN_IF_ERROR(ctx_.meta->ListObjects(batch_, cid, ObjectId::Min(), ObjectId::Max(),
                                                  0, &oids, &next));
    const uint32_t mask = bits >= 32 ? 0xffffffffu : ((1u << bits) - 1);
    for (const ObjectId& oid : oids) {
      if (!all && (oid.hash & mask) != rem) continue;
      SMR_RETURN_IF_ERROR(Move(cid, oid, dcid, oid));
    }
    return Status::OK();
  }

  Status Apply(const Transaction::Op& op) {
    using C = Transaction::OpCode;
    switch (op.code) {
      case C::kNop:
      case C::kCollHint:
        return Status::OK();
      case C::kMkColl: {
        SMR_ASSIGN_OR_RETURN(auto c, ctx_.meta->GetCollection(batch_, op.coll));
        if (c) return Status::AlreadyExists("collection " + op.coll + " exists");
        if (op.coll.empty() || op.coll.size() > 1024) {
          return Status::InvalidArgument("bad collection name");
        }
        batch_->PutCollection(op.coll, CollectionMeta{++*ctx_.cid_max, op.bits});
        return Status::OK();
      }
      case C::kRmColl: {
        // BlueStore fails a transaction that removes a missing collection.
        SMR_ASSIGN_OR_RETURN(CollectionMeta c, Coll(op.coll));
        FlushObjects();
        SMR_ASSIGN_OR_RETURN(const bool empty, ctx_.meta->CollectionEmpty(batch_, c.cid));
        if (!empty) return Status::NotEmpty("collection " + op.coll + " is not empty");
        batch_->DeleteCollection(op.coll);
        return Status::OK();
      }
      case C::kCollSetBits: {
        SMR_ASSIGN_OR_RETURN(CollectionMeta c, Coll(op.coll));
        c.bits = op.bits;
        batch_->PutCollection(op.coll, c);
        return Status::OK();
      }
      case C::kSplitCollection: {
        SMR_ASSIGN_OR_RETURN(CollectionMeta c, Coll(op.coll));
        SMR_ASSIGN_OR_RETURN(CollectionMeta d, Coll(op.dest_coll));
        SMR_RETURN_IF_ERROR(MoveMatching(c.cid, d.cid, op.bits, op.rem, /*all=*/false));
        c.bits = op.bits;
        d.bits = op.bits;
        batch_->PutCollection(op.coll, c);
        batch_->PutCollection(op.dest_coll, d);
        return Status::OK();
      }
      case C::kMergeCollection: {
        SMR_ASSIGN_OR_RETURN(CollectionMeta c, Coll(op.coll));
        SMR_ASSIGN_OR_RETURN(CollectionMeta d, Coll(op.dest_coll));
        SMR_RETURN_IF_ERROR(MoveMatching(c.cid, d.cid, 0, 0, /*all=*/true));
        d.bits = op.bits;
        batch_->PutCollection(op.dest_coll, d);
        batch_->DeleteCollection(op.coll);
        return Status::OK();
      }
      default:
        break;
    }

    SMR_ASSIGN_OR_RETURN(CollectionMeta c, Coll(op.coll));
    const uint64_t cid = c.cid;
    switch (op.code) {
      case C::kTouch:
        return GetOrCreate(cid, op.oid).status();
      case C::kWrite: {
        SMR_ASSIGN_OR_RETURN(Obj * obj, Get(cid, op.oid));
        write_hot_ = PredictHot(*obj);
        SMR_ASSIGN_OR_RETURN(Onode * o, GetOrCreate(cid, op.oid));
        const Status s = DoWrite(o, cid, op.oid, op.offset, op.write_data(), nullptr, op_crcs_);
        write_hot_ = false;
        return s;
      }
      case C::kZero: {
        SMR_ASSIGN_OR_RETURN(Onode * o, GetOrCreate(cid, op.oid));
        DoZero(o, cid, op.oid, op.offset, op.length);
        return Status::OK();
      }
      case C::kTruncate: {
        SMR_ASSIGN_OR_RETURN(Obj * obj, Get(cid, op.oid));
        if (!obj->cur) return Status::OK();
        // Truncating to 0 an object that had data (write_full = truncate + write) ends
        // that data's life: a death, like a remove.
        if (op.offset == 0 && obj->cur->size > 0) NoteDeathOf(*obj);
        DoTruncate(&*obj->cur, cid, op.oid, op.offset);
        return Status::OK();
      }
      case C::kRemove: {
        SMR_ASSIGN_OR_RETURN(Obj * obj, Get(cid, op.oid));
        Destroy(obj);
        return Status::OK();
      }
      case C::kSetAttrs: {
        SMR_ASSIGN_OR_RETURN(Onode * o, GetExisting(cid, op.oid));
        for (const auto& [k, v] : op.kv) o->xattrs[k] = v;
        return Status::OK();
      }
      case C::kRmAttr: {
        SMR_ASSIGN_OR_RETURN(Onode * o, GetExisting(cid, op.oid));
        o->xattrs.erase(op.data);  // a missing attribute is tolerated (ENODATA)
        return Status::OK();
      }
      case C::kRmAttrs: {
        SMR_ASSIGN_OR_RETURN(Obj * obj, Get(cid, op.oid));
        if (obj->cur) obj->cur->xattrs.clear();
        return Status::OK();
      }
      case C::kClone: {
        SMR_ASSIGN_OR_RETURN(Onode * src, GetExisting(cid, op.oid));
        const Onode src_copy = *src;
        SMR_ASSIGN_OR_RETURN(std::string read, ReadData(src_copy, 0, src_copy.size));
        auto data = std::make_shared<const std::string>(std::move(read));
        SMR_ASSIGN_OR_RETURN(Obj * dst, Get(cid, op.dest_oid));
        Destroy(dst);
        SMR_ASSIGN_OR_RETURN(Onode * d, GetOrCreate(cid, op.dest_oid));
        SMR_RETURN_IF_ERROR(DoWrite(d, cid, op.dest_oid, 0, *data, data));
        d->size = src_copy.size;
        d->xattrs = src_copy.xattrs;
        d->alloc_hint_flags = src_copy.alloc_hint_flags;
        d->expected_object_size = src_copy.expected_object_size;
        d->expected_write_size = src_copy.expected_write_size;
        if (src_copy.has_omap) {
          d->has_omap = true;
          SMR_RETURN_IF_ERROR(CopyOmap(src_copy.nid, d->nid));
        }
        if (d->data_inline) d->inline_data.resize(d->size, '\0');
        return Status::OK();
      }
      case C::kCloneRange: {
        SMR_ASSIGN_OR_RETURN(Onode * src, GetExisting(cid, op.oid));
        const Onode src_copy = *src;
        SMR_ASSIGN_OR_RETURN(std::string read, ReadData(src_copy, op.offset, op.length));
        auto data = std::make_shared<const std::string>(std::move(read));
        SMR_ASSIGN_OR_RETURN(Onode * d, GetOrCreate(cid, op.dest_oid));
        // Bytes of the range past the source's end are a hole in the destination.
        DoZero(d, cid, op.dest_oid, op.dest_offset, op.length);
        return DoWrite(d, cid, op.dest_oid, op.dest_offset, *data, data);
      }
      case C::kCollMoveRename: {
        SMR_ASSIGN_OR_RETURN(CollectionMeta dc, Coll(op.dest_coll));
        SMR_ASSIGN_OR_RETURN(Obj * src, Get(cid, op.oid));
        if (!src->cur) return Status::OK();  // Ceph tolerates a missing source
        SMR_RETURN_IF_ERROR(op.dest_oid.Validate());
        SMR_ASSIGN_OR_RETURN(Obj * dst, Get(dc.cid, op.dest_oid));
        if (dst->cur) {
          return Status::AlreadyExists("destination " + op.dest_coll + "/" +
                                       op.dest_oid.ToString() + " exists");
        }
        return Move(cid, op.oid, dc.cid, op.dest_oid);
      }
      case C::kOmapClear: {
        SMR_ASSIGN_OR_RETURN(Obj * obj, Get(cid, op.oid));
        if (obj->cur && obj->cur->has_omap) {
          batch_->ClearOmap(obj->cur->nid);
          obj->cur->has_omap = false;
        }
        return Status::OK();
      }
      case C::kOmapSetKeys: {
        SMR_ASSIGN_OR_RETURN(Onode * o, GetExisting(cid, op.oid));
        o->has_omap = true;
        for (const auto& [k, v] : op.kv) batch_->PutOmapValue(o->nid, k, v);
        return Status::OK();
      }
      case C::kOmapRmKeys: {
        SMR_ASSIGN_OR_RETURN(Onode * o, GetExisting(cid, op.oid));
        for (const auto& k : op.keys) batch_->DeleteOmapValue(o->nid, k);
        return Status::OK();
      }
      case C::kOmapRmKeyRange: {
        SMR_ASSIGN_OR_RETURN(Onode * o, GetExisting(cid, op.oid));
        batch_->DeleteOmapRange(o->nid, op.data, op.data2);
        return Status::OK();
      }
      case C::kOmapSetHeader: {
        SMR_ASSIGN_OR_RETURN(Onode * o, GetExisting(cid, op.oid));
        o->has_omap = true;
        batch_->PutOmapHeader(o->nid, op.data);
        return Status::OK();
      }
      case C::kSetAllocHint: {
        // BlueStore: a hint for a missing object is a tolerated ENOENT (it is not created).
        SMR_ASSIGN_OR_RETURN(Obj * obj, Get(cid, op.oid));
        if (!obj->cur) return Status::OK();
        obj->cur->expected_object_size = op.offset;
        obj->cur->expected_write_size = op.length;
        obj->cur->alloc_hint_flags = op.bits;
        return Status::OK();
      }
      default:
        return Status::NotSupported(std::string("op ") + OpName(op.code));
    }
  }

  // Allocates the still-referenced pending records, patches extents, accounts live bytes
  // and writes the final onodes.
  Status Finish() {
    for (PendingRecord& r : pending_) r.referenced = false;
    for (auto& [key, obj] : objs_) {
      if (!obj.cur) continue;
      for (const auto& [off, e] : obj.cur->extents) {
        if (IsPending(e)) pending_[e.payload_offset - kPendingBase].referenced = true;
      }
    }
    const uint32_t pack_max = ctx_.options->pack_max;
    for (PendingRecord& r : pending_) {
      if (!r.referenced) continue;
      if (r.header.payload_len <= pack_max) {
        PackEntry entry;
        entry.payload_len = r.header.payload_len;
        entry.payload_crc = r.header.payload_crc;
        entry.seq = seq_;
        entry.collection_id = r.header.collection_id;
        entry.nid = r.header.nid;
        entry.logical_offset = r.header.logical_offset;
        PackedAt at;
        SMR_RETURN_IF_ERROR(PlacePacked(ctx_.zones, seq_, r.stream, entry, r.payload, r.owner,
                                        writes_, &at));
        r.where.drive = at.drive;
        r.payload_at = at.payload_offset;
        r.in_pack = true;
        r.pack_offset = at.pack_offset;
      } else {
        SMR_RETURN_IF_ERROR(PlaceRecord(ctx_.zones, seq_, r.stream, r.header, r.payload, r.owner,
                                        writes_, &r.where));
        r.payload_at = r.where.offset + kBlock;
      }
      r.allocated = true;
    }
    for (auto& [key, obj] : objs_) {
      if (!obj.cur) continue;
      for (auto& [off, e] : obj.cur->extents) {
        if (!IsPending(e)) continue;
        const PendingRecord& r = pending_[e.payload_offset - kPendingBase];
        e.drive = r.where.drive;
        e.payload_offset = r.payload_at;
        e.in_pack = r.in_pack;
        e.pack_offset = r.pack_offset;
      }
    }
    // Live bytes: final extents count, original extents no longer do.
    const uint64_t now_ns = NowNs();
    for (auto& [key, obj] : objs_) {
      if (!Changed(obj)) continue;
      auto account = [&](const Onode& o, int sign) {
        for (const auto& [off, e] : o.extents) {
          ZoneAddress z{e.drive, static_cast<uint32_t>(e.payload_offset /
                                                       ctx_.zone_size(e.drive))};
          writes_->live_delta[z] += sign * static_cast<int64_t>(e.length);
        }
      };
      if (obj.orig) account(*obj.orig, -1);
      auto inline_size = [](const std::optional<Onode>& o) -> int64_t {
        return o && o->data_inline ? static_cast<int64_t>(o->inline_data.size()) : 0;
      };
      writes_->inline_delta += inline_size(obj.cur) - inline_size(obj.orig);
      if (obj.cur) {
        obj.cur->mtime_ns = now_ns;
        account(*obj.cur, +1);
      }
    }
    FlushObjects();
    return Status::OK();
  }

  const PlanContext& ctx_;
  const uint64_t seq_;
  MetaStore::Batch* const batch_;
  GroupWrites* const writes_;
  std::map<Key, Obj> objs_;
  std::vector<PendingRecord> pending_;
  bool write_hot_ = false;  // the kWrite being planned goes to the user-hot stream
  const WriteCrcs* const crcs_;                        // the transaction's, or null
  const std::vector<uint32_t>* op_crcs_ = nullptr;  // the op being planned's, or null
};


}  // namespace

Result<GroupWrites::ZoneBuffer*> ZoneBufferAt(GroupWrites* writes, const Allocation& a) {
  writes->ClosePacksIn(a.drive, a.zone);
  GroupWrites::ZoneBuffer& buf = writes->zones[{a.drive, a.zone}];
  if (buf.length == 0) {
    buf.drive = a.drive;
    buf.zone = a.zone;
    buf.offset = a.offset;
    buf.order = writes->zones_created++;
  } else if (buf.offset + buf.length != a.offset) {
    return Status::IOError("internal: non-contiguous allocation in zone " +
                           std::to_string(a.zone));
  }
  return &buf;
}

void GroupWrites::ClosePack(StreamId stream) {
  auto it = packs.find(stream);
  if (it == packs.end()) return;
  OpenPack& p = it->second;
  ZoneBuffer& buf = zones[{p.at.drive, p.at.zone}];
  const uint64_t pad = p.bytes - kBlock - p.header.payload_len;
  if (pad > 0) {
    auto zeros = std::make_unique<std::string>(pad, '\0');
    buf.pieces.push_back(*zeros);
    buf.owned.push_back(std::move(zeros));
  }
  p.header.payload_crc = p.crc;
  EncodeRecordHeader(p.header, p.header_block->data());
  pack_records++;
  pack_entries += p.header.pack.size();
  pack_payload_bytes += p.header.payload_len;
  pack_record_bytes += p.bytes;
  packs.erase(it);
}

void GroupWrites::ClosePacksIn(uint16_t drive, uint32_t zone) {
  std::vector<StreamId> in_zone;
  for (const auto& [stream, p] : packs) {
    if (p.at.drive == drive && p.at.zone == zone) in_zone.push_back(stream);
  }
  for (StreamId s : in_zone) ClosePack(s);
}

void GroupWrites::CloseAllPacks() {
  while (!packs.empty()) ClosePack(packs.begin()->first);
}

Status PlacePacked(ZoneManager* zones, uint64_t seq, StreamId stream, PackEntry entry,
                   std::string_view payload, std::shared_ptr<const std::string> owner,
                   GroupWrites* writes, PackedAt* where) {
  const auto n = static_cast<uint32_t>(payload.size());
  if (n == 0 || n > kMaxPackPayload) {
    return Status::InvalidArgument("internal: a pack entry of " + std::to_string(n) + " bytes");
  }
  auto add = [&](GroupWrites::OpenPack* p, uint64_t new_bytes) {
    GroupWrites::ZoneBuffer& buf = writes->zones[{p->at.drive, p->at.zone}];
    entry.offset = p->header.payload_len;
    p->header.pack.push_back(entry);
    p->header.payload_len += n;
    p->header.seq = std::max(p->header.seq, entry.seq);
    p->header.logical_offset = p->header.pack.size();
    p->crc = crc32c::Extend(p->crc, payload.data(), n);
    buf.pieces.push_back(payload);
    buf.length += new_bytes - p->bytes;
    where->drive = p->at.drive;
    where->payload_offset = p->at.offset + kBlock + entry.offset;
    where->pack_offset = entry.offset;
    where->allocated = new_bytes - p->bytes;
    p->bytes = new_bytes;
    writes->payloads[{where->drive, where->payload_offset}] = payload;
    if (owner) writes->keep_alive.push_back(std::move(owner));
  };
  if (auto it = writes->packs.find(stream); it != writes->packs.end()) {
    GroupWrites::OpenPack& p = it->second;
    if (p.header.pack.size() < recfmt::kMaxPackEntries &&
        uint64_t{p.header.payload_len} + n <= kMaxPackPayload) {
      const uint64_t new_bytes = RecordBytes(uint64_t{p.header.payload_len} + n);
      RecordHeader grown = p.header;
      grown.payload_len += n;
      grown.seq = std::max(grown.seq, entry.seq);
      grown.logical_offset = grown.pack.size() + 1;
      if (zones->TryExtend(p.at, p.bytes, new_bytes - p.bytes, FooterEntryFor(0, grown))) {
        add(&p, new_bytes);
        return Status::OK();
      }
    }
    writes->ClosePack(stream);
  }
  GroupWrites::OpenPack p;
  p.header.type = RecordType::kPack;
  p.header.seq = entry.seq;
  p.header.payload_len = n;
  p.header.logical_offset = 1;
  auto a = zones->Allocate(stream, RecordBytes(n), FooterEntryFor(0, p.header), seq,
                                 &writes->seals);
  if (!a.ok()) return a.status();
  SMR_ASSIGN_OR_RETURN(GroupWrites::ZoneBuffer * buf, ZoneBufferAt(writes, *a));
  p.header.payload_len = 0;
  p.header.logical_offset = 0;
  p.at = *a;
  p.bytes = kBlock;
  auto block = std::make_unique<std::string>(kBlock, '\0');
  p.header_block = block.get();
  buf->pieces.push_back(*block);
  buf->owned.push_back(std::move(block));
  buf->length += kBlock;
  GroupWrites::OpenPack& open = writes->packs[stream] = std::move(p);
  add(&open, RecordBytes(n));
  where->allocated += kBlock;
  return Status::OK();
}

Status PlaceRecord(ZoneManager* zones, uint64_t seq, StreamId stream, const RecordHeader& h,
                   std::string_view payload, std::shared_ptr<const std::string> owner,
                   GroupWrites* writes, Allocation* where) {
  // With separate_streams off the zone manager gives every stream the same open zone; the
  // stream still tells it whether the GC reserve may be used.
  const uint64_t bytes = RecordBytes(payload.size());
  auto a = zones->Allocate(stream, bytes, FooterEntryFor(0, h), seq, &writes->seals);
  if (!a.ok()) return a.status();
  SMR_ASSIGN_OR_RETURN(GroupWrites::ZoneBuffer * buf, ZoneBufferAt(writes, *a));
  GroupWrites::AppendRecordPieces(h, payload, buf);
  writes->payloads[{a->drive, a->offset + kBlock}] = payload;
  if (owner) writes->keep_alive.push_back(std::move(owner));
  *where = *a;
  return Status::OK();
}

WriteCrcs ComputeWriteCrcs(const Transaction& txn, uint32_t chunk) {
  WriteCrcs out;
  out.chunk = chunk;
  out.per_op.resize(txn.ops().size());
  if (chunk == 0) return out;
  for (size_t i = 0; i < txn.ops().size(); ++i) {
    const Transaction::Op& op = txn.ops()[i];
    if (op.code != Transaction::OpCode::kWrite) continue;
    const std::string_view data = op.write_data();
    for (uint64_t at = 0; at < data.size(); at += chunk) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk, data.size() - at));
      out.per_op[i].push_back(crc32c::Value(data.data() + at, n));
    }
  }
  return out;
}

Status PlanTransaction(const PlanContext& ctx, const Transaction& txn, uint64_t seq,
                       MetaStore::Batch* batch, GroupWrites* writes, const WriteCrcs* crcs) {
  Planner planner(ctx, seq, batch, writes, crcs);
  return planner.Run(txn);
}

}  // namespace smr
