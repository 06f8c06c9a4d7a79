// The Ceph StoreUnderTest backend (store/testing/store_under_test.h): the conformance suite
// (store/store_conformance*_test.cc) through Ceph's ObjectStore API on SMRStore.
//
// Every call is translated, never forwarded to the engine:
//   - an smr::Transaction becomes one ceph::os::Transaction built with its builder methods
//     (touch, write with a real bufferlist, zero, truncate, remove, setattr(s), rmattr(s),
//     clone, clone_range, create/remove_collection, collection_move_rename, try_rename,
//     omap_*, split/merge_collection, collection_set_bits, collection_hint,
//     set_alloc_hint), queued with queue_transactions on a CollectionHandle; its result
//     comes back through a Context registered with register_on_commit (a negative errno,
//     turned into the smr::Status of the same meaning);
//   - reads go through open_collection + read / stat / exists / getattr(s) / fiemap (map
//     form) / collection_list / collection_empty / collection_bits / collection_exists /
//     list_collections / omap_get_header / omap_get_values, and ListOmap walks
//     get_omap_iterator (seek_to_first / upper_bound, valid / next / key / value);
//   - Fsck is SMRStore::fsck (a positive return is that many errors), Statfs is statfs().
// Two things ObjectStore has no call for come from the engine under the adapter
// (SMRStoreIntrospect): Counters(), and the engine-only fields of Stat (nid, inline,
// extent count; the size comes from stat()).
//
// Collection names: the suite also uses names that are not coll_t names ("c0", "meta" is
// one, "recreated" is not). Each such name maps to a PG collection of pool 900 whose seed
// is the name's index in a process-wide registry ("900.<hex>_head"); ListCollections maps
// them back and sorts the names as the engine does (byte order). Names that the real
// coll_t::parse accepts and prints back unchanged are used as they are.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "include/Context.h"
#include "include/buffer.h"
#include "objectstore/SMRStore.h"
#include "objectstore/ceph_types.h"
#include "objectstore/standalone_context.h"
#include "objectstore/testing/smrstore_introspect.h"
#include "os/ObjectStore.h"
#include "osd/osd_types.h"
#include "store/options_table.h"
#include "store/store.h"
#include "store/testing/store_under_test.h"
#include "store/transaction.h"

namespace smr::testing {
namespace {

using smr::ceph_adapter::ToGhobject;
using smr::ceph_adapter::ToObjectId;
using CT = ceph::os::Transaction;

constexpr uint64_t kMappedPool = 900;
constexpr const char* kDevicesKey = "smrstore_devices";  // SMRStore::mkfs's drive list

// One CephContext for the process (perf counters and admin-socket hooks register on it at
// every mount). Never destroyed: stores may still reference it during static destruction.
CephContext* Cct() {
  static auto* ctx = new smr::ceph_adapter::StandaloneCephContext("");
  return ctx->get();
}

// Suite collection name <-> coll_t (see the file comment).
class CollRegistry {
 public:
  static CollRegistry& Get() {
    static CollRegistry r;
    return r;
  }
  coll_t ToColl(const std::string& name) {
    coll_t c;
    if (c.parse(name) && c.to_str() == name) return c;
    std::lock_guard<std::mutex> l(mu_);
    auto it = by_name_.find(name);
    if (it != by_name_.end()) return it->second;
    const coll_t mapped(spg_t(pg_t(static_cast<uint32_t>(by_name_.size()), kMappedPool)));
    by_name_.emplace(name, mapped);
    by_coll_.emplace(mapped.to_str(), name);
    return mapped;
  }
  std::string FromColl(const coll_t& c) {
    const std::string s = c.to_str();
    std::lock_guard<std::mutex> l(mu_);
    auto it = by_coll_.find(s);
    return it == by_coll_.end() ? s : it->second;
  }

