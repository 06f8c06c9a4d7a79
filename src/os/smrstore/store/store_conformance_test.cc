// ObjectStore-semantics conformance suite for smrstore's Store, modelled on what Ceph's
// ceph_test_objectstore (src/test/objectstore/store_test.cc) checks, adapted to the Store
// API: simple ops, holes, zero/truncate, overwrites, attrs, omap, clone, clone_range, large
// and many objects, collection listing order and bounds, collection errors, split/merge,
// rename, hints, all-or-nothing transactions, ops seeing earlier ops of their transaction,
// concurrent submitters and statfs.
//
// Every case checks its expected state, remounts the store (Close + Open) and checks it
// again (CheckAndRemount); the check also runs a deep fsck.
//
// The suite drives the store through smr::testing::StoreUnderTest
// (store/testing/store_under_test.h), so the same source runs twice: against the engine
// directly (smrstore_tests) and through the Ceph ObjectStore adapter SMRStore
// (smrstore_ceph_tests, objectstore/testing/objectstore_under_test.cc).
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "store/store.h"
#include "store/testing/store_under_test.h"
#include "store/transaction.h"

namespace smr {
namespace {

using testing::ScratchDir;
using testing::StoreUnderTest;
using Kv = std::map<std::string, std::string>;
using KvList = std::vector<std::pair<std::string, std::string>>;

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * 1024;

// Deterministic bytes: Bytes(seed, n) differs for different seeds.
std::string Bytes(uint64_t seed, size_t n) {
  std::string s(n, '\0');
  testing::FillPattern(seed, 0, s.data(), n);
  return s;
}

uint32_t NameHash(const std::string& name) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  return h;
}

ObjectId Obj(const std::string& name, int64_t pool = 1) {
  ObjectId o;
  o.pool = pool;
  o.name = name;
  o.hash = NameHash(name);
  return o;
}

ObjectId ObjH(const std::string& name, uint32_t hash) {
  ObjectId o = Obj(name);
  o.hash = hash;
  return o;
}

std::string Printable(const std::string& s, size_t max = 48) {
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
std::string FirstDiff(const std::string& got, const std::string& want) {
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
std::string DiffStates(const StoreState& got, const StoreState& want) {
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
std::vector<ObjectId> ListAll(StoreUnderTest* store, const std::string& coll, Status* status = nullptr) {
  std::vector<ObjectId> out;
  ObjectId next;
  Status s = store->ListObjects(coll, ObjectId::Min(), ObjectId::Max(), 0, &out, &next);
  if (status != nullptr) *status = s;
  return out;
}

std::vector<std::string> Names(const std::vector<ObjectId>& oids) {
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

// ---------------------------------------------------------------------------------------
// Simple ops

TEST_F(StoreConformance, SimpleOps) {
  MkColl(kColl);
  const ObjectId a = Obj("a"), b = Obj("b"), z = Obj("z"), gone = Obj("gone");
  {
    Transaction t;
    t.Touch(kColl, a);
    t.Write(kColl, b, 0, "hello");
    t.Write(kColl, b, 5, " world");
    t.Write(kColl, z, 4096, "");  // a zero-length write creates the object, size 0
    t.Write(kColl, gone, 0, "soon removed");
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.Remove(kColl, gone);
    t.Remove(kColl, Obj("never-existed"));  // tolerated
    t.Touch(kColl, b);                      // touching an existing object keeps its data
    t.Write(kColl, b, 100, "");             // a zero-length write does not extend
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_TRUE(store_->Exists(kColl, a));
    EXPECT_EQ(Size(kColl, a), 0u);
    EXPECT_EQ(ReadAll(kColl, a), "");
    EXPECT_TRUE(store_->Exists(kColl, z));
    EXPECT_EQ(Size(kColl, z), 0u);
    EXPECT_EQ(Size(kColl, b), 11u);
    EXPECT_EQ(ReadAll(kColl, b), "hello world");
    EXPECT_EQ(ReadRange(kColl, b, 6, 5), "world");
    EXPECT_EQ(ReadRange(kColl, b, 6, 100), "world");  // read past EOF: what exists
    EXPECT_EQ(ReadRange(kColl, b, 3, 0), "lo world");  // len 0: to the end
    EXPECT_EQ(ReadRange(kColl, b, 11, 10), "");
    EXPECT_EQ(ReadRange(kColl, b, 1000, 10), "");
    EXPECT_EQ(ReadRange(kColl, b, 1000, 0), "");
    EXPECT_FALSE(store_->Exists(kColl, gone));
    EXPECT_FALSE(store_->Exists(kColl, Obj("never-existed")));
    EXPECT_CODE(store_->Read(kColl, gone, 0, 0).status(), kNotFound);
    EXPECT_CODE(store_->Stat(kColl, gone).status(), kNotFound);
    EXPECT_CODE(store_->GetAttrs(kColl, gone).status(), kNotFound);
    EXPECT_EQ(Names(ListAll(store_.get(), kColl)).size(), 3u);
  });
}

TEST_F(StoreConformance, HolesReadAsZeros) {
  MkColl(kColl);
  const ObjectId h = Obj("holey"), z = Obj("zeroed"), t0 = Obj("truncated");
  std::string model;
  auto put = [&](uint64_t off, const std::string& d) {
    if (model.size() < off + d.size()) model.resize(off + d.size(), '\0');
    model.replace(off, d.size(), d);
  };
  {
    Transaction t;
    t.Write(kColl, h, 1 * kMiB + 123, Bytes(1, 5000));
    put(1 * kMiB + 123, Bytes(1, 5000));
    t.Write(kColl, h, 10, "abc");
    put(10, "abc");
    t.Write(kColl, h, 3 * kMiB + 7, Bytes(2, 70000));
    put(3 * kMiB + 7, Bytes(2, 70000));
    t.Zero(kColl, z, 100, 1000);  // zero creates the object and extends it
    t.Touch(kColl, t0);
    t.Truncate(kColl, t0, 64 * kKiB);  // grow: a hole
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_BYTES_EQ(ReadAll(kColl, h), model);
    EXPECT_BYTES_EQ(ReadRange(kColl, h, 0, 4096), model.substr(0, 4096));
    EXPECT_BYTES_EQ(ReadRange(kColl, h, 1 * kMiB, 8192), model.substr(1 * kMiB, 8192));
    EXPECT_BYTES_EQ(ReadRange(kColl, h, 2 * kMiB, 4096), std::string(4096, '\0'));
    // Fiemap reports allocated ranges; the big hole is not one of them.
    auto fm = store_->Fiemap(kColl, h, 0, 0);
    ASSERT_TRUE(fm.ok()) << fm.status().ToString();
    for (const auto& [off, len] : *fm) {
      EXPECT_FALSE(off < 1 * kMiB + 123 && off + len > 13)
          << "fiemap range " << off << "+" << len << " covers the hole [13, 1 MiB+123)";
    }
    EXPECT_EQ(Size(kColl, z), 1100u);
    EXPECT_BYTES_EQ(ReadAll(kColl, z), std::string(1100, '\0'));
    EXPECT_EQ(Size(kColl, t0), 64 * kKiB);
    EXPECT_BYTES_EQ(ReadAll(kColl, t0), std::string(64 * kKiB, '\0'));
  });
}

// ---------------------------------------------------------------------------------------
// Zero and truncate

TEST_F(StoreConformance, ZeroAndTruncate) {
  MkColl(kColl);
  const ObjectId o = Obj("o");
  std::string model = Bytes(1, 3 * kMiB);
  auto apply_and_check = [&](Transaction t, const char* what) {
    SCOPED_TRACE(what);
    ASSERT_OK(Apply(std::move(t)));
    EXPECT_EQ(Size(kColl, o), model.size());
    EXPECT_BYTES_EQ(ReadAll(kColl, o), model);
  };
  {
    Transaction t;
    t.Write(kColl, o, 0, model);
    apply_and_check(std::move(t), "initial write");
  }
  auto zero = [&](uint64_t off, uint64_t len) {
    if (model.size() < off + len) model.resize(off + len, '\0');
    std::fill(model.begin() + off, model.begin() + off + len, '\0');
    Transaction t;
    t.Zero(kColl, o, off, len);
    return t;
  };
  auto truncate = [&](uint64_t size) {
    model.resize(size, '\0');
    Transaction t;
    t.Truncate(kColl, o, size);
    return t;
  };
  auto write = [&](uint64_t off, const std::string& d) {
    if (model.size() < off + d.size()) model.resize(off + d.size(), '\0');
    model.replace(off, d.size(), d);
    Transaction t;
    t.Write(kColl, o, off, d);
    return t;
  };
  apply_and_check(zero(100, 5000), "zero mid-extent");
  apply_and_check(zero(kMiB - 10, 20), "zero across a record boundary");
  apply_and_check(zero(3 * kMiB + 100, 4096), "zero beyond the end extends the object");
  apply_and_check(truncate(2 * kMiB + 333), "truncate shrinks mid-extent");
  apply_and_check(truncate(2 * kMiB + 512 * kKiB), "truncate grows: old bytes must not return");
  apply_and_check(truncate(2 * kMiB + 512 * kKiB), "truncate to the same size");
  apply_and_check(truncate(100), "shrink to 100");
  apply_and_check(write(200, "x"), "write past the end after a shrink: gap reads zeros");
  apply_and_check(truncate(0), "truncate to 0");
  apply_and_check(write(10, "after-zero"), "write after truncate to 0");
  {
    // Several in one transaction, ending with a grow.
    Transaction t = write(0, Bytes(3, 300 * kKiB));
    Transaction t2 = truncate(50 * kKiB);
    Transaction t3 = zero(10 * kKiB, 100 * kKiB);
    Transaction t4 = truncate(400 * kKiB);
    for (Transaction* x : {&t2, &t3, &t4}) {
      for (const auto& op : x->ops()) t.mutable_ops().push_back(op);
    }
    apply_and_check(std::move(t), "write/truncate/zero/truncate in one transaction");
  }
  {
    // Truncate of a missing object is a no-op (does not create it).
    Transaction t;
    t.Truncate(kColl, Obj("missing"), 4096);
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_EQ(Size(kColl, o), model.size());
    EXPECT_BYTES_EQ(ReadAll(kColl, o), model);
    EXPECT_FALSE(store_->Exists(kColl, Obj("missing")));
  });
}

// Offsets and hole lengths past 31 bits, up to the object size limit (BlueStore's
// OBJECT_MAX_SIZE, 4 GiB - 1: store/transaction.h); a range reaching it is refused.
TEST_F(StoreConformance, SparseObjectUpToTheObjectSizeLimit) {
  MkColl(kColl);
  const ObjectId o = Obj("sparse");
  const uint64_t far = (4ull << 30) - 16;  // "tail" ends 12 bytes below the limit
  {
    Transaction t;
    t.Write(kColl, o, 0, "head");
    t.Write(kColl, o, far, "tail");
    t.Write(kColl, o, (3ull << 30) + 10, "mid");
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.Zero(kColl, o, 2, far);  // a ~4 GiB zero over "ad", "mid" and "ta"
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_EQ(Size(kColl, o), far + 4);
    EXPECT_EQ(ReadRange(kColl, o, 0, 8), std::string("he\0\0\0\0\0\0", 8));
    EXPECT_EQ(ReadRange(kColl, o, (3ull << 30) + 8, 8), std::string(8, '\0'));
    EXPECT_EQ(ReadRange(kColl, o, far - 2, 0), std::string("\0\0\0\0il", 6));
    EXPECT_EQ(Stored(), 4u);
  });
  {
    Transaction t;
    t.Truncate(kColl, o, (3ull << 30) + 1);
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_EQ(Size(kColl, o), (3ull << 30) + 1);
    EXPECT_EQ(ReadRange(kColl, o, 0, 4), std::string("he\0\0", 4));
    EXPECT_EQ(ReadRange(kColl, o, 3ull << 30, 0), std::string(1, '\0'));
    EXPECT_EQ(Stored(), 2u);
  });
  {
    Transaction t;
    t.Write(kColl, o, Transaction::kMaxObjectSize - 2, "four");  // would end past the limit
    const Status s = Apply(std::move(t));
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_EQ(Size(kColl, o), (3ull << 30) + 1);  // unchanged
  }
}

