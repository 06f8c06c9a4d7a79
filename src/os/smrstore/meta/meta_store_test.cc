// Tests of meta/meta_store.h over a real RocksDB in a scratch directory: lifecycle errors,
// every key kind, listing order and bounds, the batch overlay (reads through a batch see
// its pending writes), save points, omap range deletes, and durability across reopen.

#include "meta/meta_store.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <ostream>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"

namespace smr {

// Readable ObjectIds in failure messages (internal linkage: test-local).
[[maybe_unused]] static void PrintTo(const ObjectId& id, std::ostream* os) {
  *os << id.ToString() << (id.key.empty() ? "" : "(key)");
}

namespace {

using smr::testing::ScratchDir;
using OmapList = std::vector<std::pair<std::string, std::string>>;

struct ObjectIdLess {
  bool operator()(const ObjectId& a, const ObjectId& b) const { return Compare(a, b) < 0; }
};

ObjectId Obj(const std::string& name, uint32_t hash = 0, int64_t pool = 1) {
  ObjectId id;
  id.pool = pool;
  id.name = name;
  id.hash = hash;
  return id;
}

ObjectId MaxId() {
  ObjectId id;
  id.max = true;
  return id;
}

// Sorts before every object the tests make (shard >= -1, pool >= -1).
ObjectId MinId() {
  ObjectId id;
  id.pool = std::numeric_limits<int64_t>::min();
  id.shard = ObjectId::kNoShard;
  id.snap = 0;
  id.generation = 0;
  return id;
}

Onode SomeOnode(uint64_t nid) {
  Onode o;
  o.nid = nid;
  o.size = nid * 10;
  o.xattrs["_"] = "attr" + std::to_string(nid);
  Extent e;
  e.logical_offset = 0;
  e.length = 4096;
  e.drive = 1;
  e.payload_offset = nid << 20;
  e.payload_len = 4096;
  e.payload_crc = static_cast<uint32_t>(nid);
  o.extents[0] = e;
  return o;
}

// Random ids over the fields that order objects; locator keys never equal names, so
// Compare() == 0 only for identical ids.
ObjectId RandomObjectId(std::mt19937_64& rng) {
  static const char kAlphabet[] = {'a', 'b', '\0', '\xff', '\x01', 'z'};
  auto rand_str = [&](char lead, size_t max_len) {
    std::string s(1, lead);
    const size_t n = rng() % (max_len + 1);
    for (size_t i = 0; i < n; ++i) s.push_back(kAlphabet[rng() % sizeof(kAlphabet)]);
    return s;
  };
  ObjectId id;
  static const int64_t kPools[] = {-1, 0, 1, 7, std::numeric_limits<int64_t>::max()};
  id.pool = kPools[rng() % 5];
  static const int8_t kShards[] = {ObjectId::kNoShard, 0, 2};
  id.shard = kShards[rng() % 3];
  // Few distinct hashes, so later fields decide often.
  static const uint32_t kHashes[] = {0, 1, 0x80000000u, 0xdeadbeefu, 0xffffffffu, 0x1234u};
  id.hash = kHashes[rng() % 6];
  id.nspace = rng() % 3 == 0 ? rand_str('s', 2) : std::string();
  id.name = rand_str('n', 5);
  if (rng() % 4 == 0) id.key = rand_str('k', 3);
  static const uint64_t kSnaps[] = {ObjectId::kNoSnap, ObjectId::kSnapDir, 0, 5};
  id.snap = kSnaps[rng() % 4];
  static const uint64_t kGens[] = {ObjectId::kNoGen, 0, 3};
  id.generation = kGens[rng() % 3];
  return id;
}

class MetaStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/db";
    Result<std::unique_ptr<MetaStore>> r = MetaStore::Create(path_);
    ASSERT_OK(r.status());
    store_ = std::move(r).value();
  }

  void Reopen() {
    store_.reset();
    Result<std::unique_ptr<MetaStore>> r = MetaStore::Open(path_);
    ASSERT_OK(r.status());
    store_ = std::move(r).value();
  }

  std::vector<ObjectId> ListAll(const MetaStore::Batch* batch, uint64_t cid) {
    std::vector<ObjectId> out;
    ObjectId next;
    EXPECT_OK(store_->ListObjects(batch, cid, MinId(), MaxId(), 0, &out, &next));
    EXPECT_TRUE(next.max);
    return out;
  }