 private:
  std::mutex mu_;
  std::map<std::string, coll_t> by_name_;
  std::map<std::string, std::string> by_coll_;
};

coll_t Coll(const std::string& name) { return CollRegistry::Get().ToColl(name); }

// A negative errno from ObjectStore as the engine's Status of the same meaning (ENOENT ->
// kNotFound, ENODATA -> kNoData, EEXIST -> kAlreadyExists, ENOTEMPTY -> kNotEmpty, EINVAL
// -> kInvalidArgument, ENOSPC -> kNoSpace, EIO -> kIOError, ...: common/status.h).
Status FromCeph(int r, const std::string& what) {
  if (r >= 0) return Status::OK();
  return Status::FromErrno(-r, what);
}

std::string ToString(const ceph::buffer::list& bl) {
  std::string s;
  s.reserve(bl.length());
  for (const auto& p : bl.buffers()) {
    if (p.length() > 0) s.append(p.c_str(), p.length());
  }
  return s;
}

std::string ToString(const ceph::buffer::ptr& p) {
  return p.length() == 0 ? std::string() : std::string(p.c_str(), p.length());
}

ceph::buffer::list ToBl(const std::string& s) {
  ceph::buffer::list bl;
  bl.append(s.data(), static_cast<unsigned>(s.size()));
  return bl;
}

std::map<std::string, ceph::buffer::list> ToBlMap(const std::map<std::string, std::string>& kv) {
  std::map<std::string, ceph::buffer::list> out;
  for (const auto& [k, v] : kv) out[k] = ToBl(v);
  return out;
}

// Little-endian, as Ceph's encode() of integers.
void PutLe(ceph::buffer::list* bl, uint64_t v, int bytes) {
  char b[8];
  for (int i = 0; i < bytes; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  bl->append(b, bytes);
}

// The ceph::os::Transaction an OSD would build for `t`.
CT ToCeph(const Transaction& t) {
  using C = Transaction::OpCode;
  CT ct;
  for (const Transaction::Op& op : t.ops()) {
    const ghobject_t o = ToGhobject(op.oid);
    switch (op.code) {
      case C::kNop:
        ct.nop();
        break;
      case C::kTouch:
        ct.touch(Coll(op.coll), o);
        break;
      case C::kWrite:
        ct.write(Coll(op.coll), o, op.offset, op.write_data().size(),
                 ToBl(std::string(op.write_data())));
        break;
      case C::kZero:
        ct.zero(Coll(op.coll), o, op.offset, op.length);
        break;
      case C::kTruncate:
        ct.truncate(Coll(op.coll), o, op.offset);
        break;
      case C::kRemove:
        ct.remove(Coll(op.coll), o);
        break;
      case C::kSetAttrs:
        // Transaction::SetAttr is a one-attribute kSetAttrs: send it as OP_SETATTR, larger
        // sets as OP_SETATTRS, so both Ceph ops are exercised.
        if (op.kv.size() == 1) {
          ceph::buffer::list v = ToBl(op.kv.begin()->second);
          ct.setattr(Coll(op.coll), o, op.kv.begin()->first, v);
        } else {
          ct.setattrs(Coll(op.coll), o, ToBlMap(op.kv));
        }
        break;
      case C::kRmAttr:
        ct.rmattr(Coll(op.coll), o, op.data);
        break;
      case C::kRmAttrs:
        ct.rmattrs(Coll(op.coll), o);
        break;
      case C::kClone:
        ct.clone(Coll(op.coll), o, ToGhobject(op.dest_oid));
        break;
      case C::kCloneRange:
        ct.clone_range(Coll(op.coll), o, ToGhobject(op.dest_oid), op.offset, op.length,
                       op.dest_offset);
        break;
      case C::kMkColl:
        ct.create_collection(Coll(op.coll), static_cast<int>(op.bits));
        break;
      case C::kRmColl:
        ct.remove_collection(Coll(op.coll));
        break;
      case C::kCollMoveRename:
        if (op.tolerate_missing) {
          ct.try_rename(Coll(op.coll), o, ToGhobject(op.dest_oid));
        } else {
          ct.collection_move_rename(Coll(op.coll), o, Coll(op.dest_coll),
                                    ToGhobject(op.dest_oid));
        }
        break;
      case C::kOmapClear:
        ct.omap_clear(Coll(op.coll), o);
        break;
      case C::kOmapSetKeys:
        ct.omap_setkeys(Coll(op.coll), o, ToBlMap(op.kv));
        break;
      case C::kOmapRmKeys:
        ct.omap_rmkeys(Coll(op.coll), o, op.keys);
        break;
      case C::kOmapRmKeyRange:
        ct.omap_rmkeyrange(Coll(op.coll), o, op.data, op.data2);
        break;
      case C::kOmapSetHeader:
        ct.omap_setheader(Coll(op.coll), o, ToBl(op.data));
        break;
      case C::kSplitCollection:
        ct.split_collection(Coll(op.coll), op.bits, op.rem, Coll(op.dest_coll));
        break;
      case C::kMergeCollection:
        ct.merge_collection(Coll(op.coll), Coll(op.dest_coll), op.bits);
        break;
      case C::kCollSetBits:
        ct.collection_set_bits(Coll(op.coll), static_cast<int>(op.bits));
        break;
      case C::kCollHint: {
        // The OSD's expected-num-objects hint: pg_num (u32), expected objects (u64).
        ceph::buffer::list hint;
        PutLe(&hint, 1, 4);
        PutLe(&hint, 1000, 8);
        ct.collection_hint(Coll(op.coll), CT::COLL_HINT_EXPECTED_NUM_OBJECTS, hint);
        break;
      }
      case C::kSetAllocHint:
        ct.set_alloc_hint(Coll(op.coll), o, op.offset, op.length, op.bits);
        break;
    }
  }
  return ct;
}

// Runs a transaction's outcome exactly once: from the on_commit Context, or from the
// caller when queue_transactions refused the transaction without running its Contexts.
struct Completion {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Status status;
  Store::Callback callback;  // may be empty (Apply waits instead)

  void Finish(Status s) {
    Store::Callback cb;
    {
      std::lock_guard<std::mutex> l(mu);
      if (done) return;
      done = true;
      status = s;
      cb = std::move(callback);
    }
    if (cb) cb(s);
    cv.notify_all();
  }
  Status Wait() {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [this] { return done; });
    return status;
  }
};

class ObjectStoreUnderTest final : public StoreUnderTest {
 public:
  explicit ObjectStoreUnderTest(std::unique_ptr<SMRStore> os) : os_(std::move(os)) {}
  ~ObjectStoreUnderTest() override {
    if (mounted_) os_->umount();
  }

