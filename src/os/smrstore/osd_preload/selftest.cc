// osd_preload self-tests: see selftest.h.
#include "osd_preload/selftest.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "objectstore/SMRStore.h"
#include "os/ObjectStore.h"
#include "os/Transaction.h"

namespace smr::osd_preload {
namespace {

using Txn = ceph::os::Transaction;
using bl_t = ceph::buffer::list;

int g_failures = 0;

// An SMRStore without a CephContext (no perf counters, no admin socket).
class SMRStoreForTest {
 public:
  explicit SMRStoreForTest(const std::string& dir) : s_(new SMRStore(nullptr, dir)) {}
  ObjectStore* get() { return s_.get(); }

 private:
  std::unique_ptr<ObjectStore> s_;
};

void Check(bool ok, const std::string& what) {
  std::printf("selftest: %s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  if (!ok) ++g_failures;
}

// The host's own code, by its exported (Pacific) names.
template <typename F>
F Host(const char* mangled) {
  void* p = ::dlsym(RTLD_DEFAULT, mangled);
  if (p == nullptr) {
    std::printf("selftest: FAIL the host does not export %s\n", mangled);
    std::exit(2);
  }
  return reinterpret_cast<F>(p);
}

struct HostTxn {
  using Ctor = void (*)(void*);
  using Dtor = void (*)(void*);
  using Touch = void (*)(void*, const coll_t&, const ghobject_t&);
  using Write = void (*)(void*, const coll_t&, const ghobject_t&, uint64_t, uint64_t,
                         const bl_t&, uint32_t);
  using SetAttr = void (*)(void*, const coll_t&, const ghobject_t&, const char*, bl_t&);
  using SetAttrs = void (*)(void*, const coll_t&, const ghobject_t&,
                            const std::map<std::string, ceph::buffer::ptr>&);
  using OmapSetKeys = void (*)(void*, const coll_t&, const ghobject_t&,
                               const std::map<std::string, bl_t>&);
  using OmapRmKeys = void (*)(void*, const coll_t&, const ghobject_t&,
                              const std::set<std::string>&);
  using OmapRmKeyRange = void (*)(void*, const coll_t&, const ghobject_t&, const std::string&,
                                  const std::string&);
  using OmapSetHeader = void (*)(void*, const coll_t&, const ghobject_t&, const bl_t&);
  using CloneRange = void (*)(void*, const coll_t&, const ghobject_t&, const ghobject_t&,
                              uint64_t, uint64_t, uint64_t);
  using MoveRename = void (*)(void*, const coll_t&, const ghobject_t&, const coll_t&,
                              const ghobject_t&);
  using Generate = void (*)(std::list<Txn*>&);

  Ctor ctor = Host<Ctor>("_ZN4ceph2os11TransactionC1Ev");
  Dtor dtor = Host<Dtor>("_ZN4ceph2os11TransactionD1Ev");
  Touch touch = Host<Touch>("_ZN4ceph2os11Transaction5touchERK6coll_tRK10ghobject_t");
  Touch remove = Host<Touch>("_ZN4ceph2os11Transaction6removeERK6coll_tRK10ghobject_t");
  Write write =
      Host<Write>("_ZN4ceph2os11Transaction5writeERK6coll_tRK10ghobject_tmmRKNS_6buffer7v15_2_04listEj");
  SetAttr setattr = Host<SetAttr>(
      "_ZN4ceph2os11Transaction7setattrERK6coll_tRK10ghobject_tPKcRNS_6buffer7v15_2_04listE");
  SetAttrs setattrs = Host<SetAttrs>(
      "_ZN4ceph2os11Transaction8setattrsERK6coll_tRK10ghobject_tRKSt3mapINSt7__cxx1112basic_"
      "stringIcSt11char_traitsIcESaIcEEENS_6buffer7v15_2_03ptrESt4lessISE_ESaISt4pairIKSE_SH_"
      "EEE");
  OmapSetKeys omap_setkeys = Host<OmapSetKeys>(
      "_ZN4ceph2os11Transaction12omap_setkeysERK6coll_tRK10ghobject_tRKSt3mapINSt7__cxx1112ba"
      "sic_stringIcSt11char_traitsIcESaIcEEENS_6buffer7v15_2_04listESt4lessISE_ESaISt4pairIKSE"
      "_SH_EEE");
  OmapRmKeys omap_rmkeys = Host<OmapRmKeys>(
      "_ZN4ceph2os11Transaction11omap_rmkeysERK6coll_tRK10ghobject_tRKSt3setINSt7__cxx1112bas"
      "ic_stringIcSt11char_traitsIcESaIcEEESt4lessISE_ESaISE_EE");
  OmapRmKeyRange omap_rmkeyrange = Host<OmapRmKeyRange>(
      "_ZN4ceph2os11Transaction15omap_rmkeyrangeERK6coll_tRK10ghobject_tRKNSt7__cxx1112basic_"
      "stringIcSt11char_traitsIcESaIcEEESF_");
  OmapSetHeader omap_setheader = Host<OmapSetHeader>(
      "_ZN4ceph2os11Transaction14omap_setheaderERK6coll_tRK10ghobject_tRKNS_6buffer7v15_2_04li"
      "stE");
  CloneRange clone_range =
      Host<CloneRange>("_ZN4ceph2os11Transaction11clone_rangeERK6coll_tRK10ghobject_tS7_mmm");
  MoveRename move_rename = Host<MoveRename>(
      "_ZN4ceph2os11Transaction22collection_move_renameERK6coll_tRK10ghobject_tS4_S7_");
  Generate generate = Host<Generate>(
      "_ZN4ceph2os11Transaction23generate_test_instancesERNSt7__cxx114listIPS1_SaIS4_EEE");
};

bl_t Bl(const std::string& s) {
  bl_t b;
  b.append(s.data(), static_cast<unsigned>(s.size()));
  return b;
}

std::string Str(bl_t& b) { return b.length() ? std::string(b.c_str(), b.length()) : ""; }

ghobject_t Obj(const std::string& name, uint32_t hash) {
  return ghobject_t(hobject_t(object_t(name), "", snapid_t(CEPH_NOSNAP), hash, 1, ""),
                    ghobject_t::NO_GEN, shard_id_t(-1));
}

// Consumes one op's payloads as SMRStore's translation does; false on an unknown op.
bool Consume(Txn::iterator& it, const Txn::Op& op) {
  bl_t bl;
  std::map<std::string, ceph::buffer::ptr> aset;
  std::map<std::string, bl_t> kv;
  std::set<std::string> keys;
  switch (op.op) {
    case Txn::OP_NOP: case Txn::OP_CREATE: case Txn::OP_TOUCH: case Txn::OP_ZERO:
    case Txn::OP_TRUNCATE: case Txn::OP_REMOVE: case Txn::OP_RMATTRS: case Txn::OP_CLONE:
    case Txn::OP_CLONERANGE: case Txn::OP_CLONERANGE2: case Txn::OP_MKCOLL:
    case Txn::OP_RMCOLL: case Txn::OP_OMAP_CLEAR: case Txn::OP_SPLIT_COLLECTION2:
    case Txn::OP_COLL_MOVE_RENAME: case Txn::OP_SETALLOCHINT: case Txn::OP_TRY_RENAME:
    case Txn::OP_COLL_SET_BITS: case Txn::OP_MERGE_COLLECTION:
      return true;
    case Txn::OP_WRITE: case Txn::OP_OMAP_SETHEADER: case Txn::OP_COLL_HINT:
      it.decode_bl(bl);
      return true;
    case Txn::OP_SETATTR:
      it.decode_string();
      it.decode_bl(bl);
      return true;
    case Txn::OP_SETATTRS:
      it.decode_attrset(aset);
      return true;
    case Txn::OP_RMATTR:
      it.decode_string();
      return true;
    case Txn::OP_OMAP_SETKEYS:
      it.decode_attrset(kv);
      return true;
    case Txn::OP_OMAP_RMKEYS:
      it.decode_keyset(keys);
      return true;
    case Txn::OP_OMAP_RMKEYRANGE:
      it.decode_string();
      it.decode_string();
      return true;
    default:
      return false;
  }
}

// The objects and payload of the transaction the host builds: two collections, three
// objects, 5000 bytes of a-z.
struct HostSample {
  const coll_t c{spg_t(pg_t(7, 1))};
  const coll_t c2{spg_t(pg_t(8, 1))};
  const ghobject_t o1 = Obj("obj-one", 7), o2 = Obj("obj-two", 7), o3 = Obj("obj-3", 8);
  std::string payload = std::string(5000, 'x');
  HostSample() {
    for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>('a' + i % 26);
  }
};

// Builds the sample transaction's 11 ops in `storage` (a constructed Transaction) through
// the host's own builder methods.
void BuildThroughTheHost(HostTxn& h, unsigned char* storage, const HostSample& x) {
  const coll_t& c = x.c;
  const coll_t& c2 = x.c2;
  const ghobject_t &o1 = x.o1, &o2 = x.o2, &o3 = x.o3;
  const std::string& payload = x.payload;
  h.touch(storage, c, o1);
  h.write(storage, c, o1, 4096, payload.size(), Bl(payload), 0);
  bl_t v = Bl("attr-value");
  h.setattr(storage, c, o1, "_", v);
  std::map<std::string, ceph::buffer::ptr> attrs;
  attrs["snapset"] = ceph::buffer::copy("SS", 2);
  attrs["user.x"] = ceph::buffer::copy("xyz", 3);
  h.setattrs(storage, c, o1, attrs);
  std::map<std::string, bl_t> kv = {{"k1", Bl("v1")}, {"k2", Bl(std::string(300, 'q'))}};
  h.omap_setkeys(storage, c, o1, kv);
  h.omap_rmkeys(storage, c, o1, std::set<std::string>{"k1"});
  h.omap_rmkeyrange(storage, c, o1, "a", "k");
  h.omap_setheader(storage, c, o1, Bl("hdr"));
  h.clone_range(storage, c, o1, o2, 100, 200, 300);
  h.move_rename(storage, c, o2, c2, o3);
  h.remove(storage, c, o1);
}

// Reads the host-built transaction `t` back through our iterator: 11 ops, each of its
// code with its collection, objects, offsets and payloads, and none left over (a Check each).
void ReadBackOurWay(Txn* t, const HostSample& x) {
  const coll_t& c = x.c;
  const coll_t& c2 = x.c2;
  const ghobject_t &o1 = x.o1, &o2 = x.o2, &o3 = x.o3;
  const std::string& payload = x.payload;
  Check(t->get_num_ops() == 11, "host-built transaction has 11 ops (ours reads " +
                                    std::to_string(t->get_num_ops()) + ")");
  auto it = t->begin();
  auto next = [&](uint32_t code, const char* name) -> Txn::Op* {
    if (!it.have_op()) {
      Check(false, std::string(name) + ": no op left");
      return nullptr;
    }
    Txn::Op* op = it.decode_op();
    Check(op->op == code, std::string(name) + ": op code " + std::to_string(op->op) +
                              " (expected " + std::to_string(code) + ")");
    return op->op == code ? op : nullptr;
  };
  if (Txn::Op* op = next(Txn::OP_TOUCH, "touch")) {
    Check(it.get_cid(op->cid) == c && it.get_oid(op->oid) == o1, "touch: collection and object");
  }
  if (Txn::Op* op = next(Txn::OP_WRITE, "write")) {
    bl_t data;
    it.decode_bl(data);
    Check(op->off == 4096 && op->len == payload.size() && Str(data) == payload,
          "write: offset 4096, 5000 bytes, payload equal");
  }
  if (next(Txn::OP_SETATTR, "setattr")) {
    const std::string name = it.decode_string();
    bl_t val;
    it.decode_bl(val);
    Check(name == "_" && Str(val) == "attr-value", "setattr: name and value");
  }
  if (next(Txn::OP_SETATTRS, "setattrs")) {
    std::map<std::string, ceph::buffer::ptr> got;
    it.decode_attrset(got);
    Check(got.size() == 2 && std::string(got["snapset"].c_str(), got["snapset"].length()) == "SS" &&
              std::string(got["user.x"].c_str(), got["user.x"].length()) == "xyz",
          "setattrs: 2 attributes, values equal");
  }
  if (next(Txn::OP_OMAP_SETKEYS, "omap_setkeys")) {
    std::map<std::string, bl_t> got;
    it.decode_attrset(got);
    Check(got.size() == 2 && Str(got["k1"]) == "v1" && Str(got["k2"]) == std::string(300, 'q'),
          "omap_setkeys: 2 keys, values equal");
  }
  if (next(Txn::OP_OMAP_RMKEYS, "omap_rmkeys")) {
    std::set<std::string> got;
    it.decode_keyset(got);
    Check(got == std::set<std::string>{"k1"}, "omap_rmkeys: key set");
  }
  if (next(Txn::OP_OMAP_RMKEYRANGE, "omap_rmkeyrange")) {
    const std::string first = it.decode_string();
    const std::string last = it.decode_string();
    Check(first == "a" && last == "k", "omap_rmkeyrange: bounds");
  }
  if (next(Txn::OP_OMAP_SETHEADER, "omap_setheader")) {
    bl_t hdr;
    it.decode_bl(hdr);
    Check(Str(hdr) == "hdr", "omap_setheader: header");
  }
  if (Txn::Op* op = next(Txn::OP_CLONERANGE2, "clone_range")) {
    Check(it.get_oid(op->oid) == o1 && it.get_oid(op->dest_oid) == o2 && op->off == 100 &&
              op->len == 200 && op->dest_off == 300,
          "clone_range: source, destination, offsets, length");
  }
  if (Txn::Op* op = next(Txn::OP_COLL_MOVE_RENAME, "collection_move_rename")) {
    Check(it.get_cid(op->cid) == c && it.get_oid(op->oid) == o2 &&
              it.get_cid(op->dest_cid) == c2 && it.get_oid(op->dest_oid) == o3,
          "collection_move_rename: from (c, o2) to (c2, o3)");
  }
  if (Txn::Op* op = next(Txn::OP_REMOVE, "remove")) {
    Check(it.get_oid(op->oid) == o1, "remove: object");
  }
  Check(!it.have_op(), "no op left over");
}

// Ceph's own sample transactions (generate_test_instances): every op of every one decodes
// (a Check; each unknown op printed).
void CheckCephSamples(HostTxn& h) {
  std::list<Txn*> samples;
  h.generate(samples);
  int n = 0, ops = 0;
  bool all = true;
  for (Txn* s : samples) {
    auto si = s->begin();
    int seen = 0;
    while (si.have_op()) {
      Txn::Op* op = si.decode_op();
      if (!Consume(si, *op)) {
        all = false;
        std::printf("selftest: sample %d: unknown op %u\n", n, static_cast<unsigned>(op->op));
        break;
      }
      ++seen;
    }
    all = all && seen == s->get_num_ops();
    ops += seen;
    ++n;
    h.dtor(s);
    ::operator delete(s);
  }
  Check(all && n > 0, "Ceph's generate_test_instances: " + std::to_string(n) +
                          " transactions, " + std::to_string(ops) + " ops, all decoded");
}

void TransactionsBuiltByTheHost() {
  HostTxn h;
  Check(sizeof(Txn) == 264, "sizeof(ceph::os::Transaction) == 264 (Pacific's)");
  alignas(Txn) unsigned char storage[sizeof(Txn)];
  h.ctor(storage);
  auto* t = reinterpret_cast<Txn*>(storage);
  const HostSample x;
  BuildThroughTheHost(h, storage, x);
  ReadBackOurWay(t, x);
  h.dtor(storage);
  CheckCephSamples(h);
}

void CreateThroughTheHost(const PreloadState& state) {
  using CreateFn = ObjectStore* (*)(CephContext*, const std::string&, const std::string&,
                                    const std::string&, osflagbits_t);
  auto create = Host<CreateFn>(
      "_ZN11ObjectStore6createEPN4ceph6common11CephContextERKNSt7__cxx1112basic_stringIcSt11"
      "char_traitsIcESaIcEEESB_SB_j");
  char dir[] = "/tmp/smrstore-selftest-XXXXXX";
  if (::mkdtemp(dir) == nullptr) {
    Check(false, "mkdtemp");
    return;
  }
  ObjectStore* s = create(nullptr, "smrstore", dir, "", 0);
  Check(s != nullptr && s->get_type() == "smrstore",
        "ObjectStore::create(\"smrstore\") returns an SMRStore");
  delete s;
  ObjectStore* none = create(nullptr, "no-such-store", dir, "", 0);
  Check(none == nullptr, "ObjectStore::create(\"no-such-store\") reaches Ceph's own create "
                         "(which returns nullptr)");
  ::rmdir(dir);
}

// A store on one small emulated drive, through the same code the OSD uses: mkfs, mount
// (the kv plugin and RocksDB are loaded here), a collection, a write read back, umount.
void StoreRoundTrip() {
  char dir[] = "/tmp/smrstore-selftest-XXXXXX";
  if (::mkdtemp(dir) == nullptr) {
    Check(false, "mkdtemp");
    return;
  }
  const std::string d = dir;
  {
    SMRStoreForTest store(d);
    ObjectStore* s = store.get();
    const int w = s->write_meta("smrstore_devices", "emu:" + d + "/d0.img?zones=8&zone_mib=16&conv=1");
    const int m = w < 0 ? w : s->mkfs();
    Check(m == 0, "mkfs on one emulated drive (" + std::to_string(m) + ")");
    const int r = m < 0 ? m : s->mount();
    Check(r == 0, "mount (loads libsmrstore_kv_rocksdb.so) (" + std::to_string(r) + ")");
    if (r == 0) {
      const coll_t c(spg_t(pg_t(0, 1)));
      auto ch = s->create_new_collection(c);
      Txn t;
      t.create_collection(c, 0);
      const ghobject_t o = Obj("selftest-object", 0);
      t.write(c, o, 0, 11, Bl("hello world"));
      s->queue_transaction(ch, std::move(t));
      ch->flush();
      bl_t out;
      const int n = s->read(ch, o, 0, 11, out);
      Check(n == 11 && Str(out) == "hello world", "write then read back 11 bytes");
      ch.reset();
      Check(s->umount() == 0, "umount");
    }
  }
  const std::string cleanup = "rm -rf '" + d + "'";
  (void)!std::system(cleanup.c_str());
}

}  // namespace

int RunSelfTest(const std::string& mode, const PreloadState& state) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf("selftest: %s build-id %s known=%d option_patched=%d create_patched=%d%s%s\n",
              state.executable.c_str(), state.build_id.c_str(), state.known_binary,
              state.option_patched, state.create_patched,
              state.refusal.empty() ? "" : " refusal: ", state.refusal.c_str());
  if (mode == "state") {
    Check(state.option_patched && state.create_patched, "both patches in place");
  } else if (mode == "transactions") {
    TransactionsBuiltByTheHost();
  } else if (mode == "store") {
    StoreRoundTrip();
  } else if (mode == "create") {
    if (!state.create_patched) {
      Check(false, "ObjectStore::create is not patched");
    } else {
      CreateThroughTheHost(state);
    }
  } else {
    std::printf("selftest: unknown mode '%s' (state|transactions|create|store)\n", mode.c_str());
    return 2;
  }
  std::fflush(stdout);
  return g_failures == 0 ? 0 : 1;
}

}  // namespace smr::osd_preload
