// Randomized model test of smrstore's Store: an in-memory reference model (collections ->
// objects -> {data, attrs, omap header, omap}) and the real store are driven by the same
// random transactions — multi-op, some meant to fail — with clean remounts, group-committed
// bursts, write faults and power cuts (FaultInjectionDevice under the store, kept alive
// across mounts through testing::BorrowedDevice).
//
// The invariant: the store always equals the model of every transaction whose Apply (or
// callback) returned OK, in submission order. A transaction the model rejects must fail
// with the model's error code and leave nothing behind. After a power cut nothing committed
// may be lost, since a transaction's data is flushed before its metadata commits.
//
// Replay: a failure prints its seed. SMRSTORE_MODEL_SEED=<n> runs only that seed;
// SMRSTORE_MODEL_TXNS=<n> sets the transactions per seed (default 500).
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/testing/test_util.h"
#include "device/device_spec.h"
#include "device/fault_injection_device.h"
#include "device/testing/borrowed_device.h"
#include "device/testing/device_test_backends.h"
#include "store/store.h"
#include "store/transaction.h"

namespace smr {
namespace {

using testing::ScratchDir;
using Kv = std::map<std::string, std::string>;
using Op = Transaction::Op;
using C = Transaction::OpCode;

constexpr uint64_t kMaxObject = 256 * 1024;  // objects stay within this size

// ---------------------------------------------------------------------------------------
// The reference model

struct IdLess {
  bool operator()(const ObjectId& a, const ObjectId& b) const { return Compare(a, b) < 0; }
};

struct MObj {
  std::string data;
  Kv attrs;
  std::string header;
  Kv omap;
};

// Objects are shared copy-on-write so that saving a collection for undo is cheap.
struct MColl {
  uint32_t bits = 0;
  std::map<ObjectId, std::shared_ptr<const MObj>, IdLess> objs;
};

using Model = std::map<std::string, MColl>;

MObj& Mutable(MColl* c, const ObjectId& oid) {
  auto& p = c->objs[oid];
  if (!p) {
    p = std::make_shared<MObj>();
  } else if (p.use_count() > 1) {
    p = std::make_shared<MObj>(*p);
  }
  return const_cast<MObj&>(*p);
}

// Saved collections (before a transaction) to undo it.
struct Undo {
  std::map<std::string, std::optional<MColl>> saved;
  void Save(const Model& m, const std::string& name) {
    if (name.empty() || saved.count(name)) return;
    auto it = m.find(name);
    saved[name] = it == m.end() ? std::nullopt : std::optional<MColl>(it->second);
  }
  void Revert(Model* m) const {
    for (const auto& [name, c] : saved) {
      if (c) {
        (*m)[name] = *c;
      } else {
        m->erase(name);
      }
    }
  }
};

void ModelZero(MObj* o, uint64_t off, uint64_t len) {
  if (len == 0) return;
  if (o->data.size() < off + len) o->data.resize(off + len, '\0');
  std::fill(o->data.begin() + off, o->data.begin() + off + len, '\0');
}

void ModelWrite(MObj* o, uint64_t off, const std::string& d) {
  if (d.empty()) return;
  if (o->data.size() < off + d.size()) o->data.resize(off + d.size(), '\0');
  o->data.replace(off, d.size(), d);
}

// One op, per transaction.h. Checks its preconditions before changing anything.
Status ModelOp(Model* m, const Op& op) {
  switch (op.code) {
    case C::kNop:
    case C::kCollHint:
      return Status::OK();
    case C::kMkColl: {
      if (m->count(op.coll)) return Status::AlreadyExists("mkcoll");
      (*m)[op.coll].bits = op.bits;
      return Status::OK();
    }
    case C::kRmColl: {
      auto it = m->find(op.coll);
      if (it == m->end()) return Status::NotFound("rmcoll");
      if (!it->second.objs.empty()) return Status::NotEmpty("rmcoll");
      m->erase(it);
      return Status::OK();
    }
    case C::kCollSetBits: {
      auto it = m->find(op.coll);
      if (it == m->end()) return Status::NotFound("coll");
      it->second.bits = op.bits;
      return Status::OK();
    }
    case C::kSplitCollection:
    case C::kMergeCollection: {
      auto src = m->find(op.coll);
      if (src == m->end()) return Status::NotFound("coll");
      auto dst = m->find(op.dest_coll);
      if (dst == m->end()) return Status::NotFound("dest coll");
      const bool split = op.code == C::kSplitCollection;
      const uint32_t mask = op.bits >= 32 ? 0xffffffffu : ((1u << op.bits) - 1);
      for (auto it = src->second.objs.begin(); it != src->second.objs.end();) {
        if (!split || (it->first.hash & mask) == op.rem) {
          dst->second.objs[it->first] = it->second;
          it = src->second.objs.erase(it);
        } else {
          ++it;
        }
      }
      dst->second.bits = op.bits;
      if (split) {
        src->second.bits = op.bits;
      } else {
        m->erase(src);
      }
      return Status::OK();
    }
    default:
      break;
  }
  auto cit = m->find(op.coll);
  if (cit == m->end()) return Status::NotFound("coll");
  MColl& c = cit->second;
  auto oit = c.objs.find(op.oid);
  const bool exists = oit != c.objs.end();
  switch (op.code) {
    case C::kTouch:
      Mutable(&c, op.oid);
      return Status::OK();
    case C::kWrite:
      ModelWrite(&Mutable(&c, op.oid), op.offset, op.data);
      return Status::OK();
    case C::kZero:
      ModelZero(&Mutable(&c, op.oid), op.offset, op.length);
      return Status::OK();
    case C::kTruncate:
      if (exists) Mutable(&c, op.oid).data.resize(op.offset, '\0');
      return Status::OK();
    case C::kRemove:
      if (exists) c.objs.erase(oit);
      return Status::OK();
    case C::kSetAttrs: {
      if (!exists) return Status::NotFound("setattrs");
      MObj& o = Mutable(&c, op.oid);
      for (const auto& [k, v] : op.kv) o.attrs[k] = v;
      return Status::OK();
    }
    case C::kRmAttr:
      if (!exists) return Status::NotFound("rmattr");
      Mutable(&c, op.oid).attrs.erase(op.data);
      return Status::OK();
    case C::kRmAttrs:
      if (exists) Mutable(&c, op.oid).attrs.clear();
      return Status::OK();
    case C::kClone: {
      if (!exists) return Status::NotFound("clone source");
      c.objs[op.dest_oid] = oit->second;  // shared until either side changes
      return Status::OK();
    }
    case C::kCloneRange: {
      if (!exists) return Status::NotFound("clone_range source");
      const std::string& sd = oit->second->data;
      const std::string piece =
          op.offset >= sd.size() ? std::string() : sd.substr(op.offset, op.length);
      MObj& d = Mutable(&c, op.dest_oid);
      ModelZero(&d, op.dest_offset, op.length);
      ModelWrite(&d, op.dest_offset, piece);
      return Status::OK();
    }
    case C::kCollMoveRename: {
      auto dit = m->find(op.dest_coll);
      if (dit == m->end()) return Status::NotFound("dest coll");
      if (!exists) return Status::OK();
      if (dit->second.objs.count(op.dest_oid)) return Status::AlreadyExists("rename");
      std::shared_ptr<const MObj> o = oit->second;
      c.objs.erase(oit);
      dit->second.objs[op.dest_oid] = std::move(o);
      return Status::OK();
    }
    case C::kOmapClear:
      if (exists) {
        MObj& o = Mutable(&c, op.oid);
        o.omap.clear();
        o.header.clear();
      }
      return Status::OK();
    case C::kOmapSetKeys: {
      if (!exists) return Status::NotFound("omap_setkeys");
      MObj& o = Mutable(&c, op.oid);
      for (const auto& [k, v] : op.kv) o.omap[k] = v;
      return Status::OK();
    }
    case C::kOmapRmKeys: {
      if (!exists) return Status::NotFound("omap_rmkeys");
      MObj& o = Mutable(&c, op.oid);
      for (const auto& k : op.keys) o.omap.erase(k);
      return Status::OK();
    }
    case C::kOmapRmKeyRange: {
      if (!exists) return Status::NotFound("omap_rmkeyrange");
      MObj& o = Mutable(&c, op.oid);
      if (op.data < op.data2) {
        o.omap.erase(o.omap.lower_bound(op.data), o.omap.lower_bound(op.data2));
      }
      return Status::OK();
    }
    case C::kOmapSetHeader:
      if (!exists) return Status::NotFound("omap_setheader");
      Mutable(&c, op.oid).header = op.data;
      return Status::OK();
    case C::kSetAllocHint:
      // The generator only hints existing objects (see the conformance suite for the
      // missing-object case).
      return Status::OK();
    default:
      return Status::NotSupported("model: op");
  }
}

// Applies `t` all-or-nothing; *undo (when given) can revert a successful application.
Status ModelApply(Model* m, const Transaction& t, Undo* undo_out = nullptr) {
  Undo undo;
  for (const Op& op : t.ops()) {
    undo.Save(*m, op.coll);
    undo.Save(*m, op.dest_coll);
    Status s = ModelOp(m, op);
    if (!s.ok()) {
      undo.Revert(m);
      return s;
    }
  }
  if (undo_out != nullptr) *undo_out = std::move(undo);
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Describing things for failure messages

std::string Short(const std::string& s) {
  std::ostringstream o;
  for (size_t i = 0; i < s.size() && i < 24; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      o << c;
    } else {
      o << "\\x" << std::hex << static_cast<int>(c) << std::dec;
    }
  }
  if (s.size() > 24) o << "..(" << s.size() << ")";
  return o.str();
}

std::string DescribeOp(const Op& op) {
  std::ostringstream o;
  o << OpName(op.code) << " " << op.coll;
  switch (op.code) {
    case C::kMkColl:
    case C::kRmColl:
    case C::kCollSetBits:
    case C::kCollHint:
    case C::kNop:
      o << " bits=" << op.bits;
      return o.str();
    case C::kSplitCollection:
    case C::kMergeCollection:
      o << " -> " << op.dest_coll << " bits=" << op.bits << " rem=" << op.rem;
      return o.str();
    default:
      break;
  }
  o << " " << op.oid.ToString();
  switch (op.code) {
    case C::kWrite:
      o << " @" << op.offset << "+" << op.data.size();
      break;
    case C::kZero:
    case C::kTruncate:
      o << " @" << op.offset << "+" << op.length;
      break;
    case C::kClone:
      o << " -> " << op.dest_oid.ToString();
      break;
    case C::kCloneRange:
      o << " [" << op.offset << "+" << op.length << "] -> " << op.dest_oid.ToString() << " @"
        << op.dest_offset;
      break;
    case C::kCollMoveRename:
      o << " -> " << op.dest_coll << "/" << op.dest_oid.ToString()
        << (op.tolerate_missing ? " (try)" : "");
      break;
    case C::kRmAttr:
    case C::kOmapSetHeader:
      o << " '" << Short(op.data) << "'";
      break;
    case C::kOmapRmKeyRange:
      o << " ['" << Short(op.data) << "', '" << Short(op.data2) << "')";
      break;
    case C::kSetAttrs:
    case C::kOmapSetKeys:
      o << " {";
      for (const auto& [k, v] : op.kv) o << Short(k) << " ";
      o << "}";
      break;
    case C::kOmapRmKeys:
      o << " {";
      for (const auto& k : op.keys) o << Short(k) << " ";
      o << "}";
      break;
    default:
      break;
  }
  return o.str();
}

std::string DescribeTxn(const Transaction& t) {
  std::string s;
  for (const Op& op : t.ops()) s += "    " + DescribeOp(op) + "\n";
  return s;
}

std::string Id(const ObjectId& o) { return o.ToString() + "|" + o.key; }

// "" when the store's object equals the model's, else the difference.
std::string DiffObject(Store* store, const std::string& coll, const ObjectId& oid,
                       const MObj& want) {
  const std::string who = coll + "/" + oid.ToString();
  auto st = store->Stat(coll, oid);
  if (!st.ok()) return who + ": stat: " + st.status().ToString();
  if (st->size != want.data.size()) {
    return who + ": size " + std::to_string(st->size) + ", model " +
           std::to_string(want.data.size());
  }
  auto data = store->Read(coll, oid, 0, 0);
  if (!data.ok()) return who + ": read: " + data.status().ToString();
  if (*data != want.data) {
    size_t i = 0;
    while (i < data->size() && i < want.data.size() && (*data)[i] == want.data[i]) ++i;
    return who + ": data differs at byte " + std::to_string(i) + " (store " +
           std::to_string(data->size()) + " bytes, model " + std::to_string(want.data.size()) +
           ")";
  }
  auto attrs = store->GetAttrs(coll, oid);
  if (!attrs.ok()) return who + ": getattrs: " + attrs.status().ToString();
  if (*attrs != want.attrs) {
    std::string s = who + ": attrs differ: store {";
    for (const auto& [k, v] : *attrs) s += Short(k) + "=" + Short(v) + " ";
    s += "} model {";
    for (const auto& [k, v] : want.attrs) s += Short(k) + "=" + Short(v) + " ";
    return s + "}";
  }
  auto header = store->GetOmapHeader(coll, oid);
  if (!header.ok()) return who + ": omap header: " + header.status().ToString();
  if (*header != want.header) {
    return who + ": omap header '" + Short(*header) + "', model '" + Short(want.header) + "'";
  }
  auto omap = store->ListOmap(coll, oid, nullptr, 0);
  if (!omap.ok()) return who + ": list omap: " + omap.status().ToString();
  if (Kv(omap->begin(), omap->end()) != want.omap || omap->size() != want.omap.size()) {
    std::string s = who + ": omap differs: store {";
    for (const auto& [k, v] : *omap) s += Short(k) + "=" + Short(v) + " ";
    s += "} model {";
    for (const auto& [k, v] : want.omap) s += Short(k) + "=" + Short(v) + " ";
    return s + "}";
  }
  // Listing order of omap keys is byte order.
  for (size_t i = 1; i < omap->size(); ++i) {
    if (!((*omap)[i - 1].first < (*omap)[i].first)) return who + ": omap not in key order";
  }
  return "";
}

// "" when the store equals the model, else the first difference.
std::string DiffStore(Store* store, const Model& model) {
  auto colls = store->ListCollections();
  if (!colls.ok()) return "list collections: " + colls.status().ToString();
  std::vector<std::string> want_colls;
  for (const auto& [name, c] : model) want_colls.push_back(name);
  if (*colls != want_colls) {
    std::string s = "collections: store {";
    for (auto& c : *colls) s += c + " ";
    s += "} model {";
    for (auto& c : want_colls) s += c + " ";
    return s + "}";
  }
  for (const auto& [name, c] : model) {
    auto bits = store->CollectionBits(name);
    if (!bits.ok()) return name + ": bits: " + bits.status().ToString();
    if (*bits != c.bits) {
      return name + ": bits " + std::to_string(*bits) + ", model " + std::to_string(c.bits);
    }
    std::vector<std::string> want;
    for (const auto& [oid, o] : c.objs) want.push_back(Id(oid));
    // One listing, and one paginated listing, both in Ceph's order.
    for (size_t page : {size_t{0}, size_t{7}}) {
      std::vector<std::string> got;
      ObjectId start = ObjectId::Min();
      for (int guard = 0; guard < 10000; ++guard) {
        std::vector<ObjectId> out;
        ObjectId next;
        Status s = store->ListObjects(name, start, ObjectId::Max(), page, &out, &next);
        if (!s.ok()) return name + ": list objects: " + s.ToString();
        for (const ObjectId& o : out) got.push_back(Id(o));
        if (next.max || out.empty()) break;
        start = next;
      }
      if (got != want) {
        std::string s = name + ": listing (page " + std::to_string(page) + ") store [";
        for (auto& g : got) s += g + " ";
        s += "] model [";
        for (auto& w : want) s += w + " ";
        return s + "]";
      }
    }
    auto empty = store->CollectionEmpty(name);
    if (!empty.ok() || *empty != c.objs.empty()) return name + ": CollectionEmpty disagrees";
    for (const auto& [oid, o] : c.objs) {
      std::string d = DiffObject(store, name, oid, *o);
      if (!d.empty()) return d;
    }
  }
  return "";
}

// ---------------------------------------------------------------------------------------
// The random transaction generator

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {
    const std::vector<int64_t> pools = {1, 1, 1, 2, -3};
    const std::vector<std::string> nspaces = {"", "", "", "ns"};
    const std::vector<uint64_t> snaps = {ObjectId::kNoSnap, ObjectId::kNoSnap,
                                         ObjectId::kNoSnap, 4, ObjectId::kSnapDir};
    for (int i = 0; i < 24; ++i) {
      ObjectId o;
      o.pool = Pick(pools);
      o.nspace = Pick(nspaces);
      o.name = "obj" + std::to_string(i) + (i % 5 == 0 ? std::string("\0x", 2) : "");
      if (i % 7 == 3) o.key = "loc" + std::to_string(i % 2);
      o.snap = Pick(snaps);
      o.hash = static_cast<uint32_t>(rng_());
      if (i % 6 == 5) o.hash = oids_[i - 1].hash;  // equal hashes: later fields decide
      if (i % 11 == 4) o.generation = 7;
      if (i % 9 == 8) o.shard = 1;
      oids_.push_back(o);
    }
    colls_ = {"1.0_head", "1.1_head", "2.0_head", "2.3_head", "meta"};
  }

