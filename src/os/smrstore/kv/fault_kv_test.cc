// Tests of kv/testing/fault_kv.h (the fault-injecting KvStore), over the in-memory fake and
// RocksDB, and of kv/kv_wrapper_hook.h through ScopedKvStoreFaults and MetaStore.

#include "kv/testing/fault_kv.h"

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "kv/kv_wrapper_hook.h"
#include "meta/meta_store.h"

namespace smr {
namespace {

using smr::testing::ScratchDir;

class FaultKvTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::unique_ptr<KvStore> inner;
    if (GetParam()) {
      auto r = OpenKvStore(dir_.path() + "/kv", KvOpenMode::kCreate);
      ASSERT_OK(r.status());
      inner = std::move(r).value();
    } else {
      inner = NewMemoryKvStore();
    }
    kv_ = NewFaultKvStore(std::move(inner), faults_);
  }
  Status Put(const std::string& k, const std::string& v, bool sync) {
    auto b = kv_->NewBatch();
    SMR_RETURN_IF_ERROR(b->Put(k, v));
    return kv_->Commit(b.get(), sync);
  }
  std::optional<std::string> Get(const std::string& k) {
    auto r = kv_->Get(k);
    EXPECT_OK(r.status());
    return r.ok() ? *r : std::nullopt;
  }

  ScratchDir dir_;
  std::shared_ptr<KvFaults> faults_ = std::make_shared<KvFaults>();
  std::unique_ptr<KvStore> kv_;
};

TEST_P(FaultKvTest, PassesEverythingThroughUnlessArmed) {
  ASSERT_OK(Put("a", "1", true));
  ASSERT_OK(Put("b", "2", false));
  ASSERT_OK(kv_->SyncWal());
  EXPECT_EQ(Get("a"), "1");
  EXPECT_EQ(Get("b"), "2");
  auto it = kv_->NewIterator({});
  it->Seek("");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "a");
  EXPECT_EQ(faults_->calls(KvFaultOp::kCommitSync), 1u);
  EXPECT_EQ(faults_->calls(KvFaultOp::kCommitNoSync), 1u);
  EXPECT_EQ(faults_->calls(KvFaultOp::kSyncWal), 1u);
  EXPECT_EQ(faults_->failed(KvFaultOp::kSyncWal), 0u);
}

// FailNext(op, count, skip): `skip` pass, `count` fail with kIOError, then all pass again;
// a failed Commit applies nothing and leaves the batch as it was (it commits once retried).
TEST_P(FaultKvTest, FailsTheArmedCallsOnlyAndAFailedCommitAppliesNothing) {
  faults_->FailNext(KvFaultOp::kSyncWal, 2, /*skip=*/1);
  EXPECT_OK(kv_->SyncWal());
  EXPECT_CODE(kv_->SyncWal(), kIOError);
  const Status s = kv_->SyncWal();
  EXPECT_CODE(s, kIOError);
  EXPECT_NE(s.ToString().find("injected fault: KvStore::SyncWal"), std::string::npos);
  EXPECT_OK(kv_->SyncWal());
  EXPECT_EQ(faults_->failed(KvFaultOp::kSyncWal), 2u);

  faults_->FailNext(KvFaultOp::kCommitSync, 1);
  auto b = kv_->NewBatch();
  ASSERT_OK(b->Put("k", "v"));
  EXPECT_CODE(kv_->Commit(b.get(), /*sync=*/true), kIOError);
  EXPECT_EQ(Get("k"), std::nullopt);
  EXPECT_EQ(b->Count(), 1u);
  ASSERT_OK(kv_->Commit(b.get(), /*sync=*/false));  // unsynced commits are not armed
  EXPECT_EQ(Get("k"), "v");

  faults_->FailNext(KvFaultOp::kCommitNoSync, KvFaults::kForever);
  for (int i = 0; i < 3; ++i) EXPECT_CODE(Put("x", "y", false), kIOError);
  EXPECT_OK(Put("x", "y", true));
  faults_->Disarm();
  EXPECT_OK(Put("z", "w", false));
  EXPECT_EQ(Get("z"), "w");
  EXPECT_EQ(faults_->failed(KvFaultOp::kCommitNoSync), 3u);
}

// HoldNext: the call waits in the wrapper until Release, then fails or passes as armed.
TEST_P(FaultKvTest, AHeldCallWaitsForReleaseThenFailsAsArmed) {
  faults_->HoldNext(KvFaultOp::kSyncWal);
  faults_->FailNext(KvFaultOp::kSyncWal, 1);
  auto held = std::async(std::launch::async, [this] { return kv_->SyncWal(); });
  ASSERT_TRUE(faults_->WaitHeld(KvFaultOp::kSyncWal, std::chrono::seconds(30)));
  EXPECT_EQ(held.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  EXPECT_EQ(faults_->calls(KvFaultOp::kSyncWal), 0u);
  faults_->Release(KvFaultOp::kSyncWal);
  EXPECT_CODE(held.get(), kIOError);
  EXPECT_OK(kv_->SyncWal());  // not held again
  EXPECT_FALSE(faults_->WaitHeld(KvFaultOp::kSyncWal, std::chrono::milliseconds(10)));
}

INSTANTIATE_TEST_SUITE_P(Backends, FaultKvTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "RocksDb" : "Memory";
                         });

// ScopedKvStoreFaults wraps the metadata stores MetaStore opens under its prefix, not
// others, and only while it lives; with no wrapper set MetaStore's store is unwrapped.
TEST(KvStoreWrapperHook, ScopedFaultsWrapMetaStoresUnderThePrefixOnly) {
  ScratchDir dir;
  auto faults = std::make_shared<KvFaults>();
  faults->FailNext(KvFaultOp::kSyncWal, KvFaults::kForever);
  {
    ScopedKvStoreFaults scope(dir.path() + "/in_", faults);
    auto in = MetaStore::Create(dir.path() + "/in_meta");
    ASSERT_OK(in.status());
    EXPECT_CODE((*in)->SyncWal(), kIOError);
    auto out = MetaStore::Create(dir.path() + "/out_meta");
    ASSERT_OK(out.status());
    EXPECT_OK((*out)->SyncWal());
    EXPECT_EQ(scope.wrapped(), 1u);
    in->reset();
    auto again = MetaStore::Open(dir.path() + "/in_meta");
    ASSERT_OK(again.status());
    EXPECT_CODE((*again)->SyncWal(), kIOError);
    EXPECT_EQ(scope.wrapped(), 2u);
  }
  auto after = MetaStore::Open(dir.path() + "/in_meta");
  ASSERT_OK(after.status());
  EXPECT_OK((*after)->SyncWal());
  EXPECT_EQ(faults->failed(KvFaultOp::kSyncWal), 2u);
}

}  // namespace
}  // namespace smr