// ---------------------------------------------------------------------------------------
// Overwrites

TEST_F(StoreConformance, RandomOverwritesMatchModel) {
  MkColl(kColl);
  const ObjectId o = Obj("big");
  std::string model = Bytes(7, 4 * kMiB + 777);
  {
    Transaction t;
    t.Write(kColl, o, 0, model);
    ASSERT_OK(Apply(std::move(t)));
  }
  std::mt19937_64 rng(42);
  auto uni = [&](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  for (int round = 0; round < 30; ++round) {
    Transaction t;
    const int ops = static_cast<int>(uni(1, 8));
    for (int i = 0; i < ops; ++i) {
      const uint64_t kind = uni(0, 9);
      const uint64_t off = uni(0, model.size() + 16 * kKiB);
      if (kind < 8) {
        const uint64_t len = uni(1, kind == 0 ? 200 * kKiB : 9000);
        const std::string d = Bytes(1000 + round * 16 + i, len);
        t.Write(kColl, o, off, d);
        if (model.size() < off + len) model.resize(off + len, '\0');
        model.replace(off, len, d);
      } else {
        const uint64_t len = uni(1, 20000);
        t.Zero(kColl, o, off, len);
        if (model.size() < off + len) model.resize(off + len, '\0');
        std::fill(model.begin() + off, model.begin() + off + len, '\0');
      }
    }
    ASSERT_OK(Apply(std::move(t)));
    ASSERT_EQ(Size(kColl, o), model.size()) << "round " << round;
    for (int r = 0; r < 4; ++r) {
      const uint64_t off = uni(0, model.size() - 1), len = uni(1, 100 * kKiB);
      const std::string want = model.substr(off, len);
      ASSERT_TRUE(ReadRange(kColl, o, off, len) == want)
          << "round " << round << " read " << off << "+" << len << ": "
          << FirstDiff(ReadRange(kColl, o, off, len), want);
    }
  }
  CheckAndRemount([&] {
    EXPECT_EQ(Size(kColl, o), model.size());
    EXPECT_BYTES_EQ(ReadAll(kColl, o), model);
  });
}

// ---------------------------------------------------------------------------------------
// Attributes

TEST_F(StoreConformance, Attrs) {
  MkColl(kColl);
  const ObjectId o = Obj("o"), missing = Obj("missing"), other = Obj("other");
  const std::string bin("\0\xff\x01zz", 5);
  const std::string big = Bytes(9, 64 * kKiB);
  {
    Transaction t;
    t.Write(kColl, o, 0, "data");
    t.SetAttr(kColl, o, "a", "1");
    t.SetAttrs(kColl, o, {{"b", "2"}, {"bin", bin}, {"empty", ""}, {"big", big}});
    t.SetAttr(kColl, o, "a", "one");  // overwrite
    t.Touch(kColl, other);
    t.SetAttrs(kColl, other, {{"x", "1"}, {"y", "2"}});
    ASSERT_OK(Apply(std::move(t)));
  }
  EXPECT_EQ(Attrs(kColl, o),
            (Kv{{"a", "one"}, {"b", "2"}, {"bin", bin}, {"empty", ""}, {"big", big}}));
  {
    Transaction t;
    t.RmAttr(kColl, o, "b");
    t.RmAttr(kColl, o, "no-such-attr");  // tolerated (ENODATA)
    t.RmAttrs(kColl, other);
    t.RmAttrs(kColl, missing);  // tolerated, does not create
    t.Truncate(kColl, o, 2);    // attrs survive data changes
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    // setattr on a missing object fails the transaction; the touch before it is undone.
    Transaction t;
    t.Touch(kColl, Obj("created-then-undone"));
    t.SetAttr(kColl, missing, "k", "v");
    EXPECT_CODE(Apply(std::move(t)), kNotFound);
  }
  {
    Transaction t;
    t.SetAttrs(kColl, missing, {{"k", "v"}});
    EXPECT_CODE(Apply(std::move(t)), kNotFound);
  }
  {
    Transaction t;
    t.RmAttr(kColl, missing, "k");
    EXPECT_CODE(Apply(std::move(t)), kNotFound);
  }
  CheckAndRemount([&] {
    EXPECT_EQ(Attrs(kColl, o), (Kv{{"a", "one"}, {"bin", bin}, {"empty", ""}, {"big", big}}));
    auto a = store_->GetAttr(kColl, o, "a");
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_EQ(*a, "one");
    auto e = store_->GetAttr(kColl, o, "empty");
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    EXPECT_EQ(*e, "");
    EXPECT_CODE(store_->GetAttr(kColl, o, "b").status(), kNoData);
    EXPECT_CODE(store_->GetAttr(kColl, o, "nope").status(), kNoData);
    EXPECT_CODE(store_->GetAttr(kColl, missing, "a").status(), kNotFound);
    EXPECT_CODE(store_->GetAttrs(kColl, missing).status(), kNotFound);
    EXPECT_EQ(Attrs(kColl, other), Kv{});
    EXPECT_TRUE(store_->Exists(kColl, other));
    EXPECT_FALSE(store_->Exists(kColl, missing));
    EXPECT_FALSE(store_->Exists(kColl, Obj("created-then-undone")));
    EXPECT_EQ(ReadAll(kColl, o), "da");
  });
}

// ---------------------------------------------------------------------------------------
// Omap

TEST_F(StoreConformance, Omap) {
  MkColl(kColl);
  const ObjectId o = Obj("o"), fresh = Obj("fresh"), missing = Obj("missing");
  Kv model;
  for (int i = 0; i < 20; ++i) {
    char k[8];
    std::snprintf(k, sizeof(k), "k%02d", i);
    model[k] = "v" + std::to_string(i);
  }
  model[std::string("\0a", 2)] = "nul-key";
  model["\xff\xfe"] = "high-key";
  model["k05a"] = Bytes(3, 10000);
  model["k10"] = "";
  {
    Transaction t;
    t.Write(kColl, o, 0, "data");
    t.OmapSetHeader(kColl, o, "hdr");
    t.OmapSetKeys(kColl, o, model);
    t.Touch(kColl, fresh);
    ASSERT_OK(Apply(std::move(t)));
  }
  auto as_list = [](const Kv& kv) { return KvList(kv.begin(), kv.end()); };
  EXPECT_EQ(Omap(kColl, o), as_list(model));
  EXPECT_EQ(Header(kColl, o), "hdr");
  // Pagination with after/max.
  for (size_t page : {1u, 3u, 7u, 100u}) {
    KvList all;
    std::string after;
    bool first = true;
    for (int guard = 0; guard < 100; ++guard) {
      auto r = store_->ListOmap(kColl, o, first ? nullptr : &after, page);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_LE(r->size(), page);
      if (r->empty()) break;
      all.insert(all.end(), r->begin(), r->end());
      after = r->back().first;
      first = false;
    }
    EXPECT_EQ(all, as_list(model)) << "page " << page;
  }
  {
    // `after` need not be a key: listing resumes at the next greater key.
    const std::string after = "k05";  // exists: next is k05a
    auto r = store_->ListOmap(kColl, o, &after, 2);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->size(), 2u);
    EXPECT_EQ((*r)[0].first, "k05a");
    EXPECT_EQ((*r)[1].first, "k06");
    const std::string between = "k07x";
    r = store_->ListOmap(kColl, o, &between, 1);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->size(), 1u);
    EXPECT_EQ((*r)[0].first, "k08");
  }
  {
    auto v = store_->GetOmapValues(kColl, o, {"k03", "missing", "k10", std::string("\0a", 2)});
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(*v, (Kv{{"k03", "v3"}, {"k10", ""}, {std::string("\0a", 2), "nul-key"}}));
  }
  {
    Transaction t;
    t.OmapRmKeys(kColl, o, {"k01", "missing-key"});
    t.OmapRmKeyRange(kColl, o, "k05", "k08");  // [k05, k08): k05 k05a k06 k07
    t.OmapRmKeyRange(kColl, o, "k15", "k15");  // empty range
    t.OmapRmKeyRange(kColl, o, "k19", "k12");  // first > last: nothing
    t.OmapSetKeys(kColl, o, {{"k02", "two"}, {"new", "n"}});
    ASSERT_OK(Apply(std::move(t)));
    for (const char* k : {"k01", "k05", "k05a", "k06", "k07"}) model.erase(k);
    model["k02"] = "two";
    model["new"] = "n";
  }
  EXPECT_EQ(Omap(kColl, o), as_list(model));
  // Omap ops on a missing object fail the transaction.
  {
    Transaction t;
    t.OmapSetKeys(kColl, missing, {{"a", "b"}});
    EXPECT_CODE(Apply(std::move(t)), kNotFound);
  }
  {
    Transaction t;
    t.OmapRmKeys(kColl, missing, {"a"});
    EXPECT_CODE(Apply(std::move(t)), kNotFound);
  }
  {
    Transaction t;
    t.OmapRmKeyRange(kColl, missing, "a", "b");
    EXPECT_CODE(Apply(std::move(t)), kNotFound);
  }
  {
    Transaction t;
    t.OmapSetHeader(kColl, missing, "h");
    EXPECT_CODE(Apply(std::move(t)), kNotFound);
  }
  {
    Transaction t;
    t.OmapClear(kColl, missing);  // tolerated, does not create
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_EQ(Omap(kColl, o), as_list(model));
    EXPECT_EQ(Header(kColl, o), "hdr");
    EXPECT_EQ(Omap(kColl, fresh), KvList{});
    EXPECT_EQ(Header(kColl, fresh), "");
    EXPECT_FALSE(store_->Exists(kColl, missing));
    EXPECT_CODE(store_->ListOmap(kColl, missing, nullptr, 0).status(), kNotFound);
    EXPECT_CODE(store_->GetOmapHeader(kColl, missing).status(), kNotFound);
    EXPECT_CODE(store_->GetOmapValues(kColl, missing, {"a"}).status(), kNotFound);
  });
  {
    Transaction t;
    t.OmapClear(kColl, o);
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_EQ(Omap(kColl, o), KvList{});
    EXPECT_EQ(Header(kColl, o), "");  // omap_clear removes the header too
    EXPECT_EQ(ReadAll(kColl, o), "data");
  });
}

