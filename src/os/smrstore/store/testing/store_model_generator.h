// The random transaction generator of the store's model test (store/store_model_test.cc):
// multi-op transactions over a fixed set of 24 object ids (equal hashes, keys, namespaces,
// snaps, generations and shards among them, so that listing order is exercised) and five
// collection names, built op by op against the reference model
// (store/testing/store_model.h) so that most ops are meaningful where they stand: they
// mostly name objects that exist, moves and splits that would land on an existing object
// are avoided, and about one transaction in twelve gets an op that must fail it.
// Deterministic for a seed.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "device/testing/device_test_backends.h"
#include "format/object_id.h"
#include "store/testing/store_model.h"
#include "store/transaction.h"

namespace smr::store_model {

inline constexpr uint64_t kMaxObject = 256 * 1024;  // objects stay within this size

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
  // A collection the generated transactions leave alone (a test drives it itself).
  void Reserve(const std::string& coll) { reserved_.insert(coll); }

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
    for (const auto& [name, c] : m) {
      if (!reserved_.count(name)) v.push_back(name);
    }
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
  std::set<std::string> reserved_;
  std::vector<ObjectId> oids_;
  std::vector<std::string> colls_;
};

}  // namespace smr::store_model
