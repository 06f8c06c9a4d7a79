// Tests of kv/kv_store.h: one suite run against the in-memory fake and against RocksDB
// (OpenKvStore, linked in by smrstore_tests), a randomized comparison of the two, and the
// RocksDB lifecycle (persistence, kBusy, kAlreadyExists / kNotFound). The plugin loader
// has its own binary (kv_plugin_loader_test.cc).

#include "kv/kv_store.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"

namespace smr {
namespace {

using smr::testing::ScratchDir;
using KvList = std::vector<std::pair<std::string, std::string>>;

KvBounds All() { return KvBounds{}; }
KvBounds Between(std::string lower, std::string upper) {
  KvBounds b;
  b.lower = std::move(lower);
  b.upper = std::move(upper);
  return b;
}

// Every pair an iterator yields from Seek(from).
KvList Drain(KvIterator* it, std::string_view from = "") {
  KvList out;
  for (it->Seek(from); it->Valid(); it->Next()) out.emplace_back(it->key(), it->value());
  EXPECT_OK(it->status());
  return out;
}

KvList ListStore(const KvStore& kv, const KvBounds& bounds = {}) {
  std::unique_ptr<KvIterator> it = kv.NewIterator(bounds);
  return Drain(it.get(), bounds.lower);
}

KvList ListBatch(const KvBatch& b, const KvBounds& bounds = {}) {
  std::unique_ptr<KvIterator> it = b.NewIterator(bounds);
  return Drain(it.get(), bounds.lower);
}

std::optional<std::string> Value(const Result<std::optional<std::string>>& r) {
  EXPECT_OK(r.status());
  return r.ok() ? *r : std::nullopt;
}

enum class Backend { kMemory, kRocksDb };

void PrintTo(Backend b, std::ostream* os) { *os << (b == Backend::kMemory ? "Memory" : "RocksDb"); }

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kMemory ? "Memory" : "RocksDb";
}

class KvStoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::kMemory) {
      kv_ = NewMemoryKvStore();
      return;
    }
    Result<std::unique_ptr<KvStore>> r = OpenKvStore(dir_.path() + "/kv", KvOpenMode::kCreate);
    ASSERT_OK(r.status());
    kv_ = std::move(r).value();
  }

  std::optional<std::string> Get(std::string_view key) { return Value(kv_->Get(key)); }

  void PutCommitted(const KvList& pairs) {
    std::unique_ptr<KvBatch> b = kv_->NewBatch();
    for (const auto& [k, v] : pairs) ASSERT_OK(b->Put(k, v));
    ASSERT_OK(kv_->Commit(b.get(), /*sync=*/false));
  }

  ScratchDir dir_;
  std::unique_ptr<KvStore> kv_;
};

INSTANTIATE_TEST_SUITE_P(Backends, KvStoreTest,
                         ::testing::Values(Backend::kMemory, Backend::kRocksDb), BackendName);

TEST_P(KvStoreTest, PutGetDelete) {
  EXPECT_EQ(Get("a"), std::nullopt);
  const std::string binary_key("k\0\xff", 3);
  const std::string binary_value("v\0\x01", 3);
  PutCommitted({{"a", "1"}, {binary_key, binary_value}, {"empty", ""}});
  EXPECT_EQ(Get("a"), "1");
  EXPECT_EQ(Get(binary_key), binary_value);
  EXPECT_EQ(Get("empty"), "");  // present with an empty value, not absent
  EXPECT_EQ(Get(std::string("k\0", 2)), std::nullopt);

  std::unique_ptr<KvBatch> b = kv_->NewBatch();
  ASSERT_OK(b->Delete("a"));
  ASSERT_OK(b->Delete("never-there"));
  ASSERT_OK(b->Put("empty", "now-full"));
  ASSERT_OK(kv_->Commit(b.get(), /*sync=*/true));
  EXPECT_EQ(Get("a"), std::nullopt);
  EXPECT_EQ(Get("empty"), "now-full");
  EXPECT_EQ(ListStore(*kv_), (KvList{{"empty", "now-full"}, {binary_key, binary_value}}));
}