  uint64_t Uniform(uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_);
  }
  bool Chance(int percent) { return Uniform(0, 99) < static_cast<uint64_t>(percent); }
  template <typename V>
  const typename V::value_type& Pick(const V& v) {
    return v[Uniform(0, v.size() - 1)];
  }
  std::mt19937_64& rng() { return rng_; }

  std::string Data(size_t n) {
    std::string s(n, '\0');
    testing::FillPattern(rng_(), 0, s.data(), n);
    return s;
  }
  std::string Value() {
    const uint64_t n = Chance(5) ? Uniform(100, 3000) : Uniform(0, 40);
    std::string s = Data(n);
    return s;
  }
  std::string Key() {
    if (Chance(5)) return std::string("\0k", 2) + std::to_string(Uniform(0, 3));
    if (Chance(3)) return "\xff" + std::to_string(Uniform(0, 3));
    return "k" + std::to_string(Uniform(0, 15));
  }
  std::string AttrName() { return Chance(10) ? "_" : "a" + std::to_string(Uniform(0, 7)); }

  // Applies the ops added to `t` since `from` to the scratch model. Used while building.
  void Advance(Model* scratch, Undo* undo, const Transaction& t, size_t from) {
    for (size_t i = from; i < t.ops().size(); ++i) {
      const Op& op = t.ops()[i];
      undo->Save(*scratch, op.coll);
      undo->Save(*scratch, op.dest_coll);
      (void)ModelOp(scratch, op);  // a failing op leaves the scratch as it was
    }
  }

