// SMRStore: the Ceph ObjectStore adapter (see SMRStore.h for the contract).
#include "objectstore/SMRStore.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <deque>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "common/admin_socket.h"
#include "common/perf_counters.h"
#include "objectstore/ceph_log.h"
#include "objectstore/ceph_types.h"
#include "objectstore/smrstore_internal.h"
#include "objectstore/smrstore_perf.h"
#include "objectstore/translate.h"
#include "store/store.h"
#include "store/transaction.h"

using smr::ceph_adapter::CephLogError;
using smr::ceph_adapter::CollName;
using smr::ceph_adapter::ToGhobject;
using smr::ceph_adapter::ToObjectId;
using smr::ceph_adapter::ObjectKey;
using smr::ceph_adapter::ToString;
using smr::ceph_adapter::Touched;
using smr::ceph_adapter::Translate;

namespace {

constexpr const char* kEngineSubdir = "/smrstore";
constexpr const char* kDevicesKey = "smrstore_devices";

int Errno(const smr::Status& s) { return s.ok() ? 0 : -s.errno_value(); }

// The error policy (smrstore_settings.h, on_transaction_error = abort): the message goes to
// the OSD log, then the process aborts as BlueStore's ceph_abort does; Ceph's fatal-signal
// handler dumps the recent log entries, this one included.
[[noreturn]] void AbortOnError(CephContext* cct, const std::string& what) {
  smr::ceph_adapter::CephLogError(
      cct, what + " -- aborting (on_transaction_error = abort: Ceph ignores errors passed "
                  "to commit callbacks; the OSD's peers recover its PGs)");
  std::abort();
}

constexpr const char* kSettingsFile = "smrstore.conf";

ceph::buffer::list ToBl(const std::string& s) {
  ceph::buffer::list bl;
  bl.append(s.data(), s.size());
  return bl;
}

ceph::buffer::ptr ToPtr(const std::string& s) {
  ceph::buffer::ptr p(static_cast<unsigned>(s.size()));
  if (!s.empty()) std::memcpy(p.c_str(), s.data(), s.size());
  return p;
}

// Splits "a b,c" into specs.
std::vector<std::string> SplitSpecs(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',' || c == ' ' || c == '\n' || c == '\t') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Carries the engine Status of a transaction into Contexts that take an int.
class C_WithResult : public Context {
 public:
  C_WithResult(Context* c, int r) : c_(c), r_(r) {}

 protected:
  void finish(int) override { c_->complete(r_); }

 private:
  Context* c_;
  int r_;
};

}  // namespace

namespace {

SMRCollection* Coll(ObjectStore::CollectionHandle& ch) {
  return static_cast<SMRCollection*>(ch.get());
}

// Waits until no queued transaction touches `oid` (or, for a listing, any object) of `c`.
void WaitReadable(SMRCollection* c, const std::string* oid_key) {
  smr::MutexUniqueLock l(&c->mu);
  while (c->pending_coll_ops > 0 ||
         (oid_key == nullptr ? !c->pending_objs.empty() : c->pending_objs.count(*oid_key) != 0)) {
    c->cv.Wait(&l);
  }
}

// The collection and object a read names, once queued transactions on that object have
// committed (read-after-queue).
struct ReadTarget {
  SMRCollection* c;
  smr::ObjectId o;
};
ReadTarget Readable(ObjectStore::CollectionHandle& ch, const ghobject_t& oid) {
  ReadTarget t{Coll(ch), ToObjectId(oid)};
  const std::string k = ObjectKey(t.o);
  WaitReadable(t.c, &k);
  return t;
}

}  // namespace

// --- Construction, lifecycle. ---

SMRStore::SMRStore(CephContext* cct, const std::string& path)
    : ObjectStore(cct, path), impl_(std::make_unique<Impl>()) {
  impl_->engine_dir = path + kEngineSubdir;
  // The engine's messages (a failed commit group, a checksum error, GC or conversion
  // failing) go into this daemon's log at Ceph's level for them (smr::LogLevel's values are
  // Ceph's: errors at -1, so ceph-osd.N.log always has them).
  impl_->previous_log_sink = smr::SetLogSink([cct](smr::LogLevel level, const std::string& text) {
    smr::ceph_adapter::CephLog(cct, static_cast<int>(level), text);
  });
}