TEST_F(StoreConformance, RemovedObjectDoesNotResurrectOmapOrAttrs) {
  MkColl(kColl);
  const ObjectId o = Obj("o");
  {
    Transaction t;
    t.Write(kColl, o, 0, "old data");
    t.SetAttr(kColl, o, "a", "old");
    t.OmapSetHeader(kColl, o, "old header");
    t.OmapSetKeys(kColl, o, {{"k", "old"}});
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.Remove(kColl, o);
    t.Touch(kColl, o);
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_EQ(Size(kColl, o), 0u);
    EXPECT_EQ(Attrs(kColl, o), Kv{});
    EXPECT_EQ(Header(kColl, o), "");
    EXPECT_EQ(Omap(kColl, o), KvList{});
  });
  {
    Transaction t;
    t.Remove(kColl, o);
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.Touch(kColl, o);
    t.OmapSetKeys(kColl, o, {{"other", "new"}});
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_EQ(Omap(kColl, o), (KvList{{"other", "new"}}));
    EXPECT_EQ(Header(kColl, o), "");
  });
}

// ---------------------------------------------------------------------------------------
// Clone

TEST_F(StoreConformance, CloneCopiesEverythingAndIsIndependent) {
  MkColl(kColl);
  const ObjectId src = Obj("src"), dst = Obj("dst"), sparse = Obj("sparse"),
                 sparse_clone = Obj("sparse-clone");
  std::string src_data = Bytes(1, 2 * kMiB + 500 * kKiB);
  {
    Transaction t;
    t.Write(kColl, src, 0, src_data);
    t.SetAttrs(kColl, src, {{"a", "1"}, {"b", "2"}});
    t.OmapSetHeader(kColl, src, "src-header");
    t.OmapSetKeys(kColl, src, {{"k1", "v1"}, {"k2", "v2"}, {"k3", "v3"}});
    t.Write(kColl, sparse, 3 * kMiB, "tail");
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.Clone(kColl, src, dst);
    t.Clone(kColl, sparse, sparse_clone);
    ASSERT_OK(Apply(std::move(t)));
  }
  ObjState want = StateOf(kColl, src);
  EXPECT_EQ(want.size, src_data.size());
  EXPECT_TRUE(StateOf(kColl, dst) == want);
  // Now change both sides; neither may see the other's change.
  {
    Transaction t;
    t.Write(kColl, src, 0, "SRC");
    t.SetAttr(kColl, src, "a", "src-a");
    t.OmapSetKeys(kColl, src, {{"k1", "src-v1"}, {"src-only", "x"}});
    t.OmapRmKeys(kColl, dst, {"k2"});
    t.Write(kColl, dst, kMiB, "DST");
    t.RmAttr(kColl, dst, "b");
    t.OmapSetHeader(kColl, dst, "dst-header");
    ASSERT_OK(Apply(std::move(t)));
  }
  std::string src_now = src_data, dst_now = src_data;
  src_now.replace(0, 3, "SRC");
  dst_now.replace(kMiB, 3, "DST");
  CheckAndRemount([&] {
    EXPECT_BYTES_EQ(ReadAll(kColl, src), src_now);
    EXPECT_BYTES_EQ(ReadAll(kColl, dst), dst_now);
    EXPECT_EQ(Attrs(kColl, src), (Kv{{"a", "src-a"}, {"b", "2"}}));
    EXPECT_EQ(Attrs(kColl, dst), (Kv{{"a", "1"}}));
    EXPECT_EQ(Omap(kColl, src),
              (KvList{{"k1", "src-v1"}, {"k2", "v2"}, {"k3", "v3"}, {"src-only", "x"}}));
    EXPECT_EQ(Omap(kColl, dst), (KvList{{"k1", "v1"}, {"k3", "v3"}}));
    EXPECT_EQ(Header(kColl, src), "src-header");
    EXPECT_EQ(Header(kColl, dst), "dst-header");
    EXPECT_EQ(Size(kColl, sparse_clone), 3 * kMiB + 4);
    std::string sparse_want(3 * kMiB, '\0');
    sparse_want += "tail";
    EXPECT_BYTES_EQ(ReadAll(kColl, sparse_clone), sparse_want);
  });
}