  // Builds a transaction op by op against `m` (restored before returning).
  Transaction Build(Model* m) {
    Transaction t;
    Undo undo;
    size_t done = 0;
    auto advance = [&] {
      Advance(m, &undo, t, done);
      done = t.ops().size();
    };
    if (m->size() < 2 || Chance(2)) {
      t.MkColl(Pick(colls_), static_cast<uint32_t>(Uniform(0, 5)));
      advance();
    }
    const int n = static_cast<int>(Chance(30) ? Uniform(4, 10) : Uniform(1, 3));
    const bool poison = Chance(8);
    const int poison_at = static_cast<int>(Uniform(0, n - 1));
    for (int i = 0; i < n; ++i) {
      if (poison && i == poison_at) {
        AddFailing(*m, &t);
        advance();
      }
      AddRandom(*m, &t);
      advance();
    }
    undo.Revert(m);
    return t;
  }

 private:
  std::vector<std::string> Existing(const Model& m) {
    std::vector<std::string> v;
    for (const auto& [name, c] : m) v.push_back(name);
    return v;
  }
  std::string AnyColl(const Model& m) {
    std::vector<std::string> v = Existing(m);
    if (v.empty() || Chance(3)) return Pick(colls_);
    return Pick(v);
  }
  // Mostly an object that exists in `coll`.
  ObjectId AnyObj(const Model& m, const std::string& coll) {
    auto it = m.find(coll);
    if (it != m.end() && !it->second.objs.empty() && Chance(75)) {
      auto o = it->second.objs.begin();
      std::advance(o, Uniform(0, it->second.objs.size() - 1));
      return o->first;
    }
    return Pick(oids_);
  }
  std::optional<ObjectId> ExistingObj(const Model& m, const std::string& coll) {
    auto it = m.find(coll);
    if (it == m.end() || it->second.objs.empty()) return std::nullopt;
    auto o = it->second.objs.begin();
    std::advance(o, Uniform(0, it->second.objs.size() - 1));
    return o->first;
  }
  std::optional<ObjectId> MissingObj(const Model& m, const std::string& coll) {
    auto it = m.find(coll);
    for (int i = 0; i < 10; ++i) {
      const ObjectId& o = Pick(oids_);
      if (it == m.end() || !it->second.objs.count(o)) return o;
    }
    return std::nullopt;
  }
  // No object of `src` that would move would land on an existing object of `dst`.
  static bool MoveIsClean(const MColl& src, const MColl& dst, bool all, uint32_t bits,
                          uint32_t rem) {
    const uint32_t mask = bits >= 32 ? 0xffffffffu : ((1u << bits) - 1);
    for (const auto& [oid, o] : src.objs) {
      if ((all || (oid.hash & mask) == rem) && dst.objs.count(oid)) return false;
    }
    return true;
  }

