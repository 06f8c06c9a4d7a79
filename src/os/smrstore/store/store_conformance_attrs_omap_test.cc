// The store conformance suite (store/testing/store_conformance_fixture.h says what it is
// and lists its files; each runs against the engine directly and through the Ceph
// ObjectStore adapter): object attributes (set, overwrite, remove, binary and empty values,
// the errors on a missing object) and omap (keys in byte order, pagination from any
// `after`, value lookups, key and range removal, the header, omap_clear, the errors on a
// missing object), and that a removed object does not bring its attrs or omap back.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "store/testing/store_conformance_fixture.h"
#include "store/transaction.h"

namespace smr::conformance {
namespace {

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

}  // namespace
}  // namespace smr::conformance