TEST_P(KvStoreTest, BatchReadsSeePendingWritesOverCommitted) {
  PutCommitted({{"a", "1"}, {"b", "2"}, {"d", "4"}});
  std::unique_ptr<KvBatch> b = kv_->NewBatch();
  ASSERT_OK(b->Delete("a"));
  ASSERT_OK(b->Put("b", "2'"));
  ASSERT_OK(b->Put("c", "3"));
  ASSERT_OK(b->Put("e", "5"));
  ASSERT_OK(b->Put("e", "5'"));  // the later write wins

  EXPECT_EQ(Value(b->Get("a")), std::nullopt);
  EXPECT_EQ(Value(b->Get("b")), "2'");
  EXPECT_EQ(Value(b->Get("c")), "3");
  EXPECT_EQ(Value(b->Get("d")), "4");  // committed, untouched by the batch
  EXPECT_EQ(Value(b->Get("e")), "5'");
  EXPECT_EQ(ListBatch(*b), (KvList{{"b", "2'"}, {"c", "3"}, {"d", "4"}, {"e", "5'"}}));
  EXPECT_EQ(ListBatch(*b, Between("b", "e")), (KvList{{"b", "2'"}, {"c", "3"}, {"d", "4"}}));
  // Bounds cut pending keys too, at both ends.
  EXPECT_EQ(ListBatch(*b, Between("c", "d")), (KvList{{"c", "3"}}));
  EXPECT_EQ(ListBatch(*b, Between("a", "b")), KvList{});

  // The committed state is untouched until Commit.
  EXPECT_EQ(ListStore(*kv_), (KvList{{"a", "1"}, {"b", "2"}, {"d", "4"}}));
}

TEST_P(KvStoreTest, CommitIsAtomicAndLeavesTheBatchEmpty) {
  PutCommitted({{"keep", "k"}});
  std::unique_ptr<KvBatch> b = kv_->NewBatch();
  for (int i = 0; i < 100; ++i) ASSERT_OK(b->Put("key" + std::to_string(1000 + i), "v"));
  ASSERT_OK(b->Delete("keep"));
  b->SetSavePoint();
  EXPECT_EQ(b->Count(), 101u);
  // Nothing of the batch is visible before Commit, to gets or iterators.
  EXPECT_EQ(Get("key1000"), std::nullopt);
  EXPECT_EQ(Get("keep"), "k");
  EXPECT_EQ(ListStore(*kv_), (KvList{{"keep", "k"}}));

  ASSERT_OK(kv_->Commit(b.get(), /*sync=*/true));
  EXPECT_EQ(Get("key1099"), "v");
  EXPECT_EQ(Get("keep"), std::nullopt);
  EXPECT_EQ(ListStore(*kv_).size(), 100u);
  // Empty, without save points, reusable.
  EXPECT_EQ(b->Count(), 0u);
  EXPECT_CODE(b->RollbackToSavePoint(), kNotFound);
  ASSERT_OK(b->Put("again", "1"));
  ASSERT_OK(kv_->Commit(b.get(), false));
  EXPECT_EQ(Get("again"), "1");
}