  std::optional<Onode> OnodeOf(const MetaStore::Batch* batch, uint64_t cid, const ObjectId& oid) {
    Result<std::optional<Onode>> r = store_->GetOnode(batch, cid, oid);
    EXPECT_OK(r.status());
    return r.ok() ? *r : std::nullopt;
  }

  std::optional<std::string> OmapValue(const MetaStore::Batch* batch, uint64_t nid,
                                       const std::string& key) {
    Result<std::optional<std::string>> r = store_->GetOmapValue(batch, nid, key);
    EXPECT_OK(r.status());
    return r.ok() ? *r : std::nullopt;
  }

  OmapList Omap(const MetaStore::Batch* batch, uint64_t nid, const std::string* after = nullptr,
                size_t max = 0) {
    OmapList out;
    EXPECT_OK(store_->ListOmap(batch, nid, after, max, &out));
    return out;
  }

  ScratchDir dir_;
  std::string path_;
  std::unique_ptr<MetaStore> store_;
};

// --- Lifecycle ---

TEST_F(MetaStoreTest, CreateOverExistingIsAlreadyExists) {
  EXPECT_CODE(MetaStore::Create(path_).status(), kAlreadyExists);
  store_.reset();
  EXPECT_CODE(MetaStore::Create(path_).status(), kAlreadyExists);
  EXPECT_OK(MetaStore::Open(path_).status());
}

TEST_F(MetaStoreTest, OpenMissingIsNotFound) {
  EXPECT_CODE(MetaStore::Open(dir_.path() + "/nothing").status(), kNotFound);
  ASSERT_EQ(::mkdir((dir_.path() + "/empty").c_str(), 0755), 0);
  EXPECT_CODE(MetaStore::Open(dir_.path() + "/empty").status(), kNotFound);
}

TEST_F(MetaStoreTest, SecondOpenWhileOpenIsBusy) {
  EXPECT_CODE(MetaStore::Open(path_).status(), kBusy);
  store_.reset();
  Result<std::unique_ptr<MetaStore>> r = MetaStore::Open(path_);
  ASSERT_OK(r.status());
  EXPECT_CODE(MetaStore::Open(path_).status(), kBusy);
}

// Another process holding RocksDB's LOCK file (an fcntl write lock, which is what RocksDB
// takes) makes Open fail with kBusy. The child takes the lock with plain syscalls only.
TEST_F(MetaStoreTest, OpenLockedByAnotherProcessIsBusy) {
  store_.reset();
  int to_parent[2];
  int to_child[2];
  ASSERT_EQ(::pipe(to_parent), 0);
  ASSERT_EQ(::pipe(to_child), 0);
  const std::string lock_path = path_ + "/LOCK";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(to_parent[0]);
    ::close(to_child[1]);
    char ok = 0;
    const int fd = ::open(lock_path.c_str(), O_RDWR);
    struct flock fl = {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fd >= 0 && ::fcntl(fd, F_SETLK, &fl) == 0) ok = 1;
    (void)!::write(to_parent[1], &ok, 1);
    char c;
    (void)!::read(to_child[0], &c, 1);  // hold the lock until the parent is done
    ::_exit(0);
  }
  ::close(to_parent[1]);
  ::close(to_child[0]);
  char ok = 0;
  ASSERT_EQ(::read(to_parent[0], &ok, 1), 1);
  EXPECT_EQ(ok, 1);
  const Status s = MetaStore::Open(path_).status();
  EXPECT_CODE(s, kBusy);
  ::close(to_child[1]);
  ::close(to_parent[0]);
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  EXPECT_OK(MetaStore::Open(path_).status());
}

TEST_F(MetaStoreTest, ReopenKeepsCommittedWrites) {
  auto b = store_->NewBatch();
  b->PutValue("superblock", "sb-bytes");
  ASSERT_OK(store_->Commit(b.get(), /*sync=*/false));
  Reopen();
  Result<std::optional<std::string>> v = store_->GetValue(nullptr, "superblock");
  ASSERT_OK(v.status());
  ASSERT_TRUE(v->has_value());
  EXPECT_EQ(**v, "sb-bytes");
}

TEST_F(MetaStoreTest, SizeAndPropertyDump) {
  auto b = store_->NewBatch();
  for (int i = 0; i < 100; ++i) b->PutOnode(1, Obj("o" + std::to_string(i)), SomeOnode(i + 1));
  ASSERT_OK(store_->Commit(b.get(), false));
  EXPECT_GT(store_->ApproximateSizeBytes(), 0u);
  const std::string dump = store_->PropertyDump();
  EXPECT_NE(dump.find("DB Stats"), std::string::npos) << dump;
}