SMRStore::~SMRStore() {
  if (impl_->engine) umount();
  smr::SetLogSink(std::move(impl_->previous_log_sink));
}

std::string SMRStore::get_type() { return "smrstore"; }

bool SMRStore::test_mount_in_use() {
  if (impl_->engine) return true;
  // A probe of the store's lock: opens nothing, writes nothing.
  auto in_use = smr::Store::InUse(impl_->engine_dir);
  if (!in_use.ok()) {
    // No store here (yet): nobody can be using it.
    if (!in_use.status().IsNotFound()) CephLogError(cct, "test_mount_in_use: " + in_use.status().ToString());
    return false;
  }
  return *in_use;
}

int SMRStore::mkfs() {
  std::string devices;
  const int r = read_meta(kDevicesKey, &devices);
  if (r < 0) {
    CephLogError(cct, "mkfs: no drives: write the device specs to " + path + "/" + kDevicesKey +
             " (e.g. \"zbd:/dev/sdb zbd:/dev/sdc\")");
    return -EINVAL;
  }
  const std::vector<std::string> specs = SplitSpecs(devices);
  if (specs.empty()) {
    CephLogError(cct, "mkfs: " + path + "/" + kDevicesKey + " names no drive");
    return -EINVAL;
  }
  auto settings = smr::ceph_adapter::LoadAdapterSettings(path + "/" + kSettingsFile);
  if (!settings.ok()) {
    CephLogError(cct, "mkfs: " + settings.status().ToString());
    return -EINVAL;
  }
  const smr::Status s = smr::Store::Mkfs(impl_->engine_dir, specs, settings->store);
  if (!s.ok()) {
    CephLogError(cct, "mkfs: " + s.ToString());
    return Errno(s);
  }
  if (int w = write_meta("type", "smrstore"); w < 0) return w;
  if (!impl_->fsid.is_zero()) {
    if (int w = write_meta("fsid", impl_->fsid.to_string()); w < 0) return w;
  }
  return 0;
}

int SMRStore::mount() {
  if (impl_->engine) return -EBUSY;
  const std::string settings_path = path + "/" + kSettingsFile;
  auto settings = smr::ceph_adapter::LoadAdapterSettings(settings_path);
  if (!settings.ok()) {
    CephLogError(cct, "mount: " + settings.status().ToString());
    return -EINVAL;
  }
  auto s = smr::Store::Open(impl_->engine_dir);
  if (!s.ok()) {
    CephLogError(cct, "mount " + impl_->engine_dir + ": " + s.status().ToString());
    return Errno(s.status());
  }
  if (const smr::Status k =
          smr::ceph_adapter::CheckMkfsKeys(*settings, (*s)->options(), settings_path);
      !k.ok()) {
    CephLogError(cct, "mount: " + k.ToString());
    return -EINVAL;
  }
  impl_->settings = *settings;
  impl_->cct = cct;
  impl_->engine = std::move(*s);
  std::string fsid;
  if (read_meta("fsid", &fsid) > 0) impl_->fsid.parse(fsid.c_str());
  impl_->finisher = std::make_unique<smr::ceph_adapter::Finisher>();
  if (cct != nullptr) {
    // The stats document names the daemon: "osd.N" inside an OSD (its whoami), else
    // "smrstore" (doc/stats-schema.md).
    std::string whoami;
    const std::string doc_name = read_meta("whoami", &whoami) > 0 ? "osd." + whoami : "smrstore";
    impl_->perf = std::make_unique<smr::ceph_adapter::PerfAndAdmin>(cct, impl_->engine.get(),
                                                                     doc_name);
  }
  return 0;
}