TEST_F(StoreConformance, CloneOntoExistingObjectReplacesIt) {
  MkColl(kColl);
  const ObjectId small = Obj("small"), bare = Obj("bare"), victim = Obj("victim"),
                 victim2 = Obj("victim2");
  {
    Transaction t;
    t.Write(kColl, small, 0, "small source");
    t.SetAttr(kColl, small, "s", "1");
    t.OmapSetHeader(kColl, small, "small-header");
    t.OmapSetKeys(kColl, small, {{"s1", "x"}});
    t.Write(kColl, bare, 0, "bare source, no attrs, no omap");
    for (const ObjectId& v : {victim, victim2}) {
      t.Write(kColl, v, 0, Bytes(5, 4 * kMiB));
      t.SetAttrs(kColl, v, {{"old", "attr"}, {"s", "old"}});
      t.OmapSetHeader(kColl, v, "old-header");
      t.OmapSetKeys(kColl, v, {{"old1", "a"}, {"old2", "b"}, {"s1", "old"}});
    }
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.Clone(kColl, small, victim);
    t.Clone(kColl, bare, victim2);
    ASSERT_OK(Apply(std::move(t)));
  }
  const uint64_t expected_stored = 2 * std::string("small source").size() +
                                   2 * std::string("bare source, no attrs, no omap").size();
  CheckAndRemount([&] {
    EXPECT_EQ(Size(kColl, victim), 12u);
    EXPECT_EQ(ReadAll(kColl, victim), "small source");
    EXPECT_EQ(Attrs(kColl, victim), (Kv{{"s", "1"}}));
    EXPECT_EQ(Header(kColl, victim), "small-header");
    EXPECT_EQ(Omap(kColl, victim), (KvList{{"s1", "x"}}));
    EXPECT_EQ(ReadAll(kColl, victim2), "bare source, no attrs, no omap");
    EXPECT_EQ(Attrs(kColl, victim2), Kv{});
    EXPECT_EQ(Header(kColl, victim2), "");
    EXPECT_EQ(Omap(kColl, victim2), KvList{});
    EXPECT_EQ(Stored(), expected_stored);
  });
  {
    // Clone from a missing source fails and leaves the destination alone.
    Transaction t;
    t.Clone(kColl, Obj("missing"), victim);
    EXPECT_CODE(Apply(std::move(t)), kNotFound);
    EXPECT_EQ(ReadAll(kColl, victim), "small source");
  }
}

TEST_F(StoreConformance, CloneRange) {
  MkColl(kColl);
  const ObjectId src = Obj("src"), d1 = Obj("d1"), d2 = Obj("d2"), d3 = Obj("d3"),
                 d4 = Obj("d4");
  const std::string s = Bytes(1, 200 * kKiB);
  std::string m2 = Bytes(2, 64 * kKiB), m3 = Bytes(3, 300 * kKiB);
  {
    Transaction t;
    t.Write(kColl, src, 0, s);
    t.Write(kColl, d2, 0, m2);
    t.Write(kColl, d3, 0, m3);
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    // Into a missing destination: creates it; bytes before dst_offset are a hole.
    t.CloneRange(kColl, src, d1, 1000, 5000, 3000);
    // Into an existing object, overlapping its data.
    t.CloneRange(kColl, src, d2, 0, 4096, 10000);
    // Straddling the source's end: the part past the end is a hole in the destination
    // (the destination's old bytes there are gone), the destination does not shrink.
    t.CloneRange(kColl, src, d3, s.size() - 100, 1000, 50);
    // Wholly past the source's end, into a new object: all hole.
    t.CloneRange(kColl, src, d4, 300 * kKiB, 4096, 0);
    ASSERT_OK(Apply(std::move(t)));
  }
  std::string m1 = std::string(3000, '\0') + s.substr(1000, 5000);
  m2.replace(10000, 4096, s.substr(0, 4096));
  m3.replace(50, 100, s.substr(s.size() - 100));
  m3.replace(150, 900, std::string(900, '\0'));
  {
    Transaction t;
    t.CloneRange(kColl, Obj("missing"), d1, 0, 10, 0);
    EXPECT_CODE(Apply(std::move(t)), kNotFound);
  }
  CheckAndRemount([&] {
    EXPECT_BYTES_EQ(ReadAll(kColl, d1), m1);
    EXPECT_BYTES_EQ(ReadAll(kColl, d2), m2);
    EXPECT_BYTES_EQ(ReadAll(kColl, d3), m3);
    EXPECT_EQ(Size(kColl, d4), 4096u);
    EXPECT_BYTES_EQ(ReadAll(kColl, d4), std::string(4096, '\0'));
    EXPECT_BYTES_EQ(ReadAll(kColl, src), s);
  });
}

// ---------------------------------------------------------------------------------------
// Large and many objects

TEST_F(StoreConformance, LargeObjects) {
  MkColl(kColl);
  const ObjectId big = Obj("big"), chunked = Obj("chunked");
  std::string m_big = Bytes(11, 24 * kMiB + 1234);
  std::string m_chunked;
  {
    Transaction t;
    t.Write(kColl, big, 0, m_big);
    ASSERT_OK(Apply(std::move(t)));
  }
  for (int i = 0; i < 4; ++i) {
    const std::string d = Bytes(20 + i, 3 * kMiB);
    Transaction t;
    t.Write(kColl, chunked, m_chunked.size(), d);
    m_chunked += d;
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    auto st = store_->Stat(kColl, big);
    ASSERT_TRUE(st.ok());
    EXPECT_GE(st->extents, 24u) << "a 24 MiB write is split into 1 MiB records";
  }
  {
    Transaction t;
    const std::string a = Bytes(30, 200), b = Bytes(31, 2 * kMiB);
    t.Write(kColl, big, kMiB - 100, a);
    t.Write(kColl, big, 5 * kMiB + 512 * kKiB, b);
    m_big.replace(kMiB - 100, a.size(), a);
    m_big.replace(5 * kMiB + 512 * kKiB, b.size(), b);
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_EQ(Size(kColl, big), m_big.size());
    for (uint64_t off : {uint64_t{0}, kMiB - 5, 2 * kMiB - 1, 5 * kMiB + 512 * kKiB - 3,
                         7 * kMiB + 512 * kKiB - 2, 24 * kMiB - 7}) {
      EXPECT_BYTES_EQ(ReadRange(kColl, big, off, 10), m_big.substr(off, 10));
    }
    EXPECT_BYTES_EQ(ReadAll(kColl, big), m_big);
    EXPECT_BYTES_EQ(ReadAll(kColl, chunked), m_chunked);
    EXPECT_EQ(Stored(), m_big.size() + m_chunked.size());
  });
  {
    Transaction t;
    t.Remove(kColl, chunked);
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_FALSE(store_->Exists(kColl, chunked));
    EXPECT_EQ(Stored(), m_big.size());
  });
}

TEST_F(StoreConformance, ManyObjects) {
  MkColl(kColl);
  constexpr int kN = 3000;
  std::mt19937 rng(7);
  std::map<std::string, std::string> model;  // name -> data
  for (int base = 0; base < kN; base += 150) {
    Transaction t;
    for (int i = base; i < base + 150; ++i) {
      const std::string name = "obj_" + std::to_string(i);
      const std::string d = Bytes(i, 1 + rng() % 4096);
      t.Write(kColl, Obj(name), 0, d);
      t.SetAttr(kColl, Obj(name), "_", name);
      model[name] = d;
    }
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    for (int i = 0; i < kN; i += 3) {
      const std::string name = "obj_" + std::to_string(i);
      t.Remove(kColl, Obj(name));
      model.erase(name);
    }
    ASSERT_OK(Apply(std::move(t)));
  }
  std::vector<ObjectId> want;
  for (const auto& [name, d] : model) want.push_back(Obj(name));
  std::sort(want.begin(), want.end(),
            [](const ObjectId& a, const ObjectId& b) { return Compare(a, b) < 0; });
  CheckAndRemount([&] {
    Status st;
    const std::vector<ObjectId> got = ListAll(store_.get(), kColl, &st);
    EXPECT_OK(st);
    EXPECT_EQ(Names(got), Names(want));
    int bad = 0;
    for (const auto& [name, d] : model) {
      if (ReadAll(kColl, Obj(name)) != d) ++bad;
    }
    EXPECT_EQ(bad, 0) << "objects whose data differs";
    uint64_t sum = 0;
    for (const auto& [name, d] : model) sum += d.size();
    EXPECT_EQ(Stored(), sum);
  });
}