  Status Close() override {
    if (!mounted_) return Status::OK();
    mounted_ = false;
    return FromCeph(os_->umount(), "umount");
  }

  void Submit(Transaction txn, Store::Callback on_commit) override {
    auto c = std::make_shared<Completion>();
    c->callback = std::move(on_commit);
    Queue(txn, c);
  }

  Status Apply(Transaction txn) override {
    auto c = std::make_shared<Completion>();
    Queue(txn, c);
    return c->Wait();
  }

  Result<std::string> Read(const std::string& coll, const ObjectId& oid, uint64_t offset,
                           uint64_t len) override {
    SMR_ASSIGN_OR_RETURN(auto ch, Open(coll));
    ceph::buffer::list bl;
    const int r = os_->read(ch, ToGhobject(oid), offset, len, bl);
    if (r < 0) return FromCeph(r, "read " + coll + "/" + oid.ToString());
    if (static_cast<uint64_t>(r) != bl.length()) {
      return Status::IOError("read returned " + std::to_string(r) + " but " +
                             std::to_string(bl.length()) + " bytes");
    }
    return ToString(bl);
  }

  Result<ObjectStat> Stat(const std::string& coll, const ObjectId& oid) override {
    SMR_ASSIGN_OR_RETURN(auto ch, Open(coll));
    struct stat st;
    const int r = os_->stat(ch, ToGhobject(oid), &st);
    if (r < 0) return FromCeph(r, "stat " + coll + "/" + oid.ToString());
    // ObjectStore's stat has the size only; the engine-only fields come from the engine.
    SMR_ASSIGN_OR_RETURN(ObjectStat es, Engine()->Stat(coll_name(coll), oid));
    ObjectStat out = es;
    out.size = static_cast<uint64_t>(st.st_size);
    return out;
  }