int SMRStore::umount() {
  if (!impl_->engine) return 0;
  impl_->perf.reset();  // unregisters counters and admin commands first
  const smr::Status s = impl_->engine->Close();  // waits for queued transactions
  impl_->finisher->Drain();
  impl_->finisher.reset();
  impl_->engine.reset();
  {
    smr::MutexLock l(&impl_->colls_mu);
    impl_->colls.clear();
  }
  if (!s.ok()) CephLogError(cct, "umount: " + s.ToString());
  return Errno(s);
}

int SMRStore::fsck(bool deep) {
  // On a mounted store, the running engine checks itself; otherwise a read-only mount (no
  // superblock update, no zone reconciliation, RocksDB opened read-only: nothing written),
  // which a running OSD's exclusive lock refuses with EBUSY.
  std::unique_ptr<smr::Store> ro;
  smr::Store* engine = impl_->engine.get();
  if (engine == nullptr) {
    auto s = smr::Store::Open(impl_->engine_dir, nullptr, /*read_only=*/true);
    if (!s.ok()) {
      CephLogError(cct, "fsck: mount " + impl_->engine_dir + " read-only: " + s.status().ToString());
      return Errno(s.status());
    }
    ro = std::move(*s);
    engine = ro.get();
  }
  auto r = engine->Fsck(deep, /*repair=*/false);
  if (ro) (void)ro->Close();  // read-only: nothing to flush
  if (!r.ok()) return Errno(r.status());
  for (const std::string& e : r->errors) CephLogError(cct, "fsck: " + e);
  return static_cast<int>(r->errors.size());
}

int SMRStore::mkjournal() { return 0; }
bool SMRStore::needs_journal() { return false; }
bool SMRStore::wants_journal() { return false; }
bool SMRStore::allows_journal() { return false; }
void SMRStore::set_fsid(uuid_d u) { impl_->fsid = u; }
uuid_d SMRStore::get_fsid() { return impl_->fsid; }

int SMRStore::get_devices(std::set<std::string>* ls) {
  std::string devices;
  if (read_meta(kDevicesKey, &devices) < 0) return -ENOENT;
  for (const std::string& spec : SplitSpecs(devices)) {
    // "zbd:/dev/sdb" -> "sdb" (a kernel device name, as BlueStore reports); emulated
    // drives are files and are not reported.
    if (spec.rfind("zbd:", 0) == 0) {
      std::string p = spec.substr(4);
      p = p.substr(0, p.find('?'));
      // ceph-volume smrstore writes stable names (/dev/disk/by-id/...): report the kernel
      // name they point to now.
      if (char* real = ::realpath(p.c_str(), nullptr)) {
        p = real;
        std::free(real);
      }
      const size_t slash = p.rfind('/');
      ls->insert(slash == std::string::npos ? p : p.substr(slash + 1));
    }
  }
  return 0;
}

void SMRStore::collect_metadata(std::map<std::string, std::string>* pm) {
  std::string devices;
  if (read_meta(kDevicesKey, &devices) >= 0) (*pm)["smrstore_devices"] = devices;
  (*pm)["smrstore_version"] = SMRSTORE_VERSION;
  (*pm)["smrstore_dir"] = impl_->engine_dir;
  if (impl_->engine) {
    const smr::StoreOptions& o = impl_->engine->options();
    (*pm)["smrstore_gc_policy"] = smr::VictimPolicyName(o.gc_policy);
    (*pm)["smrstore_on_transaction_error"] = impl_->settings.abort_on_error ? "abort" : "report";
    (*pm)["smrstore_drives"] = std::to_string(SplitSpecs(devices).size());
  }
}

std::string SMRStore::get_default_device_class() { return impl_->settings.device_class; }

// --- Space and statistics. ---