  void AddRandom(const Model& m, Transaction* t) {
    const std::string c = AnyColl(m);
    const uint64_t r = Uniform(0, 99);
    // Ops that fail on a missing object mostly name an existing one, so that most
    // transactions commit; the others may name any object.
    const bool needs_object = (r >= 37 && r < 48) || (r >= 50 && r < 75);
    ObjectId o = AnyObj(m, c);
    if (needs_object && Chance(92)) {
      if (auto e = ExistingObj(m, c)) o = *e;
    }
    auto len_small = [&] {
      const uint64_t k = Uniform(0, 99);
      if (k < 65) return Uniform(1, 4096);
      if (k < 95) return Uniform(4097, 64 * 1024);
      return Uniform(64 * 1024, 128 * 1024);
    };
    if (r < 22) {
      const uint64_t len = len_small();
      const uint64_t off = Chance(30) ? 0 : Uniform(0, kMaxObject - len);
      t->Write(c, o, off, Data(len));
    } else if (r < 26) {
      const uint64_t len = Uniform(1, 64 * 1024);
      t->Zero(c, o, Uniform(0, kMaxObject - len), len);
    } else if (r < 30) {
      t->Truncate(c, o, Chance(50) ? Uniform(0, 8192) : Uniform(0, kMaxObject));
    } else if (r < 33) {
      t->Touch(c, o);
    } else if (r < 37) {
      t->Remove(c, o);
    } else if (r < 45) {
      Kv kv;
      const int n = static_cast<int>(Uniform(1, 3));
      for (int i = 0; i < n; ++i) kv[AttrName()] = Value();
      if (n == 1 && Chance(50)) {
        t->SetAttr(c, o, kv.begin()->first, kv.begin()->second);
      } else {
        t->SetAttrs(c, o, kv);
      }
    } else if (r < 48) {
      t->RmAttr(c, o, AttrName());
    } else if (r < 50) {
      t->RmAttrs(c, o);
    } else if (r < 54) {
      ObjectId d = AnyObj(m, c);
      if (d == o) d = Pick(oids_);
      if (d == o) return;
      t->Clone(c, o, d);
    } else if (r < 58) {
      ObjectId d = AnyObj(m, c);
      if (d == o) d = Pick(oids_);
      if (d == o) return;
      const uint64_t len = Uniform(0, 64 * 1024);
      const uint64_t src_off = Chance(20) ? Uniform(0, kMaxObject) : Uniform(0, 16 * 1024);
      t->CloneRange(c, o, d, src_off, len, Uniform(0, kMaxObject - len));
    } else if (r < 66) {
      Kv kv;
      const int n = static_cast<int>(Uniform(1, 6));
      for (int i = 0; i < n; ++i) kv[Key()] = Value();
      t->OmapSetKeys(c, o, kv);
    } else if (r < 69) {
      std::set<std::string> keys;
      const int n = static_cast<int>(Uniform(1, 4));
      for (int i = 0; i < n; ++i) keys.insert(Key());
      t->OmapRmKeys(c, o, keys);
    } else if (r < 72) {
      std::string a = Key(), b = Key();
      if (b < a && Chance(80)) std::swap(a, b);
      t->OmapRmKeyRange(c, o, a, b);
    } else if (r < 75) {
      t->OmapSetHeader(c, o, Value());
    } else if (r < 77) {
      t->OmapClear(c, o);
    } else if (r < 81) {
      const std::string dc = Chance(60) ? c : AnyColl(m);
      std::optional<ObjectId> d = Chance(85) ? MissingObj(m, dc) : std::nullopt;
      t->CollMoveRename(c, o, dc, d ? *d : AnyObj(m, dc));
    } else if (r < 83) {
      std::optional<ObjectId> d = Chance(85) ? MissingObj(m, c) : std::nullopt;
      t->TryRename(c, o, d ? *d : Pick(oids_));
    } else if (r < 86) {
      std::string nc = Pick(colls_);
      for (int i = 0; i < 5 && m.count(nc) && Chance(85); ++i) nc = Pick(colls_);
      t->MkColl(nc, static_cast<uint32_t>(Uniform(0, 5)));
    } else if (r < 88) {
      // Remove every object of a collection, then the collection (a PG removal).
      if (avoid_known_bugs_ && !t->empty()) return;
      const std::string rc = AnyColl(m);
      auto it = m.find(rc);
      if (it != m.end() && it->second.objs.size() <= 4) {
        for (const auto& [oid, x] : it->second.objs) t->Remove(rc, oid);
      }
      t->RmColl(rc);
    } else if (r < 92) {
      std::vector<std::string> ex = Existing(m);
      if (ex.size() < 2 || (avoid_known_bugs_ && !t->empty())) return;
      const std::string a = Pick(ex);
      std::string b = Pick(ex);
      if (a == b) return;
      const uint32_t bits = static_cast<uint32_t>(Uniform(1, 4));
      const uint32_t rem = static_cast<uint32_t>(Uniform(0, (1u << bits) - 1));
      if (!MoveIsClean(m.at(a), m.at(b), false, bits, rem)) return;
      t->SplitCollection(a, bits, rem, b);
    } else if (r < 93) {
      std::vector<std::string> ex = Existing(m);
      if (ex.size() < 3) return;  // keep at least two collections
      if (avoid_known_bugs_ && !t->empty()) return;
      const std::string a = Pick(ex);
      std::string b = Pick(ex);
      if (a == b || !MoveIsClean(m.at(a), m.at(b), true, 0, 0)) return;
      t->MergeCollection(a, b, static_cast<uint32_t>(Uniform(0, 5)));
    } else if (r < 94) {
      t->Touch(c, o);
    } else if (r < 95) {
      t->CollSetBits(c, static_cast<uint32_t>(Uniform(0, 8)));
    } else if (r < 97) {
      if (auto e = ExistingObj(m, c)) {
        t->SetAllocHint(c, *e, Uniform(0, 4 << 20), Uniform(0, 1 << 20),
                        static_cast<uint32_t>(Uniform(0, 3)));
      }
    } else if (r < 98) {
      if (m.count(c)) t->CollHint(c);
    } else {
      t->Nop();
    }
  }