// --- Values and counters ---

TEST_F(MetaStoreTest, ValuesAndCounters) {
  Result<std::optional<std::string>> v = store_->GetValue(nullptr, "missing");
  ASSERT_OK(v.status());
  EXPECT_FALSE(v->has_value());
  Result<uint64_t> c = store_->GetCounter(nullptr, "nid_max");
  ASSERT_OK(c.status());
  EXPECT_EQ(*c, 0u);

  auto b = store_->NewBatch();
  b->PutValue("superblock", std::string("\0sb\xff", 4));
  b->PutCounter("nid_max", 0xfedcba9876543210ull);
  b->PutCounter("cid_max", 7);
  // Pending: visible through the batch only.
  EXPECT_EQ(*store_->GetCounter(b.get(), "nid_max"), 0xfedcba9876543210ull);
  EXPECT_EQ(*store_->GetCounter(nullptr, "nid_max"), 0u);
  EXPECT_EQ(**store_->GetValue(b.get(), "superblock"), std::string("\0sb\xff", 4));
  EXPECT_FALSE(store_->GetValue(nullptr, "superblock")->has_value());
  ASSERT_OK(store_->Commit(b.get(), false));
  EXPECT_EQ(b->Count(), 0u);
  EXPECT_EQ(*store_->GetCounter(nullptr, "nid_max"), 0xfedcba9876543210ull);
  EXPECT_EQ(*store_->GetCounter(nullptr, "cid_max"), 7u);
  // Counters and values with the same name do not collide.
  EXPECT_FALSE(store_->GetValue(nullptr, "nid_max")->has_value());
}

// --- Collections ---

TEST_F(MetaStoreTest, CollectionsCrud) {
  auto b = store_->NewBatch();
  b->PutCollection("meta", CollectionMeta{1, 0});
  b->PutCollection("2.1f_head", CollectionMeta{2, 5});
  b->PutCollection(std::string("odd\0name", 8), CollectionMeta{3, 1});
  ASSERT_OK(store_->Commit(b.get(), false));

  Result<std::optional<CollectionMeta>> c = store_->GetCollection(nullptr, "2.1f_head");
  ASSERT_OK(c.status());
  ASSERT_TRUE(c->has_value());
  EXPECT_EQ(**c, (CollectionMeta{2, 5}));
  EXPECT_FALSE(store_->GetCollection(nullptr, "2.1f")->has_value());

  Result<std::map<std::string, CollectionMeta>> all = store_->ListCollections(nullptr);
  ASSERT_OK(all.status());
  const std::map<std::string, CollectionMeta> want = {{"meta", {1, 0}},
                                                      {"2.1f_head", {2, 5}},
                                                      {std::string("odd\0name", 8), {3, 1}}};
  EXPECT_EQ(*all, want);

  // Overlay: delete one, add one, change one.
  b->DeleteCollection("meta");
  b->PutCollection("3.0_head", CollectionMeta{4, 0});
  b->PutCollection("2.1f_head", CollectionMeta{2, 6});
  std::map<std::string, CollectionMeta> pending = {{"3.0_head", {4, 0}},
                                                   {"2.1f_head", {2, 6}},
                                                   {std::string("odd\0name", 8), {3, 1}}};
  EXPECT_EQ(*store_->ListCollections(b.get()), pending);
  EXPECT_EQ(*store_->ListCollections(nullptr), want);
  EXPECT_FALSE(store_->GetCollection(b.get(), "meta")->has_value());
  EXPECT_TRUE(store_->GetCollection(nullptr, "meta")->has_value());
  ASSERT_OK(store_->Commit(b.get(), false));
  EXPECT_EQ(*store_->ListCollections(nullptr), pending);
}

// --- Onodes ---