  bool Exists(const std::string& coll, const ObjectId& oid) override {
    auto ch = os_->open_collection(Coll(coll));
    return ch && os_->exists(ch, ToGhobject(oid));
  }

  Result<std::string> GetAttr(const std::string& coll, const ObjectId& oid,
                              const std::string& name) override {
    SMR_ASSIGN_OR_RETURN(auto ch, Open(coll));
    ceph::buffer::ptr v;
    const int r = os_->getattr(ch, ToGhobject(oid), name.c_str(), v);
    if (r < 0) return FromCeph(r, "getattr " + coll + "/" + oid.ToString() + " " + name);
    return ToString(v);
  }

  Result<std::map<std::string, std::string>> GetAttrs(const std::string& coll,
                                                      const ObjectId& oid) override {
    SMR_ASSIGN_OR_RETURN(auto ch, Open(coll));
    std::map<std::string, ceph::buffer::ptr> aset;
    const int r = os_->getattrs(ch, ToGhobject(oid), aset);
    if (r < 0) return FromCeph(r, "getattrs " + coll + "/" + oid.ToString());
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : aset) out[k] = ToString(v);
    return out;
  }

  Result<std::map<uint64_t, uint64_t>> Fiemap(const std::string& coll, const ObjectId& oid,
                                              uint64_t offset, uint64_t len) override {
    SMR_ASSIGN_OR_RETURN(auto ch, Open(coll));
    std::map<uint64_t, uint64_t> m;
    const int r = os_->fiemap(ch, ToGhobject(oid), offset, len, m);
    if (r < 0) return FromCeph(r, "fiemap " + coll + "/" + oid.ToString());
    return m;
  }

  Result<std::vector<std::string>> ListCollections() override {
    std::vector<coll_t> ls;
    const int r = os_->list_collections(ls);
    if (r < 0) return FromCeph(r, "list_collections");
    std::vector<std::string> out;
    for (const coll_t& c : ls) out.push_back(CollRegistry::Get().FromColl(c));
    std::sort(out.begin(), out.end());
    return out;
  }

  bool CollectionExists(const std::string& coll) override {
    return os_->collection_exists(Coll(coll));
  }

  Result<bool> CollectionEmpty(const std::string& coll) override {
    SMR_ASSIGN_OR_RETURN(auto ch, Open(coll));
    bool empty = false;
    const int r = os_->collection_empty(ch, &empty);
    if (r < 0) return FromCeph(r, "collection_empty " + coll);
    return empty;
  }

  Result<uint32_t> CollectionBits(const std::string& coll) override {
    SMR_ASSIGN_OR_RETURN(auto ch, Open(coll));
    const int r = os_->collection_bits(ch);
    if (r < 0) return FromCeph(r, "collection_bits " + coll);
    return static_cast<uint32_t>(r);
  }

  Status ListObjects(const std::string& coll, const ObjectId& start, const ObjectId& end,
                     size_t max, std::vector<ObjectId>* out, ObjectId* next) override {
    out->clear();
    SMR_ASSIGN_OR_RETURN(auto ch, Open(coll));
    std::vector<ghobject_t> ls;
    ghobject_t gnext;
    // The engine's "0 = no limit" is, for an ObjectStore caller, the largest int.
    const int cmax = max == 0 || max > static_cast<size_t>(INT_MAX) ? INT_MAX
                                                                    : static_cast<int>(max);
    const int r =
        os_->collection_list(ch, ToGhobject(start), ToGhobject(end), cmax, &ls, &gnext);
    if (r < 0) return FromCeph(r, "collection_list " + coll);
    out->reserve(ls.size());
    for (const ghobject_t& g : ls) out->push_back(ToObjectId(g));
    *next = ToObjectId(gnext);
    return Status::OK();
  }

