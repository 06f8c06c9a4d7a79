// The Store's read path (contract in store.h, "Reads"): extents read from the zones and
// checked against their crc (a mismatch is kCorruption naming the object, never data),
// objects, attributes, omap and collections read from the metadata store. Reads run on the
// caller's thread, concurrently with commits and GC; a read that has found its extents
// holds a ReadFence::Reader (store/read_fence.h), so GC does not reset a zone under it (store/gc_worker.cc).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <future>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/post.hpp>

#include "common/crc32c.h"
#include "format/record_format.h"
#include "store/store.h"
#include "common/engine_log.h"
#include "store/store_internal.h"

namespace smr {
namespace {

// Records are aligned to the record format's block (format/record_format.h).
constexpr uint64_t kBlock = recfmt::kBlockSize;

// Gathered reads (rotational drives): whole record payloads on one drive with at most
// kGatherGap bytes between them (the records' headers) are read as one device read of at
// most kGatherMax bytes.
constexpr uint64_t kGatherGap = 64 << 10;
constexpr uint64_t kGatherMax = 16 << 20;

}  // namespace

void StoreCore::CountDataRead() {
  MutexLock lock(&counters_mu);
  counters.data_reads++;
  counters.data_read_records++;
}

void StoreCore::CountCrcError() {
  MutexLock lock(&counters_mu);
  counters.crc_errors++;
}

namespace {

// Whether a read of [from, from + len) of extent `e` takes the whole record payload straight
// into the caller's buffer: the caller wants exactly that payload and it is block-sized.
bool ReadsWholePayload(const Extent& e, uint64_t from, uint64_t len) {
  return from == 0 && e.payload_skip == 0 && len == e.payload_len &&
         e.payload_len % kBlock == 0 && e.payload_offset % kBlock == 0;
}

}  // namespace

Status Store::Impl::CrcMismatch(const Extent& e) {
  CountCrcError();
  Log(LogLevel::kError, "crc mismatch reading drive %u offset %llu (%u bytes): returning "
               "EIO",
               e.drive, static_cast<unsigned long long>(e.payload_offset), e.payload_len);
  return Status::Corruption(std::string("checksum mismatch in the ") +
                            (e.in_pack ? "pack entry of the record" : "record") + " at drive " +
                            std::to_string(e.drive) + " offset " +
                            std::to_string(e.record_offset()));
}

Status Store::Impl::ReadExtent(const Extent& e, uint64_t from, uint64_t len, char* dst,
                               const GroupWrites* pending) {
  if (pending != nullptr) {
    auto it = pending->payloads.find({e.drive, e.payload_offset});
    if (it != pending->payloads.end()) {
      std::memcpy(dst, it->second.data() + e.payload_skip + from, len);
      return Status::OK();
    }
  }
  if (e.drive >= devices.size()) return Status::Corruption("extent on a drive that does not exist");
  // The whole record payload (a pack entry's: its bytes), from and to block boundaries, is
  // read and checked against its crc. Fast path: the caller wants exactly that payload and
  // it is block-aligned and block-sized: read it straight into the caller's buffer and
  // check it there.
  const uint64_t lead = e.payload_offset % kBlock;  // 0 but for pack entries
  const uint64_t padded = (lead + e.payload_len + kBlock - 1) / kBlock * kBlock;
  const bool direct = ReadsWholePayload(e, from, len);
  std::string bounce;
  char* buf = dst;
  if (!direct) {
    bounce.resize(padded);
    buf = bounce.data();
  }
  SMR_RETURN_IF_ERROR(devices[e.drive]->Read(e.payload_offset - lead, buf, padded));
  CountDataRead();
  if (crc32c::Value(buf + lead, e.payload_len) != e.payload_crc) return CrcMismatch(e);
  if (!direct) std::memcpy(dst, buf + lead + e.payload_skip + from, len);
  return Status::OK();
}

Status Store::Impl::ReadOnode(const Onode& o, uint64_t offset, uint64_t len, std::string* out,
                              const GroupWrites* pending) {
  out->clear();
  if (offset >= o.size) return Status::OK();
  len = std::min(len, o.size - offset);
  out->resize(len);
  return ReadOnodeInto(o, offset, len, out->data(), pending);
}

Status Store::Impl::ReadOnodeInto(const Onode& o, uint64_t offset, uint64_t len, char* dst,
                                  const GroupWrites* pending) {
  if (len == 0) return Status::OK();
  if (o.data_inline) {
    const uint64_t have =
        offset < o.inline_data.size() ? std::min<uint64_t>(len, o.inline_data.size() - offset) : 0;
    if (have > 0) std::memcpy(dst, o.inline_data.data() + offset, have);
    std::memset(dst + have, 0, len - have);
    return Status::OK();
  }
  // A whole record read into dst, but for the last one, is checked on crc_pool while the
  // next is read (when that thread is free): the check costs the reader no time. Every
  // check ends before this returns, error or not (they read dst).
  OnodeRead r{o, offset, len, dst, pending, {}, {nullptr, &std::free}};
  uint64_t filled = offset;  // [offset, filled) is written in dst
  auto it = o.extents.upper_bound(offset);
  if (it != o.extents.begin()) --it;
  for (; it != o.extents.end() && it->first < offset + len; ++it) {
    const Extent& e = it->second;
    if (e.end() <= offset) continue;
    const uint64_t from = std::max(offset, e.logical_offset);
    const uint64_t to = std::min(offset + len, e.end());
    if (from > filled) std::memset(dst + (filled - offset), 0, from - filled);  // a hole
    char* const at = dst + (from - offset);
    const auto next = std::next(it);
    const bool more = next != o.extents.end() && next->first < offset + len;
    if (more && ReadWantsWhole(r, e) && devices[e.drive]->info().rotational) {
      auto gathered = ReadGathered(&r, &it, at, &filled);
      if (!gathered.ok()) return EndCrcChecks(&r, gathered.status());
      if (*gathered) continue;
    }
    Status s;
    if (more && pending == nullptr && crc_pool != nullptr && e.drive < devices.size() &&
        ReadsWholePayload(e, from - e.logical_offset, to - from) &&
        crc_jobs.load(std::memory_order_relaxed) < kMaxCrcJobs) {
      s = devices[e.drive]->Read(e.payload_offset, at, e.payload_len);
      if (s.ok()) {
        CountDataRead();
        PostCrcCheck(&r, &e, at);
      }
    } else {
      s = ReadExtent(e, from - e.logical_offset, to - from, at, pending);
    }
    if (!s.ok()) return EndCrcChecks(&r, s);
    filled = std::max(filled, to);
  }
  if (filled < offset + len) std::memset(dst + (filled - offset), 0, offset + len - filled);
  return EndCrcChecks(&r, Status::OK());
}

Status Store::Impl::EndCrcChecks(OnodeRead* r, Status s) {
  for (OnodeRead::Check& c : r->checks) {
    if (!c.crc_ok.get() && s.ok()) s = CrcMismatch(*c.extent);
  }
  r->checks.clear();
  return s;
}

bool Store::Impl::ReadWantsWhole(const OnodeRead& r, const Extent& x) const {
  const uint64_t a = std::max(r.offset, x.logical_offset);
  const uint64_t b = std::min(r.offset + r.len, x.end());
  return r.pending == nullptr && x.drive < devices.size() && !x.in_pack &&
         a == x.logical_offset && x.payload_skip == 0 && b - a == x.payload_len &&
         x.payload_offset % kBlock == 0;
}

void Store::Impl::PostCrcCheck(OnodeRead* r, const Extent* x, char* p) {
  auto task = std::make_shared<std::packaged_task<bool()>>([this, x, p] {
    const bool ok = crc32c::Value(p, x->payload_len) == x->payload_crc;
    crc_jobs.fetch_sub(1, std::memory_order_relaxed);
    return ok;
  });
  r->checks.push_back({x, task->get_future()});
  crc_jobs.fetch_add(1, std::memory_order_relaxed);
  boost::asio::post(*crc_pool, [task] { (*task)(); });
}

Result<bool> Store::Impl::ReadGathered(OnodeRead* r, OnodeRead::ExtentIt* it_io, char* at,
                                       uint64_t* filled) {
  const uint64_t offset = r->offset;
  const uint64_t len = r->len;
  char* const dst = r->dst;
  const Onode& o = r->o;
  auto& it = *it_io;
  const Extent& e = it->second;
  const auto next = std::next(it);
  auto padded = [](const Extent& x) { return (uint64_t{x.payload_len} + kBlock - 1) / kBlock * kBlock; };
  auto scratch_ok = [r] {  // allocated on first use, kGatherGap bytes, block-aligned
    if (!r->scratch) r->scratch.reset(static_cast<char*>(std::aligned_alloc(kBlock, kGatherGap)));
    return r->scratch != nullptr;
  };
  // A drive with a head: the records that follow this one closely on the drive (an
  // object written in one group) are read with it in one device read, payloads straight
  // into dst, the headers between them into scratch; one positioning, not one each.
  // A payload's padding to its block and the next record's header: one gap piece.
  std::vector<ZonedDevice::ReadPiece> pieces{{at, e.payload_len}};
  std::vector<const Extent*> run{&e};
  uint64_t end = e.payload_offset + e.payload_len;  // device end of the pieces so far
  auto last = it;
  for (auto n = next; n != o.extents.end() && n->first < offset + len; ++n) {
    const Extent& x = n->second;
    if (x.drive != e.drive || !ReadWantsWhole(*r, x) || x.logical_offset != run.back()->end() ||
        x.payload_offset < end || x.payload_offset - end > kGatherGap ||
        x.payload_offset + padded(x) - e.payload_offset > kGatherMax) {
      break;
    }
    if (x.payload_offset > end) {
      if (!scratch_ok()) return Status::IOError("read: out of memory for a gather");
      pieces.push_back({r->scratch.get(), x.payload_offset - end});  // gaps share it
    }
    pieces.push_back({dst + (x.logical_offset - offset), x.payload_len});
    run.push_back(&x);
    end = x.payload_offset + x.payload_len;
    last = n;
  }
  // The device read ends at a block boundary: the last payload's padding.
  if (const uint64_t pad = run.back()->payload_offset + padded(*run.back()) - end; pad > 0) {
    if (!scratch_ok()) return Status::IOError("read: out of memory for a gather");
    pieces.push_back({r->scratch.get(), pad});
  }
  if (run.size() <= 1) return false;
  Status s = devices[e.drive]->ReadV(e.payload_offset, pieces);
  if (!s.ok()) return s;
  {
    MutexLock lock(&counters_mu);
    counters.data_reads++;
    counters.data_read_records += run.size();
  }
  // Every record checked: on crc_pool while it has room, else here.
  for (const Extent* x : run) {
    char* const p = dst + (x->logical_offset - offset);
    if (crc_pool != nullptr && crc_jobs.load(std::memory_order_relaxed) < kMaxCrcJobs) {
      PostCrcCheck(r, x, p);
    } else if (crc32c::Value(p, x->payload_len) != x->payload_crc) {
      return CrcMismatch(*x);
    }
  }
  *filled = std::max(*filled, last->second.end());
  it = last;
  return true;
}

namespace {

Result<CollectionMeta> GetColl(MetaStore* meta, const std::string& coll) {
  SMR_ASSIGN_OR_RETURN(auto c, meta->GetCollection(nullptr, coll));
  if (!c) return Status::NotFound("collection " + coll + " does not exist");
  return *c;
}

Result<Onode> GetObj(MetaStore* meta, const std::string& coll, const ObjectId& oid) {
  SMR_ASSIGN_OR_RETURN(CollectionMeta c, GetColl(meta, coll));
  SMR_ASSIGN_OR_RETURN(auto o, meta->GetOnode(nullptr, c.cid, oid));
  if (!o) return Status::NotFound("object " + coll + "/" + oid.ToString() + " does not exist");
  return *o;
}

}  // namespace

Result<std::string> Store::Read(const std::string& coll, const ObjectId& oid, uint64_t offset,
                                uint64_t len) {
  std::string out;
  SMR_RETURN_IF_ERROR(ReadInto(coll, oid, offset, len, [&out](uint64_t n) {
                        out.resize(n);
                        return out.data();
                      }).status());
  return out;
}

Result<uint64_t> Store::ReadInto(const std::string& coll, const ObjectId& oid, uint64_t offset,
                                 uint64_t len, const ReadBuffer& buffer) {
  ReadFence::Reader fence(&impl_->read_fence);
  SMR_ASSIGN_OR_RETURN(Onode o, GetObj(impl_->meta.get(), coll, oid));
  if (len == 0) len = o.size > offset ? o.size - offset : 0;
  const uint64_t n = offset < o.size ? std::min(len, o.size - offset) : 0;
  char* dst = buffer(n);
  if (dst == nullptr && n > 0) {
    return Status::InvalidArgument("no buffer for a read of " + std::to_string(n) +
                                   " bytes of " + coll + "/" + oid.ToString());
  }
  // A media error or a crc mismatch names the object (the device error names the zone).
  Status st = impl_->ReadOnodeInto(o, offset, n, dst, nullptr);
  if (!st.ok()) return st.WithContext(coll + "/" + oid.ToString());
  MutexLock lock(&impl_->counters_mu);
  impl_->counters.bytes_read += n;
  return n;
}

Result<ObjectStat> Store::Stat(const std::string& coll, const ObjectId& oid) {
  SMR_ASSIGN_OR_RETURN(Onode o, GetObj(impl_->meta.get(), coll, oid));
  ObjectStat st;
  st.size = o.size;
  st.nid = o.nid;
  st.data_inline = o.data_inline;
  st.extents = o.extents.size();
  return st;
}

Result<bool> Store::Exists(const std::string& coll, const ObjectId& oid) {
  auto o = GetObj(impl_->meta.get(), coll, oid);
  if (o.ok()) return true;
  if (o.status().IsNotFound()) return false;
  return o.status();
}

Result<std::string> Store::GetAttr(const std::string& coll, const ObjectId& oid,
                                   const std::string& name) {
  SMR_ASSIGN_OR_RETURN(Onode o, GetObj(impl_->meta.get(), coll, oid));
  auto it = o.xattrs.find(name);
  if (it == o.xattrs.end()) return Status::NoData("no attribute " + name);
  return it->second;
}

Result<std::map<std::string, std::string>> Store::GetAttrs(const std::string& coll,
                                                           const ObjectId& oid) {
  SMR_ASSIGN_OR_RETURN(Onode o, GetObj(impl_->meta.get(), coll, oid));
  return o.xattrs;
}

Result<std::map<uint64_t, uint64_t>> Store::Fiemap(const std::string& coll, const ObjectId& oid,
                                                   uint64_t offset, uint64_t len) {
  SMR_ASSIGN_OR_RETURN(Onode o, GetObj(impl_->meta.get(), coll, oid));
  std::map<uint64_t, uint64_t> out;
  if (offset >= o.size) return out;
  const uint64_t end = len == 0 ? o.size : std::min(o.size, offset + len);
  if (o.data_inline) {
    out[offset] = end - offset;
    return out;
  }
  for (const auto& [off, e] : o.extents) {
    const uint64_t a = std::max(offset, e.logical_offset), b = std::min(end, e.end());
    if (a >= b) continue;
    // Merge with the previous range when contiguous.
    if (!out.empty()) {
      auto last = std::prev(out.end());
      if (last->first + last->second == a) {
        last->second += b - a;
        continue;
      }
    }
    out[a] = b - a;
  }
  return out;
}

Result<std::vector<std::string>> Store::ListCollections() {
  SMR_ASSIGN_OR_RETURN(auto all, impl_->meta->ListCollections(nullptr));
  std::vector<std::string> out;
  for (const auto& [name, meta] : all) out.push_back(name);
  return out;
}

Result<bool> Store::CollectionExists(const std::string& coll) {
  auto c = GetColl(impl_->meta.get(), coll);
  if (c.ok()) return true;
  if (c.status().IsNotFound()) return false;
  return c.status();
}

Result<bool> Store::CollectionEmpty(const std::string& coll) {
  SMR_ASSIGN_OR_RETURN(CollectionMeta c, GetColl(impl_->meta.get(), coll));
  return impl_->meta->CollectionEmpty(nullptr, c.cid);
}

Result<uint32_t> Store::CollectionBits(const std::string& coll) {
  SMR_ASSIGN_OR_RETURN(CollectionMeta c, GetColl(impl_->meta.get(), coll));
  return c.bits;
}

Status Store::ListObjects(const std::string& coll, const ObjectId& start, const ObjectId& end,
                          size_t max, std::vector<ObjectId>* out, ObjectId* next) {
  SMR_ASSIGN_OR_RETURN(CollectionMeta c, GetColl(impl_->meta.get(), coll));
  return impl_->meta->ListObjects(nullptr, c.cid, start, end, max, out, next);
}

Result<std::string> Store::GetOmapHeader(const std::string& coll, const ObjectId& oid) {
  SMR_ASSIGN_OR_RETURN(Onode o, GetObj(impl_->meta.get(), coll, oid));
  SMR_ASSIGN_OR_RETURN(auto h, impl_->meta->GetOmapHeader(nullptr, o.nid));
  return h.value_or(std::string());
}

Result<std::vector<std::pair<std::string, std::string>>> Store::ListOmap(
    const std::string& coll, const ObjectId& oid, const std::string* after, size_t max) {
  SMR_ASSIGN_OR_RETURN(Onode o, GetObj(impl_->meta.get(), coll, oid));
  std::vector<std::pair<std::string, std::string>> out;
  if (o.has_omap) SMR_RETURN_IF_ERROR(impl_->meta->ListOmap(nullptr, o.nid, after, max, &out));
  return out;
}

Result<std::map<std::string, std::string>> Store::GetOmapValues(
    const std::string& coll, const ObjectId& oid, const std::set<std::string>& keys) {
  SMR_ASSIGN_OR_RETURN(Onode o, GetObj(impl_->meta.get(), coll, oid));
  std::map<std::string, std::string> out;
  if (!o.has_omap) return out;
  for (const std::string& k : keys) {
    SMR_ASSIGN_OR_RETURN(auto v, impl_->meta->GetOmapValue(nullptr, o.nid, k));
    if (v) out[k] = *v;
  }
  return out;
}

}  // namespace smr