TEST_F(MetaStoreTest, OnodesPutGetDelete) {
  const ObjectId a = Obj("a", 1);
  const ObjectId b_id = Obj("b", 2);
  auto b = store_->NewBatch();
  b->PutOnode(10, a, SomeOnode(1));
  b->PutOnode(10, b_id, SomeOnode(2));
  b->PutOnode(11, a, SomeOnode(3));  // same object name, other collection
  ASSERT_OK(store_->Commit(b.get(), false));

  EXPECT_EQ(OnodeOf(nullptr, 10, a), SomeOnode(1));
  EXPECT_EQ(OnodeOf(nullptr, 10, b_id), SomeOnode(2));
  EXPECT_EQ(OnodeOf(nullptr, 11, a), SomeOnode(3));
  EXPECT_EQ(OnodeOf(nullptr, 11, b_id), std::nullopt);

  b->DeleteOnode(10, a);
  b->PutOnode(10, b_id, SomeOnode(22));
  ASSERT_OK(store_->Commit(b.get(), false));
  EXPECT_EQ(OnodeOf(nullptr, 10, a), std::nullopt);
  EXPECT_EQ(OnodeOf(nullptr, 10, b_id), SomeOnode(22));
  EXPECT_EQ(OnodeOf(nullptr, 11, a), SomeOnode(3));
}

TEST_F(MetaStoreTest, ListObjectsOrderPaginationAndIsolation) {
  std::mt19937_64 rng(2024);
  // cid 7 and 8 are neighbours in key space; 6 and 9 hold decoys around them.
  std::map<uint64_t, std::set<ObjectId, ObjectIdLess>> want;
  auto b = store_->NewBatch();
  for (int i = 0; i < 3000; ++i) {
    const ObjectId id = RandomObjectId(rng);
    const uint64_t cid = 7 + rng() % 2;
    want[cid].insert(id);
    b->PutOnode(cid, id, SomeOnode(i + 1));
    if (rng() % 10 == 0) {
      want[cid ^ 0xf].insert(id);  // 7 -> 8, 8 -> 7
      b->PutOnode(cid ^ 0xf, id, SomeOnode(i + 1));
    }
  }
  b->PutOnode(6, MaxId(), SomeOnode(1));  // a stray max key must not leak either
  b->PutOnode(6, Obj("decoy6"), SomeOnode(1));
  b->PutOnode(9, MinId(), SomeOnode(1));
  ASSERT_OK(store_->Commit(b.get(), false));

  for (uint64_t cid : {7, 8}) {
    const std::vector<ObjectId> sorted(want[cid].begin(), want[cid].end());
    ASSERT_GT(sorted.size(), 1000u);
    EXPECT_EQ(ListAll(nullptr, cid), sorted) << "cid " << cid;
    // The same list sorted by std::sort with Compare.
    std::vector<ObjectId> shuffled = sorted;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    std::sort(shuffled.begin(), shuffled.end(), ObjectIdLess());
    EXPECT_EQ(ListAll(nullptr, cid), shuffled);

    // Pagination with random page sizes reassembles the list.
    std::vector<ObjectId> pages;
    ObjectId start = MinId();
    int calls = 0;
    while (true) {
      std::vector<ObjectId> page;
      ObjectId next;
      const size_t max = 1 + rng() % 150;
      ASSERT_OK(store_->ListObjects(nullptr, cid, start, MaxId(), max, &page, &next));
      ASSERT_LE(page.size(), max);
      pages.insert(pages.end(), page.begin(), page.end());
      ASSERT_LT(++calls, 10000);
      if (next.max) break;
      ASSERT_EQ(page.size(), max);
      start = next;
    }
    EXPECT_EQ(pages, sorted);

    // Random [start, end) windows, bounds both present and absent.
    for (int w = 0; w < 50; ++w) {
      ObjectId lo = rng() % 2 ? sorted[rng() % sorted.size()] : RandomObjectId(rng);
      ObjectId hi = rng() % 2 ? sorted[rng() % sorted.size()] : RandomObjectId(rng);
      if (Compare(hi, lo) < 0) std::swap(lo, hi);
      std::vector<ObjectId> expect;
      for (const ObjectId& id : sorted) {
        if (Compare(lo, id) <= 0 && Compare(id, hi) < 0) expect.push_back(id);
      }
      std::vector<ObjectId> got;
      ObjectId next;
      ASSERT_OK(store_->ListObjects(nullptr, cid, lo, hi, 0, &got, &next));
      EXPECT_EQ(got, expect);
      EXPECT_EQ(next, hi);
      // With a limit, *next is the first object not returned.
      if (expect.size() > 2) {
        ASSERT_OK(store_->ListObjects(nullptr, cid, lo, hi, 2, &got, &next));
        EXPECT_EQ(got, std::vector<ObjectId>(expect.begin(), expect.begin() + 2));
        EXPECT_EQ(next, expect[2]);
      }
    }
  }

  // ListOnodes returns the same objects with their onodes.
  std::vector<std::pair<ObjectId, Onode>> onodes;
  ObjectId next;
  ASSERT_OK(store_->ListOnodes(nullptr, 6, MinId(), MaxId(), 0, &onodes, &next));
  ASSERT_EQ(onodes.size(), 1u);  // the stray max key is not an object of the listing
  EXPECT_EQ(onodes[0].first, Obj("decoy6"));
  EXPECT_EQ(onodes[0].second, SomeOnode(1));
  EXPECT_TRUE(next.max);
}

