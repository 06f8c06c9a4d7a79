// The store conformance suite (store/testing/store_conformance_fixture.h says what it is
// and lists its files; each runs against the engine directly and through the Ceph
// ObjectStore adapter): collections — object listing in Ceph's order, paginated and within
// bounds that are or are not objects; collection errors and lifecycle (ops on a missing
// collection, rmcoll of a non-empty one, recreation, bits); split and merge; moving and
// renaming objects (collection_move_rename, try_rename).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "store/testing/store_conformance_fixture.h"
#include "store/transaction.h"

namespace smr::conformance {
namespace {

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

}  // namespace
}  // namespace smr::conformance
