// The fixture and helpers of the ObjectStore-semantics conformance suite, modelled on what
// Ceph's ceph_test_objectstore (src/test/objectstore/store_test.cc) checks, adapted to the
// Store API. Every case checks its expected state, remounts the store (Close + Open) and
// checks it again (StoreConformance::CheckAndRemount); the check also runs a deep fsck.
//
// The suite drives the store through smr::testing::StoreUnderTest
// (store/testing/store_under_test.h), so the same sources run twice: against the engine
// directly (smrstore_tests) and through the Ceph ObjectStore adapter SMRStore
// (smrstore_ceph_tests, objectstore/testing/objectstore_under_test.cc); CMakeLists.txt
// builds every store/store_conformance*_test.cc into both binaries. The suite's files:
//   store_conformance_test.cc               objects and their data: simple ops, holes,
//                                           zero/truncate, the object size limit,
//                                           overwrites, clone, clone_range, large and many
//                                           objects, hints, object name limits
//   store_conformance_attrs_omap_test.cc    attributes and omap
//   store_conformance_collections_test.cc   listing order and bounds, collection errors
//                                           and lifecycle, split/merge, move/rename
//   store_conformance_transactions_test.cc  all-or-nothing transactions, ops seeing earlier
//                                           ops of their transaction, concurrent
//                                           submitters, statfs
//
// Everything here is in the named namespace smr::conformance, not an anonymous one: gtest
// requires every test of the suite to use the one StoreConformance class, across the
// suite's translation units.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "store/store.h"
#include "store/testing/store_under_test.h"
#include "store/transaction.h"

namespace smr::conformance {

using testing::ScratchDir;
using testing::StoreUnderTest;
using Kv = std::map<std::string, std::string>;
using KvList = std::vector<std::pair<std::string, std::string>>;

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * 1024;

// Deterministic bytes: Bytes(seed, n) differs for different seeds.
inline std::string Bytes(uint64_t seed, size_t n) {
  std::string s(n, '\0');
  testing::FillPattern(seed, 0, s.data(), n);
  return s;
}

inline uint32_t NameHash(const std::string& name) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  return h;
}

inline ObjectId Obj(const std::string& name, int64_t pool = 1) {
  ObjectId o;
  o.pool = pool;
  o.name = name;
  o.hash = NameHash(name);
  return o;
}

inline ObjectId ObjH(const std::string& name, uint32_t hash) {
  ObjectId o = Obj(name);
  o.hash = hash;
  return o;
}

inline std::string Printable(const std::string& s, size_t max = 48) {
  std::ostringstream o;
  for (size_t i = 0; i < s.size() && i < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      o << c;
    } else {
      static const char* hex = "0123456789abcdef";
      o << "\\x" << hex[c >> 4] << hex[c & 15];
    }
  }
  if (s.size() > max) o << "...(" << s.size() << " bytes)";
  return o.str();
}

// Where two strings first differ, for failure messages of large data comparisons.
inline std::string FirstDiff(const std::string& got, const std::string& want) {
  if (got == want) return "equal";
  std::ostringstream o;
  o << "got " << got.size() << " bytes, want " << want.size();
  const size_t n = std::min(got.size(), want.size());
  for (size_t i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      o << "; first difference at byte " << i << " (got 0x" << std::hex
        << (static_cast<unsigned>(got[i]) & 0xff) << ", want 0x"
        << (static_cast<unsigned>(want[i]) & 0xff) << std::dec << ")";
      break;
    }
  }
  return o.str();
}

#define EXPECT_BYTES_EQ(got, want)                                               \
  do {                                                                           \
    const std::string g_ = (got), w_ = (want);                                   \
    EXPECT_TRUE(g_ == w_) << #got << " vs " << #want << ": " << FirstDiff(g_, w_); \
  } while (0)

// --- A full dump of the store's visible state, to compare before/after. ---

struct ObjState {
  uint64_t size = 0;
  std::string data;
  Kv attrs;
  std::string header;
  KvList omap;
  bool operator==(const ObjState& o) const {
    return size == o.size && data == o.data && attrs == o.attrs && header == o.header &&
           omap == o.omap;
  }
};