TEST_F(MetaStoreTest, CollectionEmpty) {
  // An answer is a value; a failed scan would be the error, which fails the test here.
  auto empty = [&](const MetaStore::Batch* batch) {
    auto r = store_->CollectionEmpty(batch, 5);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  };
  auto not_empty = [&](const MetaStore::Batch* batch) {
    auto r = store_->CollectionEmpty(batch, 5);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && !*r;
  };
  EXPECT_TRUE(empty(nullptr));
  auto b = store_->NewBatch();
  b->PutOnode(4, Obj("x"), SomeOnode(1));
  b->PutOnode(6, Obj("y"), SomeOnode(2));
  ASSERT_OK(store_->Commit(b.get(), false));
  EXPECT_TRUE(empty(nullptr));
  b->PutOnode(5, Obj("z"), SomeOnode(3));
  EXPECT_TRUE(not_empty(b.get()));
  EXPECT_TRUE(empty(nullptr));
  ASSERT_OK(store_->Commit(b.get(), false));
  EXPECT_TRUE(not_empty(nullptr));
  b->DeleteOnode(5, Obj("z"));
  EXPECT_TRUE(empty(b.get()));
  EXPECT_TRUE(not_empty(nullptr));
}

// --- Batch overlay and save points ---

TEST_F(MetaStoreTest, BatchOverlaySeesPendingPutsAndDeletes) {
  const ObjectId a = Obj("a"), b_id = Obj("b"), c = Obj("c");  // same hash: name order
  auto b = store_->NewBatch();
  b->PutOnode(1, a, SomeOnode(1));
  b->PutOnode(1, b_id, SomeOnode(2));
  ASSERT_OK(store_->Commit(b.get(), false));

  auto t = store_->NewBatch();
  t->DeleteOnode(1, a);               // committed object deleted
  t->PutOnode(1, b_id, SomeOnode(20));  // committed object changed
  t->PutOnode(1, c, SomeOnode(3));    // new object
  t->PutOnode(1, c, SomeOnode(30));   // overwritten inside the batch
  EXPECT_EQ(t->Count(), 4u);
  EXPECT_GT(t->ApproximateBytes(), 0u);

  EXPECT_EQ(OnodeOf(t.get(), 1, a), std::nullopt);
  EXPECT_EQ(OnodeOf(t.get(), 1, b_id), SomeOnode(20));
  EXPECT_EQ(OnodeOf(t.get(), 1, c), SomeOnode(30));
  EXPECT_EQ(ListAll(t.get(), 1), (std::vector<ObjectId>{b_id, c}));
  std::vector<std::pair<ObjectId, Onode>> onodes;
  ObjectId next;
  ASSERT_OK(store_->ListOnodes(t.get(), 1, MinId(), MaxId(), 0, &onodes, &next));
  ASSERT_EQ(onodes.size(), 2u);
  EXPECT_EQ(onodes[1].second, SomeOnode(30));

  // Without the batch: only committed state.
  EXPECT_EQ(OnodeOf(nullptr, 1, a), SomeOnode(1));
  EXPECT_EQ(OnodeOf(nullptr, 1, b_id), SomeOnode(2));
  EXPECT_EQ(OnodeOf(nullptr, 1, c), std::nullopt);
  EXPECT_EQ(ListAll(nullptr, 1), (std::vector<ObjectId>{a, b_id}));

  ASSERT_OK(store_->Commit(t.get(), false));
  EXPECT_EQ(OnodeOf(nullptr, 1, a), std::nullopt);
  EXPECT_EQ(OnodeOf(nullptr, 1, c), SomeOnode(30));
  EXPECT_EQ(ListAll(nullptr, 1), (std::vector<ObjectId>{b_id, c}));
}