// ---------------------------------------------------------------------------------------
// Collection listing

TEST_F(StoreConformance, ListOrderPaginationAndBounds) {
  MkColl(kColl);
  std::mt19937_64 rng(1234);
  auto pick = [&](auto const& v) { return v[rng() % v.size()]; };
  const std::vector<int64_t> pools = {-3, 1, 2, 7};
  const std::vector<uint32_t> hashes = {0, 1, 0x80000000u, 0x12345678u, 0xffffffffu,
                                        0x0000ffffu, 0xdeadbeefu};
  const std::vector<std::string> nspaces = {"", "ns1", "ns2", std::string("n\0s", 3)};
  const std::vector<std::string> keys = {"", "", "", "loc", "k1", "zz"};
  const std::vector<std::string> names = {"a", "ab", "b", "obj", "obj_1", "obj_10", "obj_2",
                                          std::string("a\0b", 3), "\xff", "rbd_data.1"};
  const std::vector<uint64_t> snaps = {ObjectId::kNoSnap, ObjectId::kNoSnap, ObjectId::kSnapDir,
                                       1, 5, 1ull << 40};
  const std::vector<uint64_t> gens = {ObjectId::kNoGen, ObjectId::kNoGen, 0, 3};
  const std::vector<int8_t> shards = {ObjectId::kNoShard, ObjectId::kNoShard, 0, 2};
  auto less = [](const ObjectId& a, const ObjectId& b) { return Compare(a, b) < 0; };
  auto random_id = [&] {
    ObjectId o;
    o.pool = pick(pools);
    o.hash = rng() % 3 ? pick(hashes) : static_cast<uint32_t>(rng());
    o.nspace = pick(nspaces);
    o.name = pick(names) + (rng() % 2 ? "" : std::to_string(rng() % 50));
    o.key = pick(keys);
    if (o.key == o.name) o.key.clear();
    o.snap = pick(snaps);
    o.generation = pick(gens);
    o.shard = pick(shards);
    return o;
  };
  std::set<ObjectId, decltype(less)> live(less);
  while (live.size() < 400) live.insert(random_id());
  {
    std::vector<ObjectId> all(live.begin(), live.end());
    std::shuffle(all.begin(), all.end(), rng);
    for (size_t i = 0; i < all.size(); i += 100) {
      Transaction t;
      for (size_t j = i; j < std::min(all.size(), i + 100); ++j) {
        t.Write(kColl, all[j], 0, all[j].ToString());
      }
      ASSERT_OK(Apply(std::move(t)));
    }
  }
  // Remove a few so the live set has gaps.
  {
    Transaction t;
    std::vector<ObjectId> all(live.begin(), live.end());
    for (size_t i = 0; i < all.size(); i += 7) {
      t.Remove(kColl, all[i]);
      live.erase(all[i]);
    }
    ASSERT_OK(Apply(std::move(t)));
  }
  const std::vector<ObjectId> want(live.begin(), live.end());
  auto ids = [](const std::vector<ObjectId>& v) {
    std::vector<std::string> out;
    for (const ObjectId& o : v) out.push_back(o.ToString() + "/" + o.key);
    return out;
  };
  CheckAndRemount([&] {
    Status st;
    EXPECT_EQ(ids(ListAll(store_.get(), kColl, &st)), ids(want));
    EXPECT_OK(st);
    // Pagination.
    for (size_t page : {1u, 3u, 64u, 1000u}) {
      std::vector<ObjectId> got;
      ObjectId start = ObjectId::Min();
      for (int guard = 0; guard < 1000; ++guard) {
        std::vector<ObjectId> out;
        ObjectId next;
        ASSERT_OK(store_->ListObjects(kColl, start, ObjectId::Max(), page, &out, &next));
        EXPECT_LE(out.size(), page);
        got.insert(got.end(), out.begin(), out.end());
        if (next.max) break;
        // `next` is the first object not returned.
        EXPECT_TRUE(got.size() < want.size() && want[got.size()] == next)
            << "page " << page << ": next " << next.ToString();
        start = next;
      }
      EXPECT_EQ(ids(got), ids(want)) << "page size " << page;
    }
    // Bounded listings: [want[i], want[j]) and bounds that are not objects.
    std::mt19937_64 r2(99);
    for (int round = 0; round < 25; ++round) {
      size_t i = r2() % want.size(), j = r2() % want.size();
      if (i > j) std::swap(i, j);
      std::vector<ObjectId> out;
      ObjectId next;
      ASSERT_OK(store_->ListObjects(kColl, want[i], want[j], 0, &out, &next));
      EXPECT_EQ(ids(out), ids(std::vector<ObjectId>(want.begin() + i, want.begin() + j)))
          << "[" << i << ", " << j << ")";
      // Paginated within the bound.
      std::vector<ObjectId> paged;
      ObjectId start = want[i];
      for (int guard = 0; guard < 1000; ++guard) {
        ASSERT_OK(store_->ListObjects(kColl, start, want[j], 5, &out, &next));
        paged.insert(paged.end(), out.begin(), out.end());
        if (next.max || Compare(next, want[j]) >= 0) break;
        start = next;
      }
      EXPECT_EQ(ids(paged), ids(std::vector<ObjectId>(want.begin() + i, want.begin() + j)));
      // Random (mostly absent) bounds.
      ObjectId a = random_id(), b = random_id();
      if (Compare(b, a) < 0) std::swap(a, b);
      const auto lo = std::lower_bound(want.begin(), want.end(), a, less);
      const auto hi = std::lower_bound(want.begin(), want.end(), b, less);
      ASSERT_OK(store_->ListObjects(kColl, a, b, 0, &out, &next));
      EXPECT_EQ(ids(out), ids(std::vector<ObjectId>(lo, hi)))
          << a.ToString() << " .. " << b.ToString();
      ASSERT_OK(store_->ListObjects(kColl, a, ObjectId::Max(), 0, &out, &next));
      EXPECT_EQ(ids(out), ids(std::vector<ObjectId>(lo, want.end())));
      EXPECT_TRUE(next.max);
    }
  });
}

// ---------------------------------------------------------------------------------------
// Collections