int SMRStore::statfs(store_statfs_t* buf, osd_alert_list_t* alerts) {
  if (!impl_->engine) return -EIO;
  const smr::StoreStatfs st = impl_->engine->Statfs();
  // As BlueStore reports allocator-free space: what users can still write, counting what
  // zone GC can give back (the GC reserve guarantees GC can always run), less the live
  // records' headers and the zone tails GC cannot give back (StoreStatfs::writable) — so
  // Ceph's full ratios stop writes before the store runs out. `total` is the data zones'
  // capacity and never changes; what is neither live nor available (the GC reserve zones,
  // zone tails too small for a record, headers) is internally reserved. RocksDB on flash
  // is internal metadata, outside `total`.
  const uint64_t total = st.total;
  const uint64_t available = std::min<uint64_t>(total, st.writable);
  const uint64_t live = st.allocated > st.reclaimable ? st.allocated - st.reclaimable : 0;
  const uint64_t used = std::min<uint64_t>(total - available, live);
  buf->reset();
  buf->total = total;
  buf->available = available;
  buf->allocated = static_cast<int64_t>(used);
  buf->internally_reserved = total - available - used;
  buf->data_stored = static_cast<int64_t>(st.stored);
  buf->internal_metadata = static_cast<int64_t>(st.meta_bytes);
  return 0;
}

int SMRStore::pool_statfs(uint64_t pool_id, store_statfs_t* buf, bool* per_pool_omap) {
  // The engine accounts space per store, not per pool (as MemStore and FileStore).
  *per_pool_omap = false;
  return -ENOTSUP;
}

objectstore_perf_stat_t SMRStore::get_cur_stats() {
  objectstore_perf_stat_t s;
  s.os_commit_latency_ns = impl_->last_commit_ns.load();
  s.os_apply_latency_ns = s.os_commit_latency_ns;  // readable when committed
  return s;
}

const PerfCounters* SMRStore::get_perf_counters() const {
  return impl_->perf ? impl_->perf->logger() : nullptr;
}

unsigned SMRStore::get_max_attr_name_length() { return 256; }

uint64_t SMRStore::estimate_objects_overhead(uint64_t num_objects) {
  // A zone-resident object costs one 4 KiB record header per record plus its onode
  // in RocksDB (a few hundred bytes).
  return num_objects * (4096 + 512);
}

int SMRStore::validate_hobject_key(const hobject_t& obj) const {
  const smr::Status s = ToObjectId(ghobject_t(obj)).Validate();
  return s.ok() ? 0 : -ENAMETOOLONG;
}

// --- Transactions. ---