TEST_F(MetaStoreTest, SavePointRollbackUndoesExactlyLaterWrites) {
  const ObjectId a = Obj("a"), b_id = Obj("b"), c = Obj("c");  // same hash: name order
  auto b = store_->NewBatch();
  b->PutOnode(1, a, SomeOnode(1));
  ASSERT_OK(store_->Commit(b.get(), false));

  // Transaction 1 (kept).
  b->PutOnode(1, b_id, SomeOnode(2));
  b->PutCounter("nid_max", 2);
  // Transaction 2 (fails, rolled back).
  b->SetSavePoint();
  b->DeleteOnode(1, a);
  b->PutOnode(1, b_id, SomeOnode(99));
  b->PutOnode(1, c, SomeOnode(3));
  b->PutCounter("nid_max", 3);
  b->PutOmapValue(3, "k", "v");
  EXPECT_EQ(OnodeOf(b.get(), 1, a), std::nullopt);
  EXPECT_EQ(ListAll(b.get(), 1), (std::vector<ObjectId>{b_id, c}));
  ASSERT_OK(b->RollbackToSavePoint());

  EXPECT_EQ(b->Count(), 2u);
  EXPECT_EQ(OnodeOf(b.get(), 1, a), SomeOnode(1));
  EXPECT_EQ(OnodeOf(b.get(), 1, b_id), SomeOnode(2));
  EXPECT_EQ(OnodeOf(b.get(), 1, c), std::nullopt);
  EXPECT_EQ(*store_->GetCounter(b.get(), "nid_max"), 2u);
  EXPECT_EQ(OmapValue(b.get(), 3, "k"), std::nullopt);
  EXPECT_EQ(ListAll(b.get(), 1), (std::vector<ObjectId>{a, b_id}));

  // Nested save points; Pop keeps the writes and forgets the point.
  b->SetSavePoint();
  b->PutOnode(1, c, SomeOnode(4));
  b->SetSavePoint();
  b->DeleteOnode(1, a);
  ASSERT_OK(b->PopSavePoint());
  ASSERT_OK(b->RollbackToSavePoint());  // back to before c
  EXPECT_EQ(OnodeOf(b.get(), 1, a), SomeOnode(1));
  EXPECT_EQ(OnodeOf(b.get(), 1, c), std::nullopt);
  EXPECT_CODE(b->RollbackToSavePoint(), kNotFound);
  EXPECT_CODE(b->PopSavePoint(), kNotFound);

  ASSERT_OK(store_->Commit(b.get(), false));
  EXPECT_EQ(ListAll(nullptr, 1), (std::vector<ObjectId>{a, b_id}));
  EXPECT_EQ(*store_->GetCounter(nullptr, "nid_max"), 2u);
}

// --- Omap ---

TEST_F(MetaStoreTest, OmapHeaderValuesAndListing) {
  auto b = store_->NewBatch();
  b->PutOmapHeader(5, "hdr5");
  for (const char* k : {"a", "b", "c", "d", "e"}) b->PutOmapValue(5, k, std::string("v") + k);
  b->PutOmapValue(5, std::string("b\0", 2), "nul");
  b->PutOmapValue(4, "zz", "other4");  // neighbours must not leak
  b->PutOmapValue(6, "", "other6");
  b->PutOmapHeader(6, "hdr6");
  ASSERT_OK(store_->Commit(b.get(), false));

  EXPECT_EQ(**store_->GetOmapHeader(nullptr, 5), "hdr5");
  EXPECT_FALSE(store_->GetOmapHeader(nullptr, 7)->has_value());
  EXPECT_EQ(OmapValue(nullptr, 5, "c"), "vc");
  EXPECT_EQ(OmapValue(nullptr, 5, "zz"), std::nullopt);
  EXPECT_EQ(OmapValue(nullptr, 6, ""), "other6");

  const OmapList all = {{"a", "va"}, {"b", "vb"}, {std::string("b\0", 2), "nul"},
                        {"c", "vc"}, {"d", "vd"}, {"e", "ve"}};
  EXPECT_EQ(Omap(nullptr, 5), all);
  const std::string b_key = "b";
  EXPECT_EQ(Omap(nullptr, 5, &b_key), OmapList(all.begin() + 2, all.end()));
  const std::string bb = "bb";  // absent key: listing starts after it
  EXPECT_EQ(Omap(nullptr, 5, &bb), OmapList(all.begin() + 3, all.end()));
  EXPECT_EQ(Omap(nullptr, 5, nullptr, 2), OmapList(all.begin(), all.begin() + 2));
  EXPECT_EQ(Omap(nullptr, 5, &b_key, 2), OmapList(all.begin() + 2, all.begin() + 4));
  const std::string e_key = "e";
  EXPECT_TRUE(Omap(nullptr, 5, &e_key).empty());
  EXPECT_TRUE(Omap(nullptr, 7).empty());
  EXPECT_EQ(Omap(nullptr, 4), (OmapList{{"zz", "other4"}}));

  // Overlay of header and values.
  b->PutOmapHeader(5, "hdr5'");
  b->DeleteOmapValue(5, "a");
  b->PutOmapValue(5, "c", "vc'");
  b->PutOmapValue(5, "f", "vf");
  EXPECT_EQ(**store_->GetOmapHeader(b.get(), 5), "hdr5'");
  EXPECT_EQ(OmapValue(b.get(), 5, "a"), std::nullopt);
  EXPECT_EQ(OmapValue(nullptr, 5, "a"), "va");
  const OmapList pending = {{"b", "vb"}, {std::string("b\0", 2), "nul"}, {"c", "vc'"},
                            {"d", "vd"}, {"e", "ve"},                    {"f", "vf"}};
  EXPECT_EQ(Omap(b.get(), 5), pending);
  EXPECT_EQ(Omap(b.get(), 5, &e_key), (OmapList{{"f", "vf"}}));
  EXPECT_EQ(Omap(nullptr, 5), all);
  b->DeleteOmapHeader(5);
  EXPECT_FALSE(store_->GetOmapHeader(b.get(), 5)->has_value());
  ASSERT_OK(store_->Commit(b.get(), false));
  EXPECT_EQ(Omap(nullptr, 5), pending);
  EXPECT_FALSE(store_->GetOmapHeader(nullptr, 5)->has_value());
}