TEST_F(StoreConformance, CollectionErrorsAndLifecycle) {
  MkColl(kColl, 3);
  MkColl("meta");
  MkColl("2.1f_head", 5);
  {
    Transaction t;
    t.MkColl(kColl, 0);
    EXPECT_CODE(Apply(std::move(t)), kAlreadyExists);
  }
  {
    Transaction t;
    t.Write(kColl, Obj("o"), 0, "x");
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.RmColl(kColl);
    EXPECT_CODE(Apply(std::move(t)), kNotEmpty);
  }
  {
    Transaction t;
    t.RmColl("no.such_head");  // BlueStore: removing a missing collection is an error
    EXPECT_CODE(Apply(std::move(t)), kNotFound);
  }
  const std::string nc = "9.9_head";
  const ObjectId o = Obj("o");
  std::vector<std::pair<std::string, std::function<void(Transaction*)>>> ops = {
      {"touch", [&](Transaction* t) { t->Touch(nc, o); }},
      {"write", [&](Transaction* t) { t->Write(nc, o, 0, "x"); }},
      {"zero", [&](Transaction* t) { t->Zero(nc, o, 0, 10); }},
      {"truncate", [&](Transaction* t) { t->Truncate(nc, o, 0); }},
      {"remove", [&](Transaction* t) { t->Remove(nc, o); }},
      {"setattr", [&](Transaction* t) { t->SetAttr(nc, o, "a", "b"); }},
      {"rmattrs", [&](Transaction* t) { t->RmAttrs(nc, o); }},
      {"clone", [&](Transaction* t) { t->Clone(nc, o, Obj("p")); }},
      {"omap_setkeys", [&](Transaction* t) { t->OmapSetKeys(nc, o, {{"a", "b"}}); }},
      {"omap_clear", [&](Transaction* t) { t->OmapClear(nc, o); }},
      {"move_rename from missing", [&](Transaction* t) { t->CollMoveRename(nc, o, kColl, o); }},
      {"move_rename to missing", [&](Transaction* t) { t->CollMoveRename(kColl, o, nc, o); }},
      {"split", [&](Transaction* t) { t->SplitCollection(nc, 1, 0, "meta"); }},
      {"split to missing", [&](Transaction* t) { t->SplitCollection("meta", 1, 0, nc); }},
      {"merge", [&](Transaction* t) { t->MergeCollection(nc, "meta", 0); }},
      {"set_bits", [&](Transaction* t) { t->CollSetBits(nc, 4); }},
  };
  for (auto& [name, add] : ops) {
    Transaction t;
    add(&t);
    SCOPED_TRACE(name);
    EXPECT_CODE(Apply(std::move(t)), kNotFound);
  }
  {
    Transaction t;  // mkcoll + rmcoll in one transaction: nothing remains
    t.MkColl("tmp", 0);
    t.Touch("tmp", o);
    t.Remove("tmp", o);
    t.RmColl("tmp");
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    // A recreated collection starts empty.
    Transaction t;
    t.MkColl("recreated", 0);
    t.Write("recreated", Obj("old"), 0, "old");
    ASSERT_OK(Apply(std::move(t)));
    Transaction t2;
    t2.Remove("recreated", Obj("old"));
    t2.RmColl("recreated");
    ASSERT_OK(Apply(std::move(t2)));
    Transaction t3;
    t3.MkColl("recreated", 2);
    ASSERT_OK(Apply(std::move(t3)));
  }
  {
    Transaction t;
    t.CollSetBits("2.1f_head", 6);
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    auto colls = store_->ListCollections();
    ASSERT_TRUE(colls.ok());
    EXPECT_EQ(*colls, (std::vector<std::string>{kColl, "2.1f_head", "meta", "recreated"}));
    EXPECT_TRUE(store_->CollectionExists(kColl));
    EXPECT_FALSE(store_->CollectionExists(nc));
    EXPECT_FALSE(store_->CollectionExists("tmp"));
    EXPECT_EQ(*store_->CollectionBits(kColl), 3u);
    EXPECT_EQ(*store_->CollectionBits("2.1f_head"), 6u);
    EXPECT_EQ(*store_->CollectionBits("recreated"), 2u);
    EXPECT_EQ(*store_->CollectionEmpty("recreated"), true);
    EXPECT_TRUE(ListAll(store_.get(), "recreated").empty());
    EXPECT_EQ(*store_->CollectionEmpty(kColl), false);
    EXPECT_EQ(*store_->CollectionEmpty("meta"), true);
    // Reads of a missing collection.
    EXPECT_FALSE(store_->Exists(nc, o));
    EXPECT_CODE(store_->Read(nc, o, 0, 0).status(), kNotFound);
    EXPECT_CODE(store_->Stat(nc, o).status(), kNotFound);
    EXPECT_CODE(store_->GetAttr(nc, o, "a").status(), kNotFound);
    EXPECT_CODE(store_->GetAttrs(nc, o).status(), kNotFound);
    EXPECT_CODE(store_->GetOmapHeader(nc, o).status(), kNotFound);
    EXPECT_CODE(store_->ListOmap(nc, o, nullptr, 0).status(), kNotFound);
    EXPECT_CODE(store_->CollectionEmpty(nc).status(), kNotFound);
    EXPECT_CODE(store_->CollectionBits(nc).status(), kNotFound);
    std::vector<ObjectId> out;
    ObjectId next;
    EXPECT_CODE(store_->ListObjects(nc, ObjectId::Min(), ObjectId::Max(), 0, &out, &next),
                kNotFound);
  });
  {
    Transaction t;
    t.Remove(kColl, o);
    t.RmColl(kColl);
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] { EXPECT_FALSE(store_->CollectionExists(kColl)); });
}

TEST_F(StoreConformance, SplitAndMergeCollections) {
  const std::string a = "1.0_head", b = "1.4_head";
  MkColl(a, 2);
  MkColl(b, 2);
  std::mt19937 rng(5);
  std::map<std::string, uint32_t> hashes;
  {
    Transaction t;
    for (int i = 0; i < 256; ++i) {
      const std::string name = "o" + std::to_string(i);
      const uint32_t h = static_cast<uint32_t>(rng());
      hashes[name] = h;
      const ObjectId o = ObjH(name, h);
      t.Write(a, o, 0, name + "-data");
      t.SetAttr(a, o, "n", name);
      t.OmapSetKeys(a, o, {{"k", name}});
    }
    ASSERT_OK(Apply(std::move(t)));
  }
  auto sorted_where = [&](auto pred) {
    std::vector<ObjectId> v;
    for (const auto& [name, h] : hashes) {
      if (pred(h)) v.push_back(ObjH(name, h));
    }
    std::sort(v.begin(), v.end(),
              [](const ObjectId& x, const ObjectId& y) { return Compare(x, y) < 0; });
    return Names(v);
  };
  auto check_objects = [&](const std::string& coll) {
    for (const ObjectId& o : ListAll(store_.get(), coll)) {
      EXPECT_EQ(ReadAll(coll, o), o.name + "-data");
      EXPECT_EQ(Attrs(coll, o), (Kv{{"n", o.name}}));
      EXPECT_EQ(Omap(coll, o), (KvList{{"k", o.name}}));
    }
  };
  {
    Transaction t;
    t.SplitCollection(a, 3, 4, b);
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_EQ(Names(ListAll(store_.get(), a)), sorted_where([](uint32_t h) { return (h & 7) != 4; }));
    EXPECT_EQ(Names(ListAll(store_.get(), b)), sorted_where([](uint32_t h) { return (h & 7) == 4; }));
    EXPECT_EQ(*store_->CollectionBits(a), 3u);
    EXPECT_EQ(*store_->CollectionBits(b), 3u);
    check_objects(a);
    check_objects(b);
    for (const auto& [name, h] : hashes) {
      EXPECT_NE(store_->Exists(a, ObjH(name, h)), store_->Exists(b, ObjH(name, h))) << name;
    }
  });
  {
    // Split again (b holds hash&7 == 4; those with hash&15 == 12 move on), and a split
    // that matches nothing, which only changes bits.
    Transaction t;
    t.MkColl("1.c_head", 3);
    t.SplitCollection(b, 4, 12, "1.c_head");
    t.MkColl("1.3_head", 2);
    t.SplitCollection(a, 2, 3, "1.3_head");  // a holds every hash&7 != 4
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_EQ(Names(ListAll(store_.get(), "1.c_head")),
              sorted_where([](uint32_t h) { return (h & 15) == 12; }));
    EXPECT_EQ(Names(ListAll(store_.get(), b)),
              sorted_where([](uint32_t h) { return (h & 15) == 4; }));
    EXPECT_EQ(Names(ListAll(store_.get(), "1.3_head")),
              sorted_where([](uint32_t h) { return (h & 7) != 4 && (h & 3) == 3; }));
    EXPECT_EQ(*store_->CollectionBits(b), 4u);
    EXPECT_EQ(*store_->CollectionBits("1.c_head"), 4u);
    EXPECT_EQ(*store_->CollectionBits(a), 2u);
    check_objects("1.c_head");
  });
  {
    Transaction t;
    t.MergeCollection("1.3_head", a, 3);
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.MergeCollection("1.c_head", b, 3);
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.MergeCollection(b, a, 2);
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_FALSE(store_->CollectionExists(b));
    EXPECT_FALSE(store_->CollectionExists("1.c_head"));
    EXPECT_EQ(*store_->CollectionBits(a), 2u);
    EXPECT_EQ(Names(ListAll(store_.get(), a)), sorted_where([](uint32_t) { return true; }));
    check_objects(a);
  });
}

TEST_F(StoreConformance, CollectionMoveRenameAndTryRename) {
  const std::string a = "1.0_head", b = "1.1_head";
  MkColl(a);
  MkColl(b);
  const ObjectId x = Obj("x"), y = Obj("y"), z = Obj("z"), w = Obj("w");
  {
    Transaction t;
    t.Write(a, x, 0, "x-data");
    t.SetAttr(a, x, "a", "x");
    t.OmapSetHeader(a, x, "x-header");
    t.OmapSetKeys(a, x, {{"k", "x"}});
    t.Write(a, w, 0, "w-data");
    t.Write(b, z, 0, "z-data");
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.CollMoveRename(a, x, b, y);  // across collections, new name
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.CollMoveRename(a, w, b, z);  // destination exists
    EXPECT_CODE(Apply(std::move(t)), kAlreadyExists);
  }
  {
    Transaction t;
    t.CollMoveRename(a, Obj("missing"), b, Obj("q"));  // missing source tolerated
    t.TryRename(b, Obj("missing"), Obj("q2"));          // likewise
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.TryRename(b, z, y);  // destination exists
    EXPECT_CODE(Apply(std::move(t)), kAlreadyExists);
  }
  const ObjectId y2 = Obj("y2");
  {
    Transaction t;
    t.TryRename(b, y, y2);
    t.Write(b, y2, 6, "+more");  // the renamed object is visible to later ops
    t.SetAttr(b, y2, "b", "2");
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_FALSE(store_->Exists(a, x));
    EXPECT_FALSE(store_->Exists(b, y));
    EXPECT_FALSE(store_->Exists(b, Obj("q")));
    EXPECT_FALSE(store_->Exists(b, Obj("q2")));
    EXPECT_EQ(ReadAll(b, y2), "x-data+more");
    EXPECT_EQ(Attrs(b, y2), (Kv{{"a", "x"}, {"b", "2"}}));
    EXPECT_EQ(Header(b, y2), "x-header");
    EXPECT_EQ(Omap(b, y2), (KvList{{"k", "x"}}));
    EXPECT_EQ(ReadAll(a, w), "w-data");
    EXPECT_EQ(ReadAll(b, z), "z-data");
    std::vector<ObjectId> want_b = {y2, z};
    std::sort(want_b.begin(), want_b.end(),
              [](const ObjectId& p, const ObjectId& q) { return Compare(p, q) < 0; });
    EXPECT_EQ(Names(ListAll(store_.get(), b)), Names(want_b));
    EXPECT_EQ(Names(ListAll(store_.get(), a)), (std::vector<std::string>{"w"}));
    EXPECT_EQ(Stored(), std::string("x-data+more").size() + 6 + 6);
  });
}