int SMRStore::queue_transactions(CollectionHandle& ch, std::vector<Transaction>& tls,
                                 TrackedOpRef op, ThreadPool::TPHandle* handle) {
  if (!impl_->engine) return -EIO;
  SMRCollection* c = Coll(ch);
  Context* on_applied = nullptr;
  Context* on_commit = nullptr;
  Context* on_applied_sync = nullptr;
  Transaction::collect_contexts(tls, &on_applied, &on_commit, &on_applied_sync);

  smr::Transaction txn;
  Touched touched;
  std::string err;
  const int tr = Translate(tls, &txn, &touched, &err);
  if (tr < 0) {
    const std::string what = "queue_transactions on " + c->name + ": " + err;
    if (impl_->settings.abort_on_error) AbortOnError(cct, what);
    CephLogError(cct, what);
    for (Context* x : {on_applied_sync, on_applied, on_commit}) {
      if (x) x->complete(tr);
    }
    return tr;
  }

  // Backpressure (as BlueStore's throttle): at most settings.throttle_bytes of queued,
  // uncommitted transaction bytes; the OSD op thread waits here, telling its heartbeat it
  // is alive, so GC throttling never trips the op-thread timeout.
  uint64_t bytes = 0;
  for (Transaction& t : tls) bytes += t.get_num_bytes();
  {
    smr::MutexUniqueLock l(&impl_->throttle_mu);
    while (impl_->inflight_bytes > 0 &&
           impl_->inflight_bytes + bytes > impl_->settings.throttle_bytes) {
      impl_->throttle_cv.WaitFor(&l, std::chrono::seconds(1));
      ++impl_->throttle_waits;
      if (handle != nullptr) handle->reset_tp_timeout();
    }
    impl_->inflight_bytes += bytes;
  }

  // Register what must not be read until this commits.
  std::vector<boost::intrusive_ptr<SMRCollection>> handles;
  {
    for (const auto& [name, keys] : touched.objs) {
      auto h = name == c->name ? boost::intrusive_ptr<SMRCollection>(c) : impl_->Find(name);
      if (!h) continue;  // nobody holds a handle: nobody can read through one yet
      smr::MutexLock l(&h->mu);
      for (const std::string& k : keys) h->pending_objs.insert(k);
      handles.push_back(h);
    }
    for (const std::string& name : touched.colls) {
      auto h = name == c->name ? boost::intrusive_ptr<SMRCollection>(c) : impl_->Find(name);
      if (!h) continue;
      smr::MutexLock l(&h->mu);
      ++h->pending_coll_ops;
      handles.push_back(h);
    }
    smr::MutexLock l(&c->mu);
    ++c->pending_txns;
  }

  boost::intrusive_ptr<SMRCollection> self(c);
  const auto start = std::chrono::steady_clock::now();
  Impl* impl = impl_.get();
  impl_->engine->Submit(
      std::move(txn), [impl, self, touched = std::move(touched), handles = std::move(handles),
                       on_applied, on_commit, on_applied_sync, start,
                       bytes](const smr::Status& s) {
        const int r = Errno(s);
        if (!s.ok()) {
          const std::string what = "transaction on " + self->name + " failed: " + s.ToString();
          if (impl->settings.abort_on_error) AbortOnError(impl->cct, what);
          CephLogError(impl->cct, what);
        }
        {
          smr::MutexLock l(&impl->throttle_mu);
          impl->inflight_bytes -= bytes;
        }
        impl->throttle_cv.NotifyAll();
        
        impl->last_commit_ns = static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now() - start)
                .count());
        // Release readers first: the effects are visible now.
        for (const auto& h : handles) {
          smr::MutexLock l(&h->mu);
          auto it = touched.objs.find(h->name);
          if (it != touched.objs.end()) {
            for (const std::string& k : it->second) {
              auto p = h->pending_objs.find(k);
              if (p != h->pending_objs.end()) h->pending_objs.erase(p);
            }
          }
          if (touched.colls.count(h->name) && h->pending_coll_ops > 0) --h->pending_coll_ops;
          h->cv.NotifyAll();
        }
        if (on_applied_sync) on_applied_sync->complete(r);
        std::list<Context*> done;
        if (on_applied) done.push_back(r == 0 ? on_applied : new C_WithResult(on_applied, r));
        if (on_commit) done.push_back(r == 0 ? on_commit : new C_WithResult(on_commit, r));
        std::list<Context*> flushed;
        ContextQueue* q = nullptr;
        {
          smr::MutexLock l(&self->mu);
          if (--self->pending_txns == 0) flushed.swap(self->flush_waiters);
          q = self->commit_queue;
          self->cv.NotifyAll();
        }
        done.splice(done.end(), flushed);
        if (q != nullptr) {
          q->queue(done);
        } else {
          impl->finisher->Queue(done);
        }
      });
  return 0;
}

// Ceph's exists()/collection_exists()/open_collection() have no error return: a lookup
// that failed (not a "no": a metadata read error) is logged and answered as absent.
static bool Found(CephContext* cct, const smr::Result<bool>& r, const char* op) {
  if (r.ok()) return *r;
  CephLogError(cct, std::string(op) + ": lookup failed, answering 'absent': " + r.status().ToString());
  return false;
}

// --- Collections. ---

ObjectStore::CollectionHandle SMRStore::open_collection(const coll_t& cid) {
  if (!impl_->engine || !Found(cct, impl_->engine->CollectionExists(CollName(cid)), "open_collection")) {
    return CollectionHandle();
  }
  return impl_->Handle(cid, cct);
}

ObjectStore::CollectionHandle SMRStore::create_new_collection(const coll_t& cid) {
  // The collection itself is made by the OP_MKCOLL of the next transaction on this handle.
  return impl_->Handle(cid, cct);
}