TEST_F(MetaStoreTest, OmapDeleteRangeIsHalfOpenAndSeesPendingKeys) {
  auto b = store_->NewBatch();
  for (const char* k : {"a", "b", "c", "d"}) b->PutOmapValue(5, k, k);
  b->PutOmapValue(4, "c", "4c");
  b->PutOmapValue(6, "c", "6c");
  ASSERT_OK(store_->Commit(b.get(), false));

  // Pending keys inside the range are deleted too; `last` is kept.
  b->PutOmapValue(5, "bb", "pending");
  b->PutOmapValue(5, "e", "e");
  b->DeleteOmapRange(5, "b", "d");
  EXPECT_EQ(Omap(b.get(), 5), (OmapList{{"a", "a"}, {"d", "d"}, {"e", "e"}}));
  EXPECT_EQ(Omap(nullptr, 5), (OmapList{{"a", "a"}, {"b", "b"}, {"c", "c"}, {"d", "d"}}));
  // Empty and inverted ranges delete nothing.
  b->DeleteOmapRange(5, "d", "d");
  b->DeleteOmapRange(5, "z", "a");
  EXPECT_EQ(Omap(b.get(), 5), (OmapList{{"a", "a"}, {"d", "d"}, {"e", "e"}}));
  // A key put after the range delete survives it.
  b->PutOmapValue(5, "c", "again");
  ASSERT_OK(store_->Commit(b.get(), false));
  EXPECT_EQ(Omap(nullptr, 5), (OmapList{{"a", "a"}, {"c", "again"}, {"d", "d"}, {"e", "e"}}));
  EXPECT_EQ(Omap(nullptr, 4), (OmapList{{"c", "4c"}}));
  EXPECT_EQ(Omap(nullptr, 6), (OmapList{{"c", "6c"}}));

  // A range past the last key runs to the end of the nid's omap only.
  b->DeleteOmapRange(5, "b", std::string(8, '\xff'));
  ASSERT_OK(store_->Commit(b.get(), false));
  EXPECT_EQ(Omap(nullptr, 5), (OmapList{{"a", "a"}}));
  EXPECT_EQ(Omap(nullptr, 6), (OmapList{{"c", "6c"}}));
}

