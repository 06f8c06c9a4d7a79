// The commit path when the metadata database fails to make a group durable, through a
// fault-injecting KvStore (kv/testing/fault_kv.h) under a real Store:
//   - pipelined (StoreOptions::commit_pipeline, the default): the sync thread's WAL sync
//     (CommitPipeline::SyncLoop -> MetaStore::SyncWal -> KvStore::SyncWal) fails;
//   - one thread (commit_pipeline = false): the synced metadata commit itself fails.
// The user-visible contract either way: no transaction of a group whose metadata was not
// made durable is answered OK; the answers still come in submission order; the store
// stops taking writes (later transactions are refused) and says why (the answers, the
// error log, the counters, Close); after a remount with the fault gone, everything
// acknowledged before the failure reads back, a transaction answered with the failure is
// either wholly there or wholly absent, deep fsck is clean, and the store takes writes again.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/engine_log.h"
#include "common/pattern.h"
#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "kv/testing/fault_kv.h"
#include "store/store.h"

namespace smr {
namespace {

using testing::ScratchDir;

ObjectId Obj(int i) {
  ObjectId o;
  o.pool = 1;
  o.name = "o" + std::to_string(i);
  return o;
}

// Transaction i's object bytes (sizes vary so records and packs mix).
std::string Bytes(int i) {
  std::string s(4096 + 4096 * (i % 4) + 100 * (i % 7), '\0');
  FillPattern(1000 + i, 0, s.data(), s.size());
  return s;
}

Transaction WriteTxn(int i) {
  Transaction t;
  t.Write("c", Obj(i), 0, Bytes(i));
  t.SetAttr("c", Obj(i), "idx", std::to_string(i));
  return t;
}

// The answers of submitted transactions, in the order their callbacks ran.
class Answers {
 public:
  Store::Callback For(int i) {
    return [this, i](const Status& s) {
      std::lock_guard<std::mutex> l(mu_);
      order_.push_back(i);
      status_.resize(std::max<size_t>(status_.size(), i + 1));
      status_[i] = s;
      cv_.notify_all();
    };
  }
  bool WaitCount(size_t n) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::seconds(60), [&] { return order_.size() >= n; });
  }
  size_t count() {
    std::lock_guard<std::mutex> l(mu_);
    return order_.size();
  }
  std::vector<int> order() {
    std::lock_guard<std::mutex> l(mu_);
    return order_;
  }
  Status status(int i) {
    std::lock_guard<std::mutex> l(mu_);
    return status_.at(i);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int> order_;
  std::vector<Status> status_;
};

// The engine's error lines while it lives.
class ErrorLog {
 public:
  ErrorLog() {
    old_ = SetLogSink([this](LogLevel level, const std::string& line) {
      if (level != LogLevel::kError) return;
      std::lock_guard<std::mutex> l(mu_);
      lines_.push_back(line);
    });
  }
  ~ErrorLog() { SetLogSink(std::move(old_)); }
  bool Has(const std::string& text) {
    std::lock_guard<std::mutex> l(mu_);
    for (const std::string& line : lines_) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }

 private:
  LogSink old_;
  std::mutex mu_;
  std::vector<std::string> lines_;
};

bool Contains(const Status& s, const std::string& text) {
  return s.ToString().find(text) != std::string::npos;
}

class CommitSyncFaultTest : public ::testing::Test {
 protected:
  // Mkfs and mount with every metadata store under the scratch dir behind `faults_`.
  void MkfsAndMount(bool pipelined) {
    StoreOptions o;
    o.max_group = 3;
    o.commit_pipeline = pipelined;
    specs_ = {"emu:" + dir_.path() + "/d0.img?zones=24&zone_mib=4&conv=1"};
    ASSERT_OK(Store::Mkfs(dir_.path() + "/store", specs_, o));
    Mount();
    ASSERT_GE(scope_.wrapped(), 2u) << "mkfs's and the mount's metadata stores are wrapped";
    Transaction mk;
    mk.MkColl("c", 0);
    ASSERT_OK(store_->Apply(std::move(mk)));
  }
  void Mount() {
    auto s = Store::Open(dir_.path() + "/store");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
  }
  // Submits transactions [from, to), answered into `answers`.
  void Submit(int from, int to, Answers* answers) {
    for (int i = from; i < to; ++i) store_->Submit(WriteTxn(i), answers->For(i));
  }
  // After a remount: the transactions of [0, end) answered OK read back whole; the others
  // are each wholly there or wholly absent; deep fsck is clean; a new write commits and
  // reads back.
  void ExpectRemountKeepsAcknowledged(Answers* answers, int end) {
    uint64_t acked = 0;
    for (int i = 0; i < end; ++i) {
      if (!answers->status(i).ok()) continue;
      ++acked;
      auto r = store_->Read("c", Obj(i), 0, 0);
      ASSERT_TRUE(r.ok()) << i << ": " << r.status().ToString();
      EXPECT_TRUE(*r == Bytes(i)) << "acknowledged transaction " << i << " lost its bytes";
      auto a = store_->GetAttr("c", Obj(i), "idx");
      EXPECT_TRUE(a.ok() && *a == std::to_string(i)) << i;
    }
    for (int i = 0; i < end; ++i) {
      if (answers->status(i).ok()) continue;
      auto r = store_->Read("c", Obj(i), 0, 0);
      auto a = store_->GetAttr("c", Obj(i), "idx");
      if (r.ok()) {
        EXPECT_TRUE(*r == Bytes(i)) << "transaction " << i << " is there, but torn";
        EXPECT_TRUE(a.ok() && *a == std::to_string(i)) << i;
      } else {
        EXPECT_TRUE(r.status().IsNotFound()) << i << ": " << r.status().ToString();
        EXPECT_FALSE(a.ok()) << i;
      }
    }
    auto fsck = store_->Fsck(/*deep=*/true, /*repair=*/false);
    ASSERT_TRUE(fsck.ok()) << fsck.status().ToString();
    for (const std::string& e : fsck->errors) ADD_FAILURE() << "fsck: " << e;
    EXPECT_GE(fsck->objects, acked);
    Transaction t;
    t.Write("c", Obj(end), 0, Bytes(end));
    ASSERT_OK(store_->Apply(std::move(t)));
    auto r = store_->Read("c", Obj(end), 0, 0);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(*r == Bytes(end));
    ASSERT_OK(store_->Close());
  }