void SMRStore::set_collection_commit_queue(const coll_t& cid, ContextQueue* commit_queue) {
  auto h = impl_->Find(CollName(cid));
  if (!h) return;
  smr::MutexLock l(&h->mu);
  h->commit_queue = commit_queue;
}

int SMRStore::set_collection_opts(CollectionHandle& c, const pool_opts_t& opts) {
  // Pool options (compression, csum type, ...) have no smrstore meaning: data records are
  // always crc32c-checksummed and never compressed.
  return 0;
}

int SMRStore::list_collections(std::vector<coll_t>& ls) {
  if (!impl_->engine) return -EIO;
  auto r = impl_->engine->ListCollections();
  if (!r.ok()) return Errno(r.status());
  for (const std::string& name : *r) {
    coll_t c;
    if (!c.parse(name)) {
      CephLogError(cct, "list_collections: '" + name + "' is not a coll_t name");
      return -EIO;
    }
    ls.push_back(c);
  }
  return 0;
}

bool SMRStore::collection_exists(const coll_t& c) {
  return impl_->engine && Found(cct, impl_->engine->CollectionExists(CollName(c)), "collection_exists");
}

int SMRStore::collection_empty(CollectionHandle& ch, bool* empty) {
  SMRCollection* c = Coll(ch);
  WaitReadable(c, nullptr);
  auto r = impl_->engine->CollectionEmpty(c->name);
  if (!r.ok()) return Errno(r.status());
  *empty = *r;
  return 0;
}

int SMRStore::collection_bits(CollectionHandle& ch) {
  SMRCollection* c = Coll(ch);
  WaitReadable(c, nullptr);
  auto r = impl_->engine->CollectionBits(c->name);
  if (!r.ok()) return Errno(r.status());
  return static_cast<int>(*r);
}

int SMRStore::collection_list(CollectionHandle& ch, const ghobject_t& start,
                              const ghobject_t& end, int max, std::vector<ghobject_t>* ls,
                              ghobject_t* next) {
  SMRCollection* c = Coll(ch);
  WaitReadable(c, nullptr);
  std::vector<smr::ObjectId> out;
  smr::ObjectId nx;
  // Ceph: at most `max` objects; max <= 0 lists none, *next is then the first object at or
  // after `start` (BlueStore's behaviour). The engine's 0 means "no limit", so ask for one.
  const size_t want = max > 0 ? static_cast<size_t>(max) : 1;
  const smr::Status s =
      impl_->engine->ListObjects(c->name, ToObjectId(start), ToObjectId(end), want, &out, &nx);
  if (s.ok() && max <= 0) {
    if (next != nullptr) *next = out.empty() ? ToGhobject(nx) : ToGhobject(out.front());
    return 0;
  }
  if (!s.ok()) return Errno(s);
  ls->reserve(ls->size() + out.size());
  for (const smr::ObjectId& o : out) ls->push_back(ToGhobject(o));
  if (next != nullptr) *next = ToGhobject(nx);
  return 0;
}

// --- Objects. ---

bool SMRStore::exists(CollectionHandle& ch, const ghobject_t& oid) {
  const auto [c, o] = Readable(ch, oid);
  return Found(cct, impl_->engine->Exists(c->name, o), "exists");
}

int SMRStore::stat(CollectionHandle& ch, const ghobject_t& oid, struct stat* st, bool allow_eio) {
  const auto [c, o] = Readable(ch, oid);
  auto r = impl_->engine->Stat(c->name, o);
  if (!r.ok()) return Errno(r.status());
  std::memset(st, 0, sizeof(*st));
  st->st_size = static_cast<off_t>(r->size);
  st->st_blksize = 4096;
  st->st_blocks = static_cast<blkcnt_t>((r->size + 511) / 512);
  st->st_nlink = 1;
  return 0;
}