  // An op that must fail the transaction (if the model agrees at that point).
  void AddFailing(const Model& m, Transaction* t) {
    std::vector<std::string> ex = Existing(m);
    if (ex.empty()) return;
    const std::string c = Pick(ex);
    switch (Uniform(0, 6)) {
      case 0:
        if (auto o = MissingObj(m, c)) t->SetAttr(c, *o, "x", "y");
        break;
      case 1:
        if (auto o = MissingObj(m, c)) t->OmapSetKeys(c, *o, {{"x", "y"}});
        break;
      case 2:
        if (auto o = MissingObj(m, c)) t->Clone(c, *o, Pick(oids_));
        break;
      case 3:
        t->MkColl(c, 0);
        break;
      case 4:
        if (!m.at(c).objs.empty() && !(avoid_known_bugs_ && !t->empty())) t->RmColl(c);
        break;
      case 5: {
        auto a = ExistingObj(m, c), b = ExistingObj(m, c);
        if (a && b && !(*a == *b)) t->CollMoveRename(c, *a, c, *b);
        break;
      }
      default:
        t->Write("99.0_head", Pick(oids_), 0, "x");
        break;
    }
  }

  // SMRSTORE_MODEL_AVOID_KNOWN_BUGS=1 (triage only): rmcoll/split/merge only as the first
  // op of a transaction, which sidestepped the planner's stale-batch bug (fixed in fd690e8;
  // see StoreConformance.WriteThenSplitInOneTransaction) so a run could look for others.
  const bool avoid_known_bugs_ = [] {
    const char* v = std::getenv("SMRSTORE_MODEL_AVOID_KNOWN_BUGS");
    return v != nullptr && *v == '1';
  }();
  std::mt19937_64 rng_;
  std::vector<ObjectId> oids_;
  std::vector<std::string> colls_;
};