TEST_P(KvStoreTest, SavePointRollbackUndoesExactlyLaterWrites) {
  PutCommitted({{"x", "0"}});
  std::unique_ptr<KvBatch> b = kv_->NewBatch();
  ASSERT_OK(b->Put("a", "1"));
  const size_t count_a = b->Count();
  const size_t bytes_a = b->ApproximateBytes();
  b->SetSavePoint();
  ASSERT_OK(b->Put("a", "1'"));
  ASSERT_OK(b->Put("b", "2"));
  ASSERT_OK(b->Delete("x"));
  EXPECT_EQ(b->Count(), count_a + 3);
  EXPECT_GT(b->ApproximateBytes(), bytes_a);
  b->SetSavePoint();  // nested
  ASSERT_OK(b->Put("c", "3"));

  ASSERT_OK(b->RollbackToSavePoint());  // undoes c
  EXPECT_EQ(Value(b->Get("c")), std::nullopt);
  EXPECT_EQ(Value(b->Get("b")), "2");
  ASSERT_OK(b->RollbackToSavePoint());  // undoes a', b, delete x
  EXPECT_EQ(b->Count(), count_a);
  EXPECT_EQ(b->ApproximateBytes(), bytes_a);
  EXPECT_EQ(Value(b->Get("a")), "1");
  EXPECT_EQ(Value(b->Get("b")), std::nullopt);
  EXPECT_EQ(Value(b->Get("x")), "0");
  EXPECT_EQ(ListBatch(*b), (KvList{{"a", "1"}, {"x", "0"}}));
  EXPECT_CODE(b->RollbackToSavePoint(), kNotFound);
  EXPECT_CODE(b->PopSavePoint(), kNotFound);

  // Pop keeps the writes.
  b->SetSavePoint();
  ASSERT_OK(b->Put("d", "4"));
  ASSERT_OK(b->PopSavePoint());
  EXPECT_CODE(b->RollbackToSavePoint(), kNotFound);
  EXPECT_EQ(Value(b->Get("d")), "4");

  ASSERT_OK(kv_->Commit(b.get(), false));
  EXPECT_EQ(ListStore(*kv_), (KvList{{"a", "1"}, {"d", "4"}, {"x", "0"}}));
}

TEST_P(KvStoreTest, IteratorOrderSeekAndBounds) {
  // Inserted out of order; bytewise order is unsigned ("\xff" last) and a prefix sorts
  // before its extensions.
  const KvList sorted = {{std::string("\0", 1), "nul"}, {"a", "1"},    {"ab", "2"},
                         {"abc", "3"},                  {"b", "4"},    {"b\x01", "5"},
                         {"c", "6"},                    {"\x7f", "7"}, {"\xff", "8"}};
  KvList shuffled = sorted;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(7));
  PutCommitted(shuffled);
  EXPECT_EQ(ListStore(*kv_), sorted);

  std::unique_ptr<KvIterator> it = kv_->NewIterator(All());
  it->Seek("ab");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "ab");
  it->Seek("abd");  // between keys: the next one
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "b");
  EXPECT_EQ(it->value(), "4");
  it->Seek("\xff\xff");  // past the end
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());

  // [lower, upper): a Seek below lower starts at lower; upper is exclusive.
  it = kv_->NewIterator(Between("ab", "b\x01"));
  EXPECT_EQ(Drain(it.get(), ""), (KvList{{"ab", "2"}, {"abc", "3"}, {"b", "4"}}));
  EXPECT_EQ(Drain(it.get(), "abc"), (KvList{{"abc", "3"}, {"b", "4"}}));
  EXPECT_EQ(ListStore(*kv_, Between("b", "b")), KvList{});
  KvBounds from_c;
  from_c.lower = "c";
  EXPECT_EQ(ListStore(*kv_, from_c), (KvList{{"c", "6"}, {"\x7f", "7"}, {"\xff", "8"}}));
}