int SMRStore::read(CollectionHandle& ch, const ghobject_t& oid, uint64_t offset, size_t len,
                   ceph::buffer::list& bl, uint32_t op_flags) {
  const auto [c, o] = Readable(ch, oid);
  // Ceph: len 0 reads to the end of the object; reads past the end return what exists.
  // The records are read straight into one page-aligned buffer::ptr that the bufferlist
  // then takes: no zero-fill, no copy.
  ceph::buffer::ptr bp;
  auto r = impl_->engine->ReadInto(c->name, o, offset, len, [&bp](uint64_t n) -> char* {
    if (n == 0 || n > static_cast<uint64_t>(std::numeric_limits<int>::max())) return nullptr;
    bp = ceph::buffer::ptr(ceph::buffer::create_page_aligned(static_cast<unsigned>(n)));
    return bp.c_str();
  });
  if (!r.ok()) {
    if (!r.status().IsNotFound()) {
      CephLogError(cct, "read " + c->name + " " + o.ToString() + " [" + std::to_string(offset) +
                            "~" + std::to_string(len) + "]: " + r.status().ToString());
    }
    return Errno(r.status());
  }
  if (*r > 0) bl.append(std::move(bp));
  return static_cast<int>(*r);
}

int SMRStore::fiemap(CollectionHandle& ch, const ghobject_t& oid, uint64_t offset, size_t len,
                     std::map<uint64_t, uint64_t>& destmap) {
  const auto [c, o] = Readable(ch, oid);
  auto r = impl_->engine->Fiemap(c->name, o, offset, len);
  if (!r.ok()) return Errno(r.status());
  destmap = std::move(*r);
  return 0;
}