struct CollState {
  uint32_t bits = 0;
  std::vector<std::pair<ObjectId, ObjState>> objects;  // in listing order
};

using StoreState = std::map<std::string, CollState>;

// "" when equal, else the first difference.
inline std::string DiffStates(const StoreState& got, const StoreState& want) {
  std::vector<std::string> gk, wk;
  for (const auto& [k, v] : got) gk.push_back(k);
  for (const auto& [k, v] : want) wk.push_back(k);
  if (gk != wk) {
    std::string s = "collections differ: got {";
    for (auto& k : gk) s += k + " ";
    s += "} want {";
    for (auto& k : wk) s += k + " ";
    return s + "}";
  }
  for (const auto& [name, gc] : got) {
    const CollState& wc = want.at(name);
    if (gc.bits != wc.bits) {
      return name + ": bits " + std::to_string(gc.bits) + " vs " + std::to_string(wc.bits);
    }
    if (gc.objects.size() != wc.objects.size()) {
      return name + ": " + std::to_string(gc.objects.size()) + " objects vs " +
             std::to_string(wc.objects.size());
    }
    for (size_t i = 0; i < gc.objects.size(); ++i) {
      const auto& [go, gs] = gc.objects[i];
      const auto& [wo, ws] = wc.objects[i];
      if (!(go == wo)) {
        return name + ": object #" + std::to_string(i) + " is " + go.ToString() + ", want " +
               wo.ToString();
      }
      const std::string who = name + "/" + go.ToString();
      if (gs.size != ws.size) {
        return who + ": size " + std::to_string(gs.size) + " vs " + std::to_string(ws.size);
      }
      if (gs.data != ws.data) return who + ": data " + FirstDiff(gs.data, ws.data);
      if (gs.attrs != ws.attrs) return who + ": attrs differ";
      if (gs.header != ws.header) {
        return who + ": omap header '" + Printable(gs.header) + "' vs '" + Printable(ws.header) +
               "'";
      }
      if (gs.omap != ws.omap) {
        return who + ": omap differs (" + std::to_string(gs.omap.size()) + " vs " +
               std::to_string(ws.omap.size()) + " keys)";
      }
    }
  }
  return "";
}

// Lists a whole collection in one call.
inline std::vector<ObjectId> ListAll(StoreUnderTest* store, const std::string& coll,
                                     Status* status = nullptr) {
  std::vector<ObjectId> out;
  ObjectId next;
  Status s = store->ListObjects(coll, ObjectId::Min(), ObjectId::Max(), 0, &out, &next);
  if (status != nullptr) *status = s;
  return out;
}

inline std::vector<std::string> Names(const std::vector<ObjectId>& oids) {
  std::vector<std::string> out;
  for (const ObjectId& o : oids) out.push_back(o.name);
  return out;
}

class StoreConformance : public ::testing::Test {
 protected:
  static constexpr const char* kColl = "1.0_head";

  void SetUp() override {
    specs_ = testing::StoreTestSpecs(
        {"emu:" + dir_.path() + "/d0.img?zones=32&zone_mib=4&conv=1&max_open=8",
         "emu:" + dir_.path() + "/d1.img?zones=32&zone_mib=4&conv=1&max_open=8"});
    ASSERT_OK(testing::MkfsStoreUnderTest(dir_.path() + "/store", specs_, options_,
                                          /*force=*/testing::StoreTestOnKernelDevices()));
    Mount();
  }
  void TearDown() override {
    if (store_) EXPECT_OK(store_->Close());
    store_.reset();
  }

  void Mount() {
    auto s = testing::OpenStoreUnderTest(dir_.path() + "/store");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
  }
  void Remount() {
    ASSERT_OK(store_->Close());
    store_.reset();
    Mount();
  }

  Status Apply(Transaction t) { return store_->Apply(std::move(t)); }