TEST_P(KvStoreTest, IteratorOverCommittedDataIsASnapshot) {
  PutCommitted({{"a", "1"}, {"b", "2"}});
  std::unique_ptr<KvIterator> it = kv_->NewIterator(All());
  std::unique_ptr<KvBatch> b = kv_->NewBatch();
  ASSERT_OK(b->Delete("a"));
  ASSERT_OK(b->Put("c", "3"));
  ASSERT_OK(kv_->Commit(b.get(), false));
  EXPECT_EQ(Drain(it.get()), (KvList{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(ListStore(*kv_), (KvList{{"b", "2"}, {"c", "3"}}));
}

TEST_P(KvStoreTest, SizeAndPropertyDump) {
  KvList pairs;
  for (int i = 0; i < 200; ++i) {
    pairs.emplace_back("key" + std::to_string(i), std::string(100, 'v'));
  }
  PutCommitted(pairs);
  EXPECT_GT(kv_->ApproximateSizeBytes(), 0u);
  EXPECT_FALSE(kv_->PropertyDump().empty());
}

// The same random operations on both implementations give the same reads: the fake is a
// faithful stand-in for RocksDB.
TEST(KvStoreDifferentialTest, MemoryFakeMatchesRocksDb) {
  ScratchDir dir;
  Result<std::unique_ptr<KvStore>> r = OpenKvStore(dir.path() + "/kv", KvOpenMode::kCreate);
  ASSERT_OK(r.status());
  std::unique_ptr<KvStore> stores[2] = {NewMemoryKvStore(), std::move(r).value()};
  std::unique_ptr<KvBatch> batches[2] = {stores[0]->NewBatch(), stores[1]->NewBatch()};
  std::mt19937 rng(20240501);
  // 48 distinct keys, so writes, deletes and range reads keep meeting each other.
  auto key = [&] {
    return std::string(1, static_cast<char>('a' + rng() % 6)) + std::to_string(rng() % 8);
  };
  int depth = 0;  // save points on the batches
  for (int step = 0; step < 3000; ++step) {
    const unsigned op = rng() % 100;
    const std::string k = key();
    const std::string v = "v" + std::to_string(step);
    std::string lo = key();
    std::string hi = key();
    if (hi < lo) lo.swap(hi);
    for (int i = 0; i < 2; ++i) {
      SCOPED_TRACE("step " + std::to_string(step) + (i == 0 ? " memory" : " rocksdb"));
      KvBatch* b = batches[i].get();
      if (op < 40) {
        ASSERT_OK(b->Put(k, v));
      } else if (op < 55) {
        ASSERT_OK(b->Delete(k));
      } else if (op < 62) {
        b->SetSavePoint();
      } else if (op < 67) {
        const Status s = b->RollbackToSavePoint();
        EXPECT_EQ(s.code(), depth > 0 ? Status::Code::kOk : Status::Code::kNotFound);
      } else if (op < 70) {
        const Status s = b->PopSavePoint();
        EXPECT_EQ(s.code(), depth > 0 ? Status::Code::kOk : Status::Code::kNotFound);
      } else if (op < 78) {
        ASSERT_OK(stores[i]->Commit(b, rng() % 2 == 0));
      }
    }
    if (op >= 55 && op < 62) ++depth;
    if (op >= 62 && op < 70 && depth > 0) --depth;
    if (op >= 70 && op < 78) depth = 0;
    // Compare every kind of read.
    ASSERT_EQ(batches[0]->Count(), batches[1]->Count()) << "step " << step;
    ASSERT_EQ(Value(batches[0]->Get(k)), Value(batches[1]->Get(k))) << "step " << step;
    ASSERT_EQ(Value(stores[0]->Get(k)), Value(stores[1]->Get(k))) << "step " << step;
    if (op >= 78) {
      const KvBounds bounds = Between(lo, hi);
      ASSERT_EQ(ListBatch(*batches[0], bounds), ListBatch(*batches[1], bounds))
          << "step " << step << " [" << lo << ", " << hi << ")";
      ASSERT_EQ(ListStore(*stores[0], bounds), ListStore(*stores[1], bounds)) << "step " << step;
    }
  }
  ASSERT_EQ(ListBatch(*batches[0]), ListBatch(*batches[1]));
  ASSERT_EQ(ListStore(*stores[0]), ListStore(*stores[1]));
  batches[0].reset();
  batches[1].reset();
}

// --- The fake's own strictness ---

TEST(MemoryKvStoreTest, WritingToABatchInvalidatesItsIterators) {
  std::unique_ptr<KvStore> kv = NewMemoryKvStore();
  std::unique_ptr<KvBatch> b = kv->NewBatch();
  ASSERT_OK(b->Put("a", "1"));
  ASSERT_OK(b->Put("b", "2"));
  std::unique_ptr<KvIterator> it = b->NewIterator(All());
  it->Seek("");
  ASSERT_TRUE(it->Valid());
  ASSERT_OK(b->Put("c", "3"));
  it->Next();
  EXPECT_FALSE(it->Valid());
  EXPECT_CODE(it->status(), kInvalidArgument);
}

TEST(MemoryKvStoreTest, CommitOfAnotherStoresBatchIsRefused) {
  std::unique_ptr<KvStore> kv1 = NewMemoryKvStore();
  std::unique_ptr<KvStore> kv2 = NewMemoryKvStore();
  std::unique_ptr<KvBatch> b = kv1->NewBatch();
  ASSERT_OK(b->Put("a", "1"));
  EXPECT_CODE(kv2->Commit(b.get(), false), kInvalidArgument);
  EXPECT_EQ(b->Count(), 1u);  // unchanged
  ASSERT_OK(kv1->Commit(b.get(), false));
}

// --- RocksDB lifecycle ---

class RocksDbKvStoreTest : public ::testing::Test {
 protected:
  std::string Path() const { return dir_.path() + "/kv"; }
  ScratchDir dir_;
};

TEST_F(RocksDbKvStoreTest, ReopenKeepsCommittedWritesOnly) {
  {
    Result<std::unique_ptr<KvStore>> r = OpenKvStore(Path(), KvOpenMode::kCreate);
    ASSERT_OK(r.status());
    std::unique_ptr<KvBatch> b = (*r)->NewBatch();
    ASSERT_OK(b->Put("durable", "yes"));
    ASSERT_OK((*r)->Commit(b.get(), /*sync=*/true));
    ASSERT_OK(b->Put("pending", "never committed"));
    b.reset();
  }
  Result<std::unique_ptr<KvStore>> r = OpenKvStore(Path(), KvOpenMode::kOpen);
  ASSERT_OK(r.status());
  EXPECT_EQ(Value((*r)->Get("durable")), "yes");
  EXPECT_EQ(Value((*r)->Get("pending")), std::nullopt);
}

TEST_F(RocksDbKvStoreTest, SecondOpenOfTheSamePathIsBusy) {
  Result<std::unique_ptr<KvStore>> first = OpenKvStore(Path(), KvOpenMode::kCreate);
  ASSERT_OK(first.status());
  EXPECT_CODE(OpenKvStore(Path(), KvOpenMode::kOpen).status(), kBusy);
  first.value().reset();
  Result<std::unique_ptr<KvStore>> again = OpenKvStore(Path(), KvOpenMode::kOpen);
  ASSERT_OK(again.status());
  EXPECT_CODE(OpenKvStore(Path(), KvOpenMode::kOpen).status(), kBusy);
}

TEST_F(RocksDbKvStoreTest, CreateOverExistingAndOpenOfMissing) {
  EXPECT_CODE(OpenKvStore(Path(), KvOpenMode::kOpen).status(), kNotFound);
  ASSERT_EQ(::mkdir(Path().c_str(), 0755), 0);
  EXPECT_CODE(OpenKvStore(Path(), KvOpenMode::kOpen).status(), kNotFound);  // empty dir
  ASSERT_OK(OpenKvStore(Path(), KvOpenMode::kCreate).status());
  EXPECT_CODE(OpenKvStore(Path(), KvOpenMode::kCreate).status(), kAlreadyExists);
  EXPECT_OK(OpenKvStore(Path(), KvOpenMode::kOpen).status());
}

}  // namespace
}  // namespace smr
