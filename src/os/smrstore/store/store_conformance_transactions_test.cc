// The store conformance suite (store/testing/store_conformance_fixture.h says what it is
// and lists its files; each runs against the engine directly and through the Ceph
// ObjectStore adapter): transactions — a failing transaction leaves no trace of its
// earlier ops, ops see the earlier ops of their transaction (including writes before a
// split and changes after an rmcoll), concurrent submitters to different collections commit
// in submission order per collection, and statfs's stored bytes equal the live bytes.
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "store/testing/store_conformance_fixture.h"
#include "store/transaction.h"

namespace smr::conformance {
namespace {

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
}  // namespace smr::conformance