  void MkColl(const std::string& c, uint32_t bits = 0) {
    Transaction t;
    t.MkColl(c, bits);
    ASSERT_OK(Apply(std::move(t)));
  }

  // Runs `check`, a deep fsck, remounts, and runs both again: every expected state must
  // survive a clean unmount.
  void CheckAndRemount(const std::function<void()>& check) {
    {
      SCOPED_TRACE("before remount");
      check();
      ExpectFsckClean();
    }
    if (HasFatalFailure()) return;
    Remount();
    if (HasFatalFailure()) return;
    {
      SCOPED_TRACE("after remount");
      check();
      ExpectFsckClean();
    }
  }

  void ExpectFsckClean() {
    auto r = store_->Fsck(/*deep=*/true, /*repair=*/false);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::string errors;
    for (size_t i = 0; i < r->errors.size() && i < 10; ++i) errors += r->errors[i] + "\n";
    EXPECT_TRUE(r->ok()) << r->errors.size() << " fsck errors:\n" << errors;
  }

  // The whole object, or "<error ...>" (never equal to real data expectations).
  std::string ReadAll(const std::string& c, const ObjectId& o) {
    auto r = store_->Read(c, o, 0, 0);
    if (!r.ok()) return "<error " + r.status().ToString() + ">";
    return *r;
  }
  std::string ReadRange(const std::string& c, const ObjectId& o, uint64_t off, uint64_t len) {
    auto r = store_->Read(c, o, off, len);
    if (!r.ok()) return "<error " + r.status().ToString() + ">";
    return *r;
  }
  uint64_t Size(const std::string& c, const ObjectId& o) {
    auto r = store_->Stat(c, o);
    EXPECT_TRUE(r.ok()) << c << "/" << o.ToString() << ": " << r.status().ToString();
    return r.ok() ? r->size : UINT64_MAX;
  }
  Kv Attrs(const std::string& c, const ObjectId& o) {
    auto r = store_->GetAttrs(c, o);
    EXPECT_TRUE(r.ok()) << c << "/" << o.ToString() << ": " << r.status().ToString();
    return r.ok() ? *r : Kv{{"<error>", r.status().ToString()}};
  }
  KvList Omap(const std::string& c, const ObjectId& o) {
    auto r = store_->ListOmap(c, o, nullptr, 0);
    EXPECT_TRUE(r.ok()) << c << "/" << o.ToString() << ": " << r.status().ToString();
    return r.ok() ? *r : KvList{{"<error>", r.status().ToString()}};
  }
  std::string Header(const std::string& c, const ObjectId& o) {
    auto r = store_->GetOmapHeader(c, o);
    EXPECT_TRUE(r.ok()) << c << "/" << o.ToString() << ": " << r.status().ToString();
    return r.ok() ? *r : "<error " + r.status().ToString() + ">";
  }
  uint64_t Stored() { return store_->Statfs().stored; }

  ObjState StateOf(const std::string& c, const ObjectId& o) {
    ObjState s;
    s.size = Size(c, o);
    s.data = ReadAll(c, o);
    s.attrs = Attrs(c, o);
    s.header = Header(c, o);
    s.omap = Omap(c, o);
    return s;
  }

  StoreState Dump() {
    StoreState out;
    auto colls = store_->ListCollections();
    EXPECT_TRUE(colls.ok()) << colls.status().ToString();
    if (!colls.ok()) return out;
    for (const std::string& c : *colls) {
      CollState& cs = out[c];
      auto bits = store_->CollectionBits(c);
      EXPECT_TRUE(bits.ok()) << bits.status().ToString();
      cs.bits = bits.ok() ? *bits : 0xdead;
      Status st;
      for (const ObjectId& o : ListAll(store_.get(), c, &st)) {
        cs.objects.emplace_back(o, StateOf(c, o));
      }
      EXPECT_OK(st);
    }
    return out;
  }

  ScratchDir dir_;
  std::vector<std::string> specs_;
  StoreOptions options_;
  std::unique_ptr<StoreUnderTest> store_;
};

}  // namespace smr::conformance