// ---------------------------------------------------------------------------------------
// The test

uint64_t EnvU64(const char* name, uint64_t dflt) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return dflt;
  return std::strtoull(v, nullptr, 10);
}

std::vector<uint64_t> Seeds() {
  const char* v = std::getenv("SMRSTORE_MODEL_SEED");
  if (v != nullptr && *v != '\0') return {std::strtoull(v, nullptr, 10)};
  return {1, 2, 3};
}

class StoreModelTest : public ::testing::TestWithParam<uint64_t> {
 protected:
  void SetUp() override {
    seed_ = GetParam();
    txns_ = EnvU64("SMRSTORE_MODEL_TXNS", 500);
    // Vary the layout: seed%3 == 0 keeps small objects inline and splits records at 16 KiB;
    // seed%3 == 1 splits at 32 KiB; seed%3 == 2 uses the defaults.
    if (seed_ % 3 == 0) {
      options_.inline_max = 2048;
      options_.max_record_payload = 16 * 1024;
      options_.small_write_max = 8 * 1024;
    } else if (seed_ % 3 == 1) {
      options_.max_record_payload = 32 * 1024;
    }
    specs_ = testing::StoreTestSpecs(
        {"emu:" + dir_.path() + "/d0.img?zones=40&zone_mib=4&conv=1&max_open=8",
         "emu:" + dir_.path() + "/d1.img?zones=40&zone_mib=4&conv=1&max_open=8"});
    ASSERT_OK(Store::Mkfs(dir_.path() + "/store", specs_, options_,
                          /*force=*/testing::StoreTestOnKernelDevices()));
    for (const std::string& spec : specs_) {
      auto dev = OpenDevice(spec);
      ASSERT_TRUE(dev.ok()) << dev.status().ToString();
      drives_.push_back(std::make_unique<FaultInjectionDevice>(std::move(*dev)));
    }
    Mount();
  }

  void TearDown() override {
    if (store_) (void)store_->Close();
    store_.reset();
    drives_.clear();
  }

  void Mount() {
    Store::DeviceOpener opener =
        [this](const std::string& spec) -> Result<std::unique_ptr<ZonedDevice>> {
      for (size_t i = 0; i < specs_.size(); ++i) {
        if (specs_[i] == spec) {
          return std::unique_ptr<ZonedDevice>(
              std::make_unique<testing::BorrowedDevice>(drives_[i].get()));
        }
      }
      return Status::NotFound("test opener: unknown spec " + spec);
    };
    auto s = Store::Open(dir_.path() + "/store", opener);
    ASSERT_TRUE(s.ok()) << "mount: " << s.status().ToString();
    store_ = std::move(*s);
  }