TEST_F(StoreConformance, HintsAreAccepted) {
  MkColl(kColl);
  const ObjectId o = Obj("o");
  {
    Transaction t;
    t.Write(kColl, o, 0, "data");
    t.SetAllocHint(kColl, o, 4 * kMiB, 64 * kKiB, 0);
    t.CollHint(kColl);
    t.Nop();
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_EQ(ReadAll(kColl, o), "data");
    EXPECT_EQ(Names(ListAll(store_.get(), kColl)), (std::vector<std::string>{"o"}));
  });
}

// transaction.h: only touch, create, write, zero and the clone-range destination create a
// missing object; BlueStore (whose rules transaction.h follows) treats set_alloc_hint on a
// missing object as a tolerated ENOENT: a no-op that does not create it.
TEST_F(StoreConformance, SetAllocHintOnMissingObjectDoesNotCreateIt) {
  MkColl(kColl);
  {
    Transaction t;
    t.SetAllocHint(kColl, Obj("missing"), 4 * kMiB, 64 * kKiB, 0);
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    // Regression test: set_alloc_hint used to create the missing object (the planner's
    // kSetAllocHint used GetOrCreate); fixed in fd690e8.
    EXPECT_FALSE(store_->Exists(kColl, Obj("missing")));
    EXPECT_TRUE(ListAll(store_.get(), kColl).empty());
  });
}

TEST_F(StoreConformance, ObjectNameLimits) {
  MkColl(kColl);
  ObjectId longest = Obj(std::string(ObjectId::kMaxNameLen, 'n'));
  ObjectId too_long = Obj(std::string(ObjectId::kMaxNameLen + 1, 'n'));
  {
    Transaction t;
    t.Write(kColl, longest, 0, "ok");
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.Touch(kColl, too_long);
    EXPECT_CODE(Apply(std::move(t)), kInvalidArgument);
  }
  CheckAndRemount([&] {
    EXPECT_EQ(ReadAll(kColl, longest), "ok");
    EXPECT_FALSE(store_->Exists(kColl, too_long));
    EXPECT_EQ(ListAll(store_.get(), kColl).size(), 1u);
  });
}

// ---------------------------------------------------------------------------------------
// Transactions

TEST_F(StoreConformance, FailedTransactionLeavesNoTrace) {
  const std::string a = "1.0_head", e = "1.1_head";
  MkColl(a);
  MkColl(e);
  const ObjectId p = Obj("p"), q = Obj("q"), r = Obj("r");
  {
    Transaction t;
    t.Write(a, p, 0, Bytes(1, 300 * kKiB));
    t.SetAttrs(a, p, {{"a", "1"}});
    t.OmapSetHeader(a, p, "ph");
    t.OmapSetKeys(a, p, {{"k", "v"}, {"l", "w"}});
    t.Write(a, q, 0, Bytes(2, 5000));
    t.OmapSetKeys(a, q, {{"qk", "qv"}});
    t.Touch(a, r);
    ASSERT_OK(Apply(std::move(t)));
  }
  const StoreState before = Dump();
  const uint64_t stored_before = Stored();
  const std::vector<std::pair<std::string, std::function<void(Transaction*)>>> failing = {
      {"setattr on a missing object", [&](Transaction* t) { t->SetAttr(a, Obj("nope"), "k", "v"); }},
      {"rmattr on a missing object", [&](Transaction* t) { t->RmAttr(a, Obj("nope"), "k"); }},
      {"omap_setkeys on a missing object",
       [&](Transaction* t) { t->OmapSetKeys(a, Obj("nope"), {{"k", "v"}}); }},
      {"omap_setheader on a missing object",
       [&](Transaction* t) { t->OmapSetHeader(a, Obj("nope"), "h"); }},
      {"clone from a missing object", [&](Transaction* t) { t->Clone(a, Obj("nope"), p); }},
      {"clone_range from a missing object",
       [&](Transaction* t) { t->CloneRange(a, Obj("nope"), p, 0, 10, 0); }},
      {"mkcoll of an existing collection", [&](Transaction* t) { t->MkColl(a, 0); }},
      {"rmcoll of a non-empty collection", [&](Transaction* t) { t->RmColl(a); }},
      {"rename onto an existing object", [&](Transaction* t) { t->CollMoveRename(a, p, a, r); }},
      {"write into a missing collection",
       [&](Transaction* t) { t->Write("7.7_head", p, 0, "x"); }},
  };
  for (const auto& [what, add_failing] : failing) {
    SCOPED_TRACE(what);
    Transaction t;
    t.MkColl("new", 4);
    t.Write("new", Obj("n"), 0, Bytes(3, 2 * kMiB));
    t.OmapSetKeys("new", Obj("n"), {{"nk", "nv"}});
    t.Write(a, p, 0, Bytes(4, 100 * kKiB));
    t.Write(a, p, 1 * kMiB, "grow");
    t.SetAttr(a, p, "a", "changed");
    t.RmAttrs(a, q);
    t.OmapSetKeys(a, q, {{"qk", "changed"}, {"qk2", "added"}});
    t.OmapRmKeyRange(a, p, "a", "z");
    t.OmapClear(a, p);
    t.Clone(a, p, Obj("pc"));
    t.Remove(a, q);
    t.Truncate(a, r, 10 * kKiB);
    t.RmColl(e);
    t.CollMoveRename(a, r, "new", Obj("moved"));
    t.Touch(a, r);
    add_failing(&t);
    t.Write(a, p, 0, "after the failure");
    t.Touch(a, Obj("after"));
    const Status s = Apply(std::move(t));
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(DiffStates(Dump(), before), "");
    EXPECT_EQ(Stored(), stored_before);
  }
  // The store still works afterwards.
  {
    Transaction t;
    t.Write(a, Obj("later"), 0, "later");
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    StoreState now = Dump();
    EXPECT_EQ(ReadAll(a, Obj("later")), "later");
    // Everything but the later object is as before.
    auto& objs = now[a].objects;
    objs.erase(std::remove_if(objs.begin(), objs.end(),
                              [](const auto& x) { return x.first.name == "later"; }),
               objs.end());
    EXPECT_EQ(DiffStates(now, before), "");
  });
}

TEST_F(StoreConformance, OpsSeeEarlierOpsOfTheirTransaction) {
  const std::string n = "5.0_head";
  const std::string d = Bytes(1, 1536 * kKiB);
  {
    Transaction t;
    t.MkColl(n, 0);
    t.Write(n, Obj("a"), 0, d);
    t.Clone(n, Obj("a"), Obj("b"));             // sees the write
    t.SetAttr(n, Obj("b"), "k", "v");           // sees the clone
    t.OmapSetKeys(n, Obj("a"), {{"o", "1"}});
    t.Clone(n, Obj("a"), Obj("c"));             // copies the omap set just before
    t.CloneRange(n, Obj("a"), Obj("d"), kMiB - 10, 20, 0);
    t.Write(n, Obj("a"), 0, "XX");              // later write: b, c, d unaffected
    t.Zero(n, Obj("a"), kMiB - 5, 10);
    t.Clone(n, Obj("a"), Obj("e"));             // sees write and zero
    ASSERT_OK(Apply(std::move(t)));
  }
  std::string a_now = d;
  a_now.replace(0, 2, "XX");
  a_now.replace(kMiB - 5, 10, std::string(10, '\0'));
  CheckAndRemount([&] {
    EXPECT_BYTES_EQ(ReadAll(n, Obj("a")), a_now);
    EXPECT_BYTES_EQ(ReadAll(n, Obj("b")), d);
    EXPECT_BYTES_EQ(ReadAll(n, Obj("c")), d);
    EXPECT_BYTES_EQ(ReadAll(n, Obj("d")), d.substr(kMiB - 10, 20));
    EXPECT_BYTES_EQ(ReadAll(n, Obj("e")), a_now);
    EXPECT_EQ(Attrs(n, Obj("b")), (Kv{{"k", "v"}}));
    EXPECT_EQ(Omap(n, Obj("b")), KvList{});
    EXPECT_EQ(Omap(n, Obj("c")), (KvList{{"o", "1"}}));
    EXPECT_EQ(Omap(n, Obj("e")), (KvList{{"o", "1"}}));
  });
  {
    Transaction t;  // remove then rmcoll in one transaction
    for (const char* o : {"a", "b", "c", "d", "e"}) t.Remove(n, Obj(o));
    t.RmColl(n);
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.MkColl("m", 0);
    t.Touch("m", Obj("x"));
    t.TryRename("m", Obj("x"), Obj("y"));
    t.Write("m", Obj("y"), 0, "0123456789");
    t.Truncate("m", Obj("y"), 4);
    t.Write("m", Obj("y"), 6, "ab");
    t.OmapSetHeader("m", Obj("y"), "h");
    t.Remove("m", Obj("y"));
    t.Touch("m", Obj("y"));  // a fresh object: nothing of the removed one
    t.Write("m", Obj("y"), 0, "fresh");
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_FALSE(store_->CollectionExists(n));
    EXPECT_EQ(Stored(), 5u);
    EXPECT_EQ(ReadAll("m", Obj("y")), "fresh");
    EXPECT_EQ(Header("m", Obj("y")), "");
    EXPECT_FALSE(store_->Exists("m", Obj("x")));
  });
}