  Result<std::string> GetOmapHeader(const std::string& coll, const ObjectId& oid) override {
    SMR_ASSIGN_OR_RETURN(auto ch, Open(coll));
    ceph::buffer::list bl;
    const int r = os_->omap_get_header(ch, ToGhobject(oid), &bl);
    if (r < 0) return FromCeph(r, "omap_get_header " + coll + "/" + oid.ToString());
    return ToString(bl);
  }

  Result<std::vector<std::pair<std::string, std::string>>> ListOmap(
      const std::string& coll, const ObjectId& oid, const std::string* after,
      size_t max) override {
    SMR_ASSIGN_OR_RETURN(auto ch, Open(coll));
    const std::string what = "omap iterator " + coll + "/" + oid.ToString();
    ObjectMap::ObjectMapIterator it = os_->get_omap_iterator(ch, ToGhobject(oid));
    // Pacific: a null iterator means the object does not exist.
    if (!it) return Status::NotFound(what + ": no such object");
    int r = after == nullptr ? it->seek_to_first() : it->upper_bound(*after);
    if (r < 0) return FromCeph(r, what);
    std::vector<std::pair<std::string, std::string>> out;
    while (it->valid()) {
      out.emplace_back(it->key(), ToString(it->value()));
      if (max != 0 && out.size() >= max) break;
      r = it->next();
      if (r < 0) return FromCeph(r, what + ": next");
    }
    if (it->status() < 0) return FromCeph(it->status(), what);
    return out;
  }

  Result<std::map<std::string, std::string>> GetOmapValues(
      const std::string& coll, const ObjectId& oid, const std::set<std::string>& keys) override {
    SMR_ASSIGN_OR_RETURN(auto ch, Open(coll));
    std::map<std::string, ceph::buffer::list> found;
    const int r = os_->omap_get_values(ch, ToGhobject(oid), keys, &found);
    if (r < 0) return FromCeph(r, "omap_get_values " + coll + "/" + oid.ToString());
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : found) out[k] = ToString(v);
    return out;
  }

  Result<FsckReport> Fsck(bool deep, bool repair) override {
    const int r = repair ? os_->repair(deep) : os_->fsck(deep);
    if (r < 0) return FromCeph(r, repair ? "repair" : "fsck");
    // ObjectStore reports the number of errors; SMRStore logs each one to stderr.
    FsckReport report;
    for (int i = 0; i < r; ++i) {
      report.errors.push_back("SMRStore::fsck error " + std::to_string(i + 1) + " of " +
                              std::to_string(r) + " (each is logged to stderr)");
    }
    return report;
  }

  StoreCounters Counters() override { return Engine()->Counters(); }

  StoreStatfs Statfs() override {
    store_statfs_t buf;
    StoreStatfs out;
    if (os_->statfs(&buf) < 0) return out;  // all zero: never what a check expects
    out.total = static_cast<uint64_t>(buf.total);
    out.available = static_cast<uint64_t>(buf.available);
    out.allocated = static_cast<uint64_t>(buf.allocated);
    out.stored = static_cast<uint64_t>(buf.data_stored);
    out.meta_bytes = static_cast<uint64_t>(buf.internal_metadata);
    return out;
  }

 private:
  // The engine's name of a suite collection (what SMRStore names it in the engine).
  static std::string coll_name(const std::string& coll) { return Coll(coll).to_str(); }

  smr::Store* Engine() {
    smr::Store* e = SMRStoreIntrospect::Engine(*os_);
    if (e == nullptr) std::abort();  // the suite never reads an unmounted store
    return e;
  }