  void CleanRemount() {
    ++remounts_;
    ASSERT_OK(store_->Close());
    store_.reset();
    Mount();
  }

  // Stops the drives, cuts power, drops the store, and remounts on the same drives.
  void PowerCutAndRemount(std::mt19937_64& rng) {
    ++power_cuts_;
    for (auto& d : drives_) d->FailNthWrite(1, /*sticky=*/true);
    const auto mode = rng() % 2 ? FaultInjectionDevice::PowerCutMode::kTornUnflushed
                                : FaultInjectionDevice::PowerCutMode::kLoseUnflushed;
    for (auto& d : drives_) ASSERT_OK(d->PowerCut(mode, rng()));
    (void)store_->Close();  // may fail: the drives refuse writes
    store_.reset();
    for (auto& d : drives_) d->ClearFaults();
    Mount();
  }

  void ExpectSameAsModel(const char* when) {
    const std::string diff = DiffStore(store_.get(), model_);
    ASSERT_EQ(diff, "") << "seed " << seed_ << ", after txn " << txn_index_ << " (" << when
                        << "); last transaction:\n"
                        << last_txn_;
    auto r = store_->Fsck(/*deep=*/true, /*repair=*/false);
    ASSERT_TRUE(r.ok()) << "seed " << seed_ << ": fsck: " << r.status().ToString();
    std::string errors;
    for (size_t i = 0; i < r->errors.size() && i < 5; ++i) errors += r->errors[i] + "\n";
    ASSERT_TRUE(r->ok()) << "seed " << seed_ << ", after txn " << txn_index_ << " (" << when
                         << "): fsck found " << r->errors.size() << " errors:\n"
                         << errors << "last transaction:\n"
                         << last_txn_;
  }

  // Checks the objects a transaction named (cheaper than a full comparison).
  void ExpectTouchedSameAsModel(const Transaction& t) {
    std::set<std::pair<std::string, std::string>> seen;
    for (const Op& op : t.ops()) {
      std::vector<std::pair<std::string, ObjectId>> named = {{op.coll, op.oid},
                                                             {op.coll, op.dest_oid}};
      if (!op.dest_coll.empty()) named.emplace_back(op.dest_coll, op.dest_oid);
      for (const auto& [c, o] : named) {
        if (!seen.insert({c, Id(o)}).second) continue;
        auto cit = model_.find(c);
        const MObj* want = nullptr;
        if (cit != model_.end()) {
          auto oit = cit->second.objs.find(o);
          if (oit != cit->second.objs.end()) want = oit->second.get();
        }
        std::string diff;
        if (want == nullptr) {
          auto exists = store_->Exists(c, o);
          if (!exists.ok()) {
            diff = c + "/" + o.ToString() + ": Exists: " + exists.status().ToString();
          } else if (*exists) {
            diff = c + "/" + o.ToString() + " exists, model: absent";
          }
        } else {
          diff = DiffObject(store_.get(), c, o, *want);
        }
        ASSERT_EQ(diff, "") << "seed " << seed_ << ", txn " << txn_index_ << ":\n"
                            << DescribeTxn(t);
      }
    }
  }

  // Runs `count` random transactions: without a fault, submitted back to back (they may be
  // group-committed); with a write fault armed on one drive, applied one by one. Returns
  // through *io_failed whether a commit failed for an I/O reason (after which nothing may
  // commit).
  void RunBurst(Generator* gen, int count, bool fault, bool* io_failed) {
    std::vector<Transaction> txns;
    std::vector<Status> predicted;
    std::vector<Undo> undos;
    for (int i = 0; i < count; ++i) {
      txns.push_back(gen->Build(&model_));
      Undo u;
      predicted.push_back(ModelApply(&model_, txns.back(), &u));
      undos.push_back(std::move(u));
    }
    if (fault) {
      FaultInjectionDevice* d = drives_[gen->Uniform(0, drives_.size() - 1)].get();
      d->FailNthWrite(gen->Uniform(1, 6), /*sticky=*/gen->Chance(50));
    }
    std::vector<Status> results(count);
    if (fault) {
      // One at a time, so that which write fails (and so what commits) does not depend on
      // how the commit thread happens to group transactions: a seed replays exactly.
      for (int i = 0; i < count; ++i) results[i] = store_->Apply(txns[i]);
    } else {
      std::mutex mu;
      std::condition_variable cv;
      std::vector<int> order;
      for (int i = 0; i < count; ++i) {
        Transaction copy = txns[i];
        store_->Submit(std::move(copy), [&, i](const Status& s) {
          std::lock_guard<std::mutex> lock(mu);
          results[i] = s;
          order.push_back(i);
          cv.notify_all();
        });
      }
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return static_cast<int>(order.size()) == count; });
      }
      for (int i = 0; i < count; ++i) {
        ASSERT_EQ(order[i], i) << "seed " << seed_ << ": callbacks out of submission order";
      }
    }
    // Decide what committed; undo (newest first) the predicted successes that did not.
    *io_failed = false;
    std::vector<int> to_undo;
    for (int i = 0; i < count; ++i) {
      txn_index_++;
      last_txn_ = DescribeTxn(txns[i]);
      const Status& s = results[i];
      const Status& p = predicted[i];
      if (s.ok()) {
        ASSERT_TRUE(p.ok()) << "seed " << seed_ << ", txn " << txn_index_
                            << ": store committed a transaction the model rejects ("
                            << p.ToString() << "):\n"
                            << last_txn_;
        ASSERT_FALSE(*io_failed) << "seed " << seed_ << ", txn " << txn_index_
                                 << ": committed after an earlier commit failed";
        continue;
      }
      if (p.ok()) {
        ASSERT_TRUE(fault) << "seed " << seed_ << ", txn " << txn_index_
                           << ": store failed a transaction the model accepts: "
                           << s.ToString() << "\n"
                           << last_txn_;
        *io_failed = true;
        to_undo.push_back(i);
      } else if (!fault) {
        ASSERT_EQ(s.code(), p.code())
            << "seed " << seed_ << ", txn " << txn_index_ << ": store says " << s.ToString()
            << ", model says " << p.ToString() << "\n"
            << last_txn_;
      }
    }
    for (auto it = to_undo.rbegin(); it != to_undo.rend(); ++it) undos[*it].Revert(&model_);
  }

  uint64_t seed_ = 0;
  uint64_t txns_ = 0;
  ScratchDir dir_;
  StoreOptions options_;
  std::vector<std::string> specs_;
  std::vector<std::unique_ptr<FaultInjectionDevice>> drives_;  // outlive every mount
  std::unique_ptr<Store> store_;
  Model model_;
  uint64_t txn_index_ = 0;
  std::string last_txn_;
  int remounts_ = 0, power_cuts_ = 0, fault_bursts_ = 0, io_failures_ = 0, failed_txns_ = 0;
};