TEST_F(MetaStoreTest, ClearOmapRemovesHeaderAndAllKeysThroughTheBatch) {
  const uint64_t kLast = std::numeric_limits<uint64_t>::max();
  auto b = store_->NewBatch();
  b->PutOmapHeader(5, "h");
  for (int i = 0; i < 500; ++i) b->PutOmapValue(5, "k" + std::to_string(i), "v");
  b->PutOmapValue(6, "keep", "v6");
  b->PutOmapHeader(6, "h6");
  b->PutOmapValue(kLast, "last", "v");
  ASSERT_OK(store_->Commit(b.get(), false));

  b->PutOmapValue(5, "pending", "p");
  b->ClearOmap(5);
  EXPECT_TRUE(Omap(b.get(), 5).empty());
  EXPECT_FALSE(store_->GetOmapHeader(b.get(), 5)->has_value());
  EXPECT_EQ(Omap(nullptr, 5).size(), 500u);
  b->ClearOmap(kLast);
  EXPECT_TRUE(Omap(b.get(), kLast).empty());
  ASSERT_OK(store_->Commit(b.get(), true));
  EXPECT_TRUE(Omap(nullptr, 5).empty());
  EXPECT_FALSE(store_->GetOmapHeader(nullptr, 5)->has_value());
  EXPECT_TRUE(Omap(nullptr, kLast).empty());
  EXPECT_EQ(Omap(nullptr, 6), (OmapList{{"keep", "v6"}}));
  EXPECT_EQ(**store_->GetOmapHeader(nullptr, 6), "h6");
}

// --- Zones ---

TEST_F(MetaStoreTest, ZonesPutAndLoad) {
  auto zone = [](uint8_t stream, uint64_t live, uint64_t wp, uint64_t seq, bool sealed) {
    ZoneMeta z;
    z.stream = stream;
    z.live_bytes = live;
    z.committed_wp = wp;
    z.opened_seq = seq;
    z.sealed = sealed;
    return z;
  };
  Result<std::map<std::pair<uint16_t, uint32_t>, ZoneMeta>> empty = store_->LoadZones(nullptr);
  ASSERT_OK(empty.status());
  EXPECT_TRUE(empty->empty());

  auto b = store_->NewBatch();
  std::map<std::pair<uint16_t, uint32_t>, ZoneMeta> want;
  for (uint16_t d : {0, 1, 65535}) {
    for (uint32_t z : {0u, 3u, 256u, 0xffffffffu}) {
      want[{d, z}] = zone(1 + d % 3, z * 10ull, z * 20ull, d + z, z % 2);
      b->PutZone(d, z, want[{d, z}]);
    }
  }
  ASSERT_OK(store_->Commit(b.get(), false));
  EXPECT_EQ(*store_->LoadZones(nullptr), want);

  b->PutZone(1, 3, zone(0, 0, 0, 0, false));
  b->PutZone(2, 9, zone(2, 1, 2, 3, true));
  auto pending = want;
  pending[{1, 3}] = zone(0, 0, 0, 0, false);
  pending[{2, 9}] = zone(2, 1, 2, 3, true);
  EXPECT_EQ(*store_->LoadZones(b.get()), pending);
  EXPECT_EQ(*store_->LoadZones(nullptr), want);
  ASSERT_OK(store_->Commit(b.get(), false));
  EXPECT_EQ(*store_->LoadZones(nullptr), pending);
}

// --- Durability ---

TEST_F(MetaStoreTest, SyncCommitThenReopenSeesEverything) {
  auto b = store_->NewBatch();
  b->PutValue("superblock", "sb");
  b->PutCounter("seq", 42);
  b->PutCollection("1.0_head", CollectionMeta{3, 4});
  b->PutOnode(3, Obj("obj"), SomeOnode(9));
  b->PutOmapHeader(9, "hdr");
  b->PutOmapValue(9, "key", "val");
  ZoneMeta z;
  z.stream = 2;
  z.live_bytes = 4096;
  z.committed_wp = 8192;
  z.opened_seq = 41;
  b->PutZone(0, 5, z);
  ASSERT_OK(store_->Commit(b.get(), /*sync=*/true));
  b.reset();
  Reopen();

  EXPECT_EQ(**store_->GetValue(nullptr, "superblock"), "sb");
  EXPECT_EQ(*store_->GetCounter(nullptr, "seq"), 42u);
  EXPECT_EQ(**store_->GetCollection(nullptr, "1.0_head"), (CollectionMeta{3, 4}));
  EXPECT_EQ(OnodeOf(nullptr, 3, Obj("obj")), SomeOnode(9));
  EXPECT_EQ(**store_->GetOmapHeader(nullptr, 9), "hdr");
  EXPECT_EQ(Omap(nullptr, 9), (OmapList{{"key", "val"}}));
  auto zones = store_->LoadZones(nullptr);
  ASSERT_OK(zones.status());
  ASSERT_EQ(zones->size(), 1u);
  EXPECT_EQ((zones->at({0, 5})), z);
}

}  // namespace
}  // namespace smr