// Objects created by a transaction and then moved by a split in the same transaction.
TEST_F(StoreConformance, WriteThenSplitInOneTransaction) {
  const std::string a = "1.0_head", b = "1.1_head";
  MkColl(a, 0);
  MkColl(b, 0);
  const ObjectId odd = ObjH("odd", 1), even = ObjH("even", 2);
  {
    Transaction t;
    t.Write(a, odd, 0, "odd-data");
    t.Write(a, even, 0, "even-data");
    t.SplitCollection(a, 1, 1, b);
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    // Regression test: the planner used to flush the new object into the batch before the
    // split moved it, and never deleted the stale source copy (whose extents still pointed
    // at unallocated placeholder offsets) because its original and final states were both
    // "absent"; fixed in fd690e8.
    EXPECT_EQ(Names(ListAll(store_.get(), a)), (std::vector<std::string>{"even"}));
    EXPECT_EQ(Names(ListAll(store_.get(), b)), (std::vector<std::string>{"odd"}));
    EXPECT_FALSE(store_->Exists(a, odd));
    EXPECT_EQ(ReadAll(b, odd), "odd-data");
    EXPECT_EQ(ReadAll(a, even), "even-data");
  });
}

// Changes made after an op that makes the planner write its objects into the batch early
// (rmcoll, split, merge) must still win.
TEST_F(StoreConformance, ChangesAfterRmcollInOneTransaction) {
  MkColl(kColl);
  MkColl("empty1");
  MkColl("empty2");
  const ObjectId x = Obj("x"), fresh = Obj("fresh");
  {
    Transaction t;
    t.Write(kColl, x, 0, "x");
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.SetAttr(kColl, x, "k", "v");
    t.RmColl("empty1");
    t.RmAttr(kColl, x, "k");  // x ends as it started
    t.Touch(kColl, fresh);
    t.RmColl("empty2");
    t.Remove(kColl, fresh);  // fresh ends as it started: absent
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    // Regression test: same stale-batch cause as WriteThenSplitInOneTransaction (x kept
    // k=v, fresh survived); fixed in fd690e8.
    EXPECT_EQ(Attrs(kColl, x), Kv{});
    EXPECT_FALSE(store_->Exists(kColl, fresh));
    EXPECT_EQ(Names(ListAll(store_.get(), kColl)), (std::vector<std::string>{"x"}));
    EXPECT_FALSE(store_->CollectionExists("empty1"));
    EXPECT_FALSE(store_->CollectionExists("empty2"));
  });
}

TEST_F(StoreConformance, ConcurrentSubmittersToDifferentCollections) {
  constexpr int kThreads = 4, kTxns = 40;
  for (int i = 0; i < kThreads; ++i) MkColl("c" + std::to_string(i));
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  std::vector<std::vector<int>> order(kThreads);
  std::vector<Status> failures;
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([&, th] {
      const std::string c = "c" + std::to_string(th);
      for (int i = 0; i < kTxns; ++i) {
        Transaction t;
        t.Write(c, Obj("obj" + std::to_string(i)), 0, Bytes(th * 1000 + i, 1000 + i * 100));
        // A shared object per collection: later transactions overwrite earlier ones.
        t.Write(c, Obj("log"), 0, "txn " + std::to_string(i) + " of " + c);
        t.SetAttr(c, Obj("log"), "last", std::to_string(i));
        t.OmapSetKeys(c, Obj("log"), {{"k" + std::to_string(100 + i), std::to_string(i)}});
        store_->Submit(std::move(t), [&, th, i](const Status& s) {
          std::lock_guard<std::mutex> lock(mu);
          if (!s.ok()) failures.push_back(s);
          order[th].push_back(i);
          ++done;
          cv.notify_all();
        });
      }
    });
  }
  for (auto& t : threads) t.join();
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done == kThreads * kTxns; });
  }
  for (const Status& s : failures) ADD_FAILURE() << s.ToString();
  std::vector<int> want(kTxns);
  for (int i = 0; i < kTxns; ++i) want[i] = i;
  for (int th = 0; th < kThreads; ++th) {
    EXPECT_EQ(order[th], want) << "callbacks of collection c" << th << " out of order";
  }
  const StoreCounters counters = store_->Counters();
  EXPECT_GE(counters.txns_committed, uint64_t{kThreads * kTxns});
  EXPECT_LE(counters.groups_committed, counters.txns_committed);
  CheckAndRemount([&] {
    for (int th = 0; th < kThreads; ++th) {
      const std::string c = "c" + std::to_string(th);
      for (int i = 0; i < kTxns; ++i) {
        EXPECT_BYTES_EQ(ReadAll(c, Obj("obj" + std::to_string(i))),
                        Bytes(th * 1000 + i, 1000 + i * 100));
      }
      const std::string last = "txn " + std::to_string(kTxns - 1) + " of " + c;
      EXPECT_EQ(ReadAll(c, Obj("log")), last);
      EXPECT_EQ(Attrs(c, Obj("log")), (Kv{{"last", std::to_string(kTxns - 1)}}));
      EXPECT_EQ(Omap(c, Obj("log")).size(), static_cast<size_t>(kTxns));
    }
  });
}

TEST_F(StoreConformance, StatfsStoredEqualsLiveBytes) {
  EXPECT_EQ(Stored(), 0u);
  MkColl(kColl);
  std::map<std::string, uint64_t> sizes;
  {
    Transaction t;
    t.Write(kColl, Obj("a"), 0, Bytes(1, 3 * kMiB));
    t.Write(kColl, Obj("b"), 0, Bytes(2, 100 * kKiB));
    t.Write(kColl, Obj("c"), 0, Bytes(3, 5000));
    ASSERT_OK(Apply(std::move(t)));
    sizes = {{"a", 3 * kMiB}, {"b", 100 * kKiB}, {"c", 5000}};
  }
  auto sum = [&] {
    uint64_t s = 0;
    for (const auto& [n, v] : sizes) s += v;
    return s;
  };
  EXPECT_EQ(Stored(), sum());
  {
    Transaction t;
    t.Write(kColl, Obj("a"), kMiB, Bytes(4, 200 * kKiB));  // overwrite in place
    t.Write(kColl, Obj("b"), 0, Bytes(5, 100 * kKiB));     // full overwrite
    t.Write(kColl, Obj("c"), 5000, Bytes(6, 3000));        // append
    sizes["c"] = 8000;
    ASSERT_OK(Apply(std::move(t)));
  }
  EXPECT_EQ(Stored(), sum());
  {
    Transaction t;
    t.Truncate(kColl, Obj("a"), 2 * kMiB + 1);
    sizes["a"] = 2 * kMiB + 1;
    t.Remove(kColl, Obj("c"));
    sizes.erase("c");
    t.Clone(kColl, Obj("b"), Obj("d"));
    sizes["d"] = 100 * kKiB;
    t.CloneRange(kColl, Obj("a"), Obj("e"), 10, 70000, 0);
    sizes["e"] = 70000;
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    const StoreStatfs st = store_->Statfs();
    EXPECT_EQ(st.stored, sum());
    EXPECT_GE(st.allocated, st.stored);
    EXPECT_GT(st.total, 0u);
    EXPECT_LT(st.available, st.total);
    for (const auto& [n, v] : sizes) EXPECT_EQ(Size(kColl, Obj(n)), v) << n;
  });
  {
    Transaction t;
    for (const auto& [n, v] : sizes) t.Remove(kColl, Obj(n));
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] { EXPECT_EQ(Stored(), 0u); });
}

}  // namespace
}  // namespace smr