  ScratchDir dir_;
  std::shared_ptr<KvFaults> faults_ = std::make_shared<KvFaults>();
  ScopedKvStoreFaults scope_{dir_.path(), faults_};
  std::vector<std::string> specs_;
  std::unique_ptr<Store> store_;
};

// Pipelined: the sync thread's WAL sync fails (and keeps failing, as RocksDB's does once it
// has a background error). The first SyncWal after arming is held while the commit thread
// commits all 24 transactions (groups of up to 3) unsynced and hands them on, so
// the failing syncs cover many groups: every one of their callbacks gets kReadOnly naming
// the failed sync, none OK, all in submission order after the 12 acknowledged before; a
// later transaction is refused kReadOnly; the error log and the counters say so; Close
// returns the reason. Remounted without the fault: the 12 read back, fsck is clean, writes
// work. (Mutant, by hand: SyncLoop answering a.results[i] when the sync failed — the 24
// callbacks get OK and this test fails.)
TEST_F(CommitSyncFaultTest, PipelinedWalSyncFailureAnswersEveryGroupOfTheBatchReadOnly) {
  ErrorLog log;
  ASSERT_NO_FATAL_FAILURE(MkfsAndMount(/*pipelined=*/true));
  constexpr int kAcked = 12, kFailed = 24;
  Answers answers;
  Submit(0, kAcked, &answers);
  ASSERT_TRUE(answers.WaitCount(kAcked));
  for (int i = 0; i < kAcked; ++i) ASSERT_OK(answers.status(i));
  const StoreCounters before = store_->Counters();

  faults_->HoldNext(KvFaultOp::kSyncWal);
  faults_->FailNext(KvFaultOp::kSyncWal, KvFaults::kForever);
  Submit(kAcked, kAcked + kFailed, &answers);
  ASSERT_TRUE(faults_->WaitHeld(KvFaultOp::kSyncWal, std::chrono::seconds(60)));
  // Every group committed (unsynced) and handed to the sync thread, none answered yet.
  ASSERT_TRUE(testing::WaitUntil([&] {
    return store_->Counters().txns_committed - before.txns_committed == uint64_t{kFailed};
  }));
  EXPECT_EQ(answers.count(), size_t{kAcked}) << "answered before the WAL sync";
  faults_->Release(KvFaultOp::kSyncWal);
  ASSERT_TRUE(answers.WaitCount(kAcked + kFailed));

  const std::vector<int> order = answers.order();
  for (int i = 0; i < kAcked + kFailed; ++i) EXPECT_EQ(order[i], i) << "answer " << i;
  for (int i = kAcked; i < kAcked + kFailed; ++i) {
    const Status s = answers.status(i);
    EXPECT_CODE(s, kReadOnly);
    EXPECT_TRUE(Contains(s, "syncing the metadata WAL failed")) << i << ": " << s.ToString();
    EXPECT_TRUE(Contains(s, "injected fault: KvStore::SyncWal")) << i << ": " << s.ToString();
  }
  EXPECT_GE(faults_->failed(KvFaultOp::kSyncWal), 1u);
  EXPECT_TRUE(log.Has("syncing the metadata WAL failed"));
  const StoreCounters after = store_->Counters();
  EXPECT_EQ(after.txns_committed, before.txns_committed) << "failed syncs counted committed";
  EXPECT_EQ(after.txns_failed - before.txns_failed, uint64_t{kFailed});
  EXPECT_EQ(store_->Stats().at("counters").at("txns_failed").get<uint64_t>(),
            after.txns_failed);

  // Later transactions are refused with the reason, async and sync.
  Submit(kAcked + kFailed, kAcked + kFailed + 3, &answers);
  ASSERT_TRUE(answers.WaitCount(kAcked + kFailed + 3));
  for (int i = kAcked + kFailed; i < kAcked + kFailed + 3; ++i) {
    const Status s = answers.status(i);
    // Refused before planning (FailGroupIfStopped), answered through the sync thread,
    // whose next sync fails again: either way the reason is the failed sync.
    EXPECT_CODE(s, kReadOnly);
    EXPECT_TRUE(Contains(s, "syncing the metadata WAL failed")) << s.ToString();
  }
  const Status later = store_->Apply(WriteTxn(kAcked + kFailed + 3));
  EXPECT_CODE(later, kReadOnly);
  EXPECT_TRUE(Contains(later, "syncing the metadata WAL failed")) << later.ToString();
  // Reads still work.
  auto r = store_->Read("c", Obj(0), 0, 0);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(*r == Bytes(0));
  const Status closed = store_->Close();
  EXPECT_CODE(closed, kReadOnly);
  EXPECT_TRUE(Contains(closed, "syncing the metadata WAL failed")) << closed.ToString();
  store_.reset();

  faults_->Disarm();
  ASSERT_NO_FATAL_FAILURE(Mount());
  ExpectRemountKeepsAcknowledged(&answers, kAcked + kFailed + 3);
}

// Pipelined, one failed sync only (the next one succeeds): the batch whose sync failed is
// answered kReadOnly, none of it OK; the store stays stopped even though a later sync works
// (a transaction after it is refused); remounted, the acknowledged ones read back and fsck
// is clean.
TEST_F(CommitSyncFaultTest, PipelinedOneFailedWalSyncStillStopsTheStore) {
  ASSERT_NO_FATAL_FAILURE(MkfsAndMount(/*pipelined=*/true));
  constexpr int kAcked = 6, kFailed = 9;
  Answers answers;
  Submit(0, kAcked, &answers);
  ASSERT_TRUE(answers.WaitCount(kAcked));
  for (int i = 0; i < kAcked; ++i) ASSERT_OK(answers.status(i));
  const StoreCounters before = store_->Counters();
  faults_->HoldNext(KvFaultOp::kSyncWal);
  faults_->FailNext(KvFaultOp::kSyncWal, 1);
  Submit(kAcked, kAcked + kFailed, &answers);
  ASSERT_TRUE(faults_->WaitHeld(KvFaultOp::kSyncWal, std::chrono::seconds(60)));
  ASSERT_TRUE(testing::WaitUntil([&] {
    return store_->Counters().txns_committed - before.txns_committed == uint64_t{kFailed};
  }));
  faults_->Release(KvFaultOp::kSyncWal);
  ASSERT_TRUE(answers.WaitCount(kAcked + kFailed));
  EXPECT_EQ(faults_->failed(KvFaultOp::kSyncWal), 1u);
  const std::vector<int> order = answers.order();
  for (int i = 0; i < kAcked + kFailed; ++i) EXPECT_EQ(order[i], i) << "answer " << i;
  // The held sync took the first group(s) only; the rest went to a later sync, which
  // passed: those may be answered OK (a sync makes every commit before it durable).
  // Whatever the failed sync covered — the first transactions after the acknowledged
  // ones, at least one — is not OK.
  int failed = 0;
  bool seen_ok = false;
  for (int i = kAcked; i < kAcked + kFailed; ++i) {
    const Status s = answers.status(i);
    if (!s.ok()) {
      ++failed;
      EXPECT_FALSE(seen_ok) << "transaction " << i << " failed after a later sync passed";
      EXPECT_CODE(s, kReadOnly);
      EXPECT_TRUE(Contains(s, "syncing the metadata WAL failed")) << s.ToString();
    } else {
      seen_ok = true;
    }
  }
  EXPECT_GE(failed, 1);
  EXPECT_FALSE(answers.status(kAcked).ok()) << "the held, failed sync's first transaction";
  EXPECT_EQ(store_->Counters().txns_failed - before.txns_failed, uint64_t(failed));
  EXPECT_CODE(store_->Apply(WriteTxn(kAcked + kFailed)), kReadOnly);
  EXPECT_CODE(store_->Close(), kReadOnly);
  store_.reset();
  faults_->Disarm();
  ASSERT_NO_FATAL_FAILURE(Mount());
  ExpectRemountKeepsAcknowledged(&answers, kAcked + kFailed);
}

// One thread (commit_pipeline = false): the group's metadata commit carries the WAL sync;
// it fails. Nothing of the group is applied; every transaction of it, and every later one,
// is answered kReadOnly naming the failure (none OK), in submission order; the log says why; Close
// returns it. Remounted: the acknowledged transactions read back, the failed ones are
// absent or whole, fsck is clean, writes work.
TEST_F(CommitSyncFaultTest, OneThreadSyncedMetadataCommitFailureFailsTheGroupAndStopsWrites) {
  ErrorLog log;
  ASSERT_NO_FATAL_FAILURE(MkfsAndMount(/*pipelined=*/false));
  constexpr int kAcked = 9, kFailed = 12;
  Answers answers;
  Submit(0, kAcked, &answers);
  ASSERT_TRUE(answers.WaitCount(kAcked));
  for (int i = 0; i < kAcked; ++i) ASSERT_OK(answers.status(i));
  const StoreCounters before = store_->Counters();
  EXPECT_EQ(faults_->calls(KvFaultOp::kCommitNoSync), 0u) << "one thread commits synced";

  faults_->FailNext(KvFaultOp::kCommitSync, KvFaults::kForever);
  Submit(kAcked, kAcked + kFailed, &answers);
  ASSERT_TRUE(answers.WaitCount(kAcked + kFailed));
  const std::vector<int> order = answers.order();
  for (int i = 0; i < kAcked + kFailed; ++i) EXPECT_EQ(order[i], i) << "answer " << i;
  for (int i = kAcked; i < kAcked + kFailed; ++i) {
    const Status s = answers.status(i);
    EXPECT_CODE(s, kReadOnly);  // as the pipelined path answers a failed WAL sync
    EXPECT_TRUE(Contains(s, "injected fault: KvStore::Commit(sync=true)"))
        << i << ": " << s.ToString();
  }
  EXPECT_GE(faults_->failed(KvFaultOp::kCommitSync), 1u);
  EXPECT_TRUE(log.Has("commit group failed, store stops taking writes"));
  const StoreCounters after = store_->Counters();
  EXPECT_EQ(after.txns_committed, before.txns_committed);
  // The group whose commit failed (later groups are refused before they are counted).
  EXPECT_GE(after.txns_failed - before.txns_failed, 1u);
  const Status later = store_->Apply(WriteTxn(kAcked + kFailed));
  EXPECT_CODE(later, kReadOnly);
  EXPECT_TRUE(Contains(later, "stopped taking writes earlier")) << later.ToString();
  const Status closed = store_->Close();
  EXPECT_CODE(closed, kReadOnly);
  EXPECT_TRUE(Contains(closed, "injected fault")) << closed.ToString();
  store_.reset();

  faults_->Disarm();
  ASSERT_NO_FATAL_FAILURE(Mount());
  ExpectRemountKeepsAcknowledged(&answers, kAcked + kFailed);
}

}  // namespace
}  // namespace smr