int SMRStore::fiemap(CollectionHandle& ch, const ghobject_t& oid, uint64_t offset, size_t len,
                     ceph::buffer::list& bl) {
  std::map<uint64_t, uint64_t> m;
  const int r = fiemap(ch, oid, offset, len, m);
  if (r < 0) return r;
  // Ceph's encoding of map<uint64_t, uint64_t>: u32 count, then (u64, u64) pairs, LE.
  auto put = [&bl](uint64_t v, int bytes) {
    char b[8];
    for (int i = 0; i < bytes; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    bl.append(b, bytes);
  };
  put(m.size(), 4);
  for (const auto& [off, l] : m) {
    put(off, 8);
    put(l, 8);
  }
  return 0;
}

int SMRStore::getattr(CollectionHandle& ch, const ghobject_t& oid, const char* name,
                      ceph::buffer::ptr& value) {
  const auto [c, o] = Readable(ch, oid);
  auto r = impl_->engine->GetAttr(c->name, o, name);
  if (!r.ok()) return Errno(r.status());
  value = ToPtr(*r);
  return 0;
}

int SMRStore::getattrs(CollectionHandle& ch, const ghobject_t& oid,
                       std::map<std::string, ceph::buffer::ptr>& aset) {
  const auto [c, o] = Readable(ch, oid);
  auto r = impl_->engine->GetAttrs(c->name, o);
  if (!r.ok()) return Errno(r.status());
  for (const auto& [name, v] : *r) aset[name] = ToPtr(v);
  return 0;
}

// --- Omap. ---

int SMRStore::omap_get(CollectionHandle& ch, const ghobject_t& oid, ceph::buffer::list* header,
                       std::map<std::string, ceph::buffer::list>* out) {
  const auto [c, o] = Readable(ch, oid);
  auto h = impl_->engine->GetOmapHeader(c->name, o);
  if (!h.ok()) return Errno(h.status());
  auto kv = impl_->engine->ListOmap(c->name, o, nullptr, 0);
  if (!kv.ok()) return Errno(kv.status());
  if (header != nullptr) header->append(h->data(), h->size());
  for (const auto& [key, v] : *kv) (*out)[key] = ToBl(v);
  return 0;
}

int SMRStore::omap_get_header(CollectionHandle& ch, const ghobject_t& oid,
                              ceph::buffer::list* header, bool allow_eio) {
  const auto [c, o] = Readable(ch, oid);
  auto h = impl_->engine->GetOmapHeader(c->name, o);
  if (!h.ok()) return Errno(h.status());
  header->append(h->data(), h->size());
  return 0;
}

int SMRStore::omap_get_keys(CollectionHandle& ch, const ghobject_t& oid,
                            std::set<std::string>* keys) {
  const auto [c, o] = Readable(ch, oid);
  auto kv = impl_->engine->ListOmap(c->name, o, nullptr, 0);
  if (!kv.ok()) return Errno(kv.status());
  for (const auto& [key, v] : *kv) keys->insert(key);
  return 0;
}

int SMRStore::omap_get_values(CollectionHandle& ch, const ghobject_t& oid,
                              const std::set<std::string>& keys,
                              std::map<std::string, ceph::buffer::list>* out) {
  const auto [c, o] = Readable(ch, oid);
  auto kv = impl_->engine->GetOmapValues(c->name, o, keys);
  if (!kv.ok()) return Errno(kv.status());
  for (const auto& [key, v] : *kv) (*out)[key] = ToBl(v);
  return 0;
}

int SMRStore::omap_check_keys(CollectionHandle& ch, const ghobject_t& oid,
                              const std::set<std::string>& keys, std::set<std::string>* out) {
  std::map<std::string, ceph::buffer::list> found;
  const int r = omap_get_values(ch, oid, keys, &found);
  if (r < 0) return r;
  for (const auto& [key, v] : found) out->insert(key);
  return 0;
}

namespace {

// Pages through an object's omap in key order (kPage keys per engine call).
class SMROmapIterator : public ObjectMap::ObjectMapIteratorImpl {
 public:
  static constexpr size_t kPage = 256;

  SMROmapIterator(smr::Store* engine, std::string coll, smr::ObjectId oid)
      : engine_(engine), coll_(std::move(coll)), oid_(std::move(oid)) {}

  int seek_to_first() override { return Load(nullptr); }
  int upper_bound(const std::string& after) override { return Load(&after); }
  int lower_bound(const std::string& to) override {
    auto v = engine_->GetOmapValues(coll_, oid_, {to});
    if (!v.ok()) return Fail(v.status());
    if (v->count(to)) {
      const int r = Load(&to);
      if (r < 0) return r;
      page_.insert(page_.begin(), {to, v->at(to)});
      pos_ = 0;
      return 0;
    }
    return Load(&to);
  }
  bool valid() override { return status_ == 0 && pos_ < page_.size(); }
  int next() override {
    if (!valid()) return -EINVAL;
    if (++pos_ < page_.size() || last_page_) return 0;
    const std::string after = page_.back().first;
    return Load(&after);
  }
  std::string key() override { return valid() ? page_[pos_].first : std::string(); }
  ceph::buffer::list value() override {
    return valid() ? ToBl(page_[pos_].second) : ceph::buffer::list();
  }
  int status() override { return status_; }

 private:
  int Load(const std::string* after) {
    auto r = engine_->ListOmap(coll_, oid_, after, kPage);
    if (!r.ok()) return Fail(r.status());
    page_ = std::move(*r);
    last_page_ = page_.size() < kPage;
    pos_ = 0;
    status_ = 0;
    return 0;
  }
  int Fail(const smr::Status& s) {
    page_.clear();
    pos_ = 0;
    status_ = Errno(s);
    return status_;
  }

  smr::Store* engine_;
  std::string coll_;
  smr::ObjectId oid_;
  std::vector<std::pair<std::string, std::string>> page_;
  size_t pos_ = 0;
  bool last_page_ = true;
  int status_ = 0;
};

}  // namespace

ObjectMap::ObjectMapIterator SMRStore::get_omap_iterator(CollectionHandle& ch,
                                                         const ghobject_t& oid) {
  const auto [c, o] = Readable(ch, oid);
  if (!Found(cct, impl_->engine->Exists(c->name, o), "get_omap_iterator")) {
    return ObjectMap::ObjectMapIterator();
  }
  return std::make_shared<SMROmapIterator>(impl_->engine.get(), c->name, o);
}