TEST_P(StoreModelTest, RandomTransactionsRemountsAndPowerCuts) {
  SCOPED_TRACE("SMRSTORE_MODEL_SEED=" + std::to_string(seed_));
  Generator gen(seed_);
  std::mt19937_64& rng = gen.rng();
  {
    Transaction t;
    t.MkColl("1.0_head", 3);
    t.MkColl("meta", 0);
    ASSERT_OK(store_->Apply(t));
    ASSERT_OK(ModelApply(&model_, t));
  }
  while (txn_index_ < txns_) {
    const uint64_t r = gen.Uniform(0, 999);
    if (r < 25) {
      CleanRemount();
      ASSERT_FALSE(HasFatalFailure());
      ExpectSameAsModel("clean remount");
    } else if (r < 40) {
      PowerCutAndRemount(rng);
      ASSERT_FALSE(HasFatalFailure());
      ExpectSameAsModel("power cut");
    } else if (r < 55) {
      // Zone GC relocates live data: the state must not change. Sometimes a power cut
      // follows at once (GC's relocations and resets are then half done or not at all).
      auto gc = store_->RunGc(static_cast<uint32_t>(gen.Uniform(1, 4)));
      ASSERT_TRUE(gc.ok()) << "seed " << seed_ << ": " << gc.status().ToString();
      ExpectSameAsModel("gc");
      if (gen.Chance(30)) {
        PowerCutAndRemount(rng);
        ASSERT_FALSE(HasFatalFailure());
        ExpectSameAsModel("gc + power cut");
      }
    } else if (r < 70) {
      const bool fault = gen.Chance(50);
      bool io_failed = false;
      RunBurst(&gen, static_cast<int>(gen.Uniform(2, 12)), fault, &io_failed);
      ASSERT_FALSE(HasFatalFailure());
      if (fault) {
        ++fault_bursts_;
        io_failures_ += io_failed ? 1 : 0;
        PowerCutAndRemount(rng);
        ASSERT_FALSE(HasFatalFailure());
        ExpectSameAsModel(io_failed ? "write fault + power cut" : "armed fault + power cut");
      }
    } else {
      Transaction t = gen.Build(&model_);
      last_txn_ = DescribeTxn(t);
      ++txn_index_;
      Undo u;
      const Status want = ModelApply(&model_, t, &u);
      const Status got = store_->Apply(t);
      if (!want.ok()) ++failed_txns_;
      ASSERT_EQ(got.code(), want.code())
          << "seed " << seed_ << ", txn " << txn_index_ << ": store says " << got.ToString()
          << ", model says " << want.ToString() << "\n"
          << last_txn_;
      ExpectTouchedSameAsModel(t);
      ASSERT_FALSE(HasFatalFailure());
      bool coll_op = false;
      for (const Op& op : t.ops()) {
        coll_op |= op.code == C::kMkColl || op.code == C::kRmColl ||
                   op.code == C::kSplitCollection || op.code == C::kMergeCollection;
      }
      if (coll_op && !want.ok()) coll_op = false;
      if (coll_op) {
        ExpectSameAsModel("collection op");
        ASSERT_FALSE(HasFatalFailure());
      }
    }
  }
  ExpectSameAsModel("end");
  ASSERT_FALSE(HasFatalFailure());
  CleanRemount();
  ASSERT_FALSE(HasFatalFailure());
  ExpectSameAsModel("final remount");
  size_t objects = 0;
  for (const auto& [n, c] : model_) objects += c.objs.size();
  std::printf("[ model    ] seed %llu: %llu txns (%d rejected), %d remounts, %d power cuts, "
              "%d fault bursts (%d hit), %zu collections, %zu objects at the end\n",
              static_cast<unsigned long long>(seed_),
              static_cast<unsigned long long>(txn_index_), failed_txns_, remounts_,
              power_cuts_, fault_bursts_, io_failures_, model_.size(), objects);
}

INSTANTIATE_TEST_SUITE_P(StoreModel, StoreModelTest, ::testing::ValuesIn(Seeds()),
                         [](const ::testing::TestParamInfo<uint64_t>& info) {
                           return "seed" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace smr