  Result<ObjectStore::CollectionHandle> Open(const std::string& coll) {
    ObjectStore::CollectionHandle ch = os_->open_collection(Coll(coll));
    if (!ch) return Status::NotFound("open_collection " + coll + ": no such collection");
    return ch;
  }

  // The handle an OSD would queue `t` on: the first collection it names that exists, else
  // the first one it creates (create_new_collection, as the OSD does before the mkcoll),
  // else the first one it names (a handle for a missing collection: the engine then
  // refuses the transaction with ENOENT), else the meta collection.
  ObjectStore::CollectionHandle HandleFor(const Transaction& t) {
    std::vector<std::string> named;
    std::string created;
    for (const Transaction::Op& op : t.ops()) {
      for (const std::string* c : {&op.coll, &op.dest_coll}) {
        if (!c->empty()) named.push_back(*c);
      }
      if (op.code == Transaction::OpCode::kMkColl && created.empty()) created = op.coll;
    }
    for (const std::string& c : named) {
      if (auto ch = os_->open_collection(Coll(c))) return ch;
    }
    if (!created.empty()) return os_->create_new_collection(Coll(created));
    if (!named.empty()) return os_->create_new_collection(Coll(named.front()));
    return os_->create_new_collection(coll_t::meta());
  }

  void Queue(const Transaction& txn, const std::shared_ptr<Completion>& c) {
    CT ct = ToCeph(txn);
    ct.register_on_commit(make_lambda_context(
        [c](int r) { c->Finish(FromCeph(r, "transaction (ObjectStore on_commit)")); }));
    ObjectStore::CollectionHandle ch = HandleFor(txn);
    const int r = os_->queue_transaction(ch, std::move(ct));
    // A refused transaction may not have run its Contexts; Finish runs only once.
    if (r < 0) c->Finish(FromCeph(r, "queue_transactions"));
  }

  std::unique_ptr<SMRStore> os_;
  bool mounted_ = true;
};

bool IsDefault(const StoreOptions& o) { return smr::StoreOptionsEqual(o, StoreOptions()); }

}  // namespace

Status MkfsStoreUnderTest(const std::string& dir, const std::vector<std::string>& specs,
                          const StoreOptions& options, bool force) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("mkdir " + dir + ": " + ec.message());
  SMRStore os(Cct(), dir);
  std::string devices;
  for (const std::string& s : specs) devices += (devices.empty() ? "" : " ") + s;
  if (int r = os.write_meta(kDevicesKey, devices); r < 0) {
    return FromCeph(r, "write_meta " + std::string(kDevicesKey));
  }
  // The conformance suite checks refused transactions' errnos (an OSD aborts instead).
  if (int r = os.write_meta("smrstore.conf", "on_transaction_error = report"); r < 0) {
    return FromCeph(r, "write_meta smrstore.conf");
  }
  if (IsDefault(options) && !force) {
    // The OSD's path: drives from the meta file, default options.
    return FromCeph(os.mkfs(), "SMRStore::mkfs");
  }
  // SMRStore::mkfs takes neither engine options nor --force (an OSD has no way to pass
  // them), so a suite that needs them makes the engine in SMRStore's layout directly:
  // PATH/smrstore plus the "type" meta key mkfs would write.
  SMR_RETURN_IF_ERROR(smr::Store::Mkfs(dir + "/smrstore", specs, options, force));
  return FromCeph(os.write_meta("type", "smrstore"), "write_meta type");
}

Result<std::unique_ptr<StoreUnderTest>> OpenStoreUnderTest(const std::string& dir) {
  auto os = std::make_unique<SMRStore>(Cct(), dir);
  if (int r = os->mount(); r < 0) return FromCeph(r, "SMRStore::mount " + dir);
  return std::unique_ptr<StoreUnderTest>(std::make_unique<ObjectStoreUnderTest>(std::move(os)));
}

const char* StoreUnderTestBackend() { return "objectstore"; }

}  // namespace smr::testing
