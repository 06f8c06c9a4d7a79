// Randomized model test of smrstore's Store: an in-memory reference model (collections ->
// objects -> {data, attrs, omap header, omap}) and the real store are driven by the same
// random transactions — multi-op, some meant to fail — with clean remounts, group-committed
// bursts, write faults and power cuts (FaultInjectionDevice under the store, kept alive
// across mounts through testing::BorrowedDevice).
//
// The invariant: the store always equals the model of every transaction whose Apply (or
// callback) returned OK, in submission order. A transaction the model rejects must fail
// with the model's error code and leave nothing behind. After a power cut nothing committed
// may be lost, since a transaction's data is flushed before its metadata commits.
//
// Replay: a failure prints its seed. SMRSTORE_MODEL_SEED=<n> runs only that seed;
// SMRSTORE_MODEL_TXNS=<n> sets the transactions per seed (default 500).
//
// The reference model is store/testing/store_model.h, the generator of random transactions
// store/testing/store_model_generator.h; this file holds the fixture (the store on
// fault-injecting drives that outlive every mount, remounts, power cuts, bursts of
// group-committed or faulted transactions) and the test.
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/testing/test_util.h"
#include "device/device_spec.h"
#include "device/fault_injection_device.h"
#include "device/testing/borrowed_device.h"
#include "device/testing/device_test_backends.h"
#include "store/store.h"
#include "store/testing/store_model.h"
#include "store/testing/store_model_generator.h"
#include "store/transaction.h"

namespace smr::store_model {
namespace {

using testing::ScratchDir;

uint64_t EnvU64(const char* name, uint64_t dflt) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return dflt;
  return std::strtoull(v, nullptr, 10);
}

std::vector<uint64_t> Seeds() {
  const char* v = std::getenv("SMRSTORE_MODEL_SEED");
  if (v != nullptr && *v != '\0') return {std::strtoull(v, nullptr, 10)};
  return {1, 2, 3};
}

class StoreModelTest : public ::testing::TestWithParam<uint64_t> {
 protected:
  void SetUp() override {
    seed_ = GetParam();
    txns_ = EnvU64("SMRSTORE_MODEL_TXNS", 500);
    // Vary the layout: seed%3 == 0 keeps small objects inline and splits records at 16 KiB;
    // seed%3 == 1 splits at 32 KiB; seed%3 == 2 uses the defaults.
    if (seed_ % 3 == 0) {
      options_.inline_max = 2048;
      options_.max_record_payload = 16 * 1024;
      options_.small_write_max = 8 * 1024;
    } else if (seed_ % 3 == 1) {
      options_.max_record_payload = 32 * 1024;
    }
    specs_ = testing::StoreTestSpecs(
        {"emu:" + dir_.path() + "/d0.img?zones=40&zone_mib=4&conv=1&max_open=8",
         "emu:" + dir_.path() + "/d1.img?zones=40&zone_mib=4&conv=1&max_open=8"});
    ASSERT_OK(Store::Mkfs(dir_.path() + "/store", specs_, options_,
                          /*force=*/testing::StoreTestOnKernelDevices()));
    for (const std::string& spec : specs_) {
      auto dev = OpenDevice(spec);
      ASSERT_TRUE(dev.ok()) << dev.status().ToString();
      drives_.push_back(std::make_unique<FaultInjectionDevice>(std::move(*dev)));
    }
    Mount();
  }

  void TearDown() override {
    if (store_) (void)store_->Close();
    store_.reset();
    drives_.clear();
  }

  void Mount() {
    Store::DeviceOpener opener =
        [this](const std::string& spec) -> Result<std::unique_ptr<ZonedDevice>> {
      for (size_t i = 0; i < specs_.size(); ++i) {
        if (specs_[i] == spec) {
          return std::unique_ptr<ZonedDevice>(
              std::make_unique<testing::BorrowedDevice>(drives_[i].get()));
        }
      }
      return Status::NotFound("test opener: unknown spec " + spec);
    };
    auto s = Store::Open(dir_.path() + "/store", opener);
    ASSERT_TRUE(s.ok()) << "mount: " << s.status().ToString();
    store_ = std::move(*s);
  }

  void CleanRemount() {
    ++remounts_;
    ASSERT_OK(store_->Close());
    store_.reset();
    Mount();
  }

  // Stops the drives, cuts power, drops the store, and remounts on the same drives.
  void PowerCutAndRemount(std::mt19937_64& rng) {
    ++power_cuts_;
    for (auto& d : drives_) d->FailNthWrite(1, /*sticky=*/true);
    const auto mode = rng() % 2 ? FaultInjectionDevice::PowerCutMode::kTornUnflushed
                                : FaultInjectionDevice::PowerCutMode::kLoseUnflushed;
    for (auto& d : drives_) ASSERT_OK(d->PowerCut(mode, rng()));
    (void)store_->Close();  // may fail: the drives refuse writes
    store_.reset();
    for (auto& d : drives_) d->ClearFaults();
    Mount();
  }

  void ExpectSameAsModel(const char* when) {
    const std::string diff = DiffStore(store_.get(), model_);
    ASSERT_EQ(diff, "") << "seed " << seed_ << ", after txn " << txn_index_ << " (" << when
                        << "); last transaction:\n"
                        << last_txn_;
    auto r = store_->Fsck(/*deep=*/true, /*repair=*/false);
    ASSERT_TRUE(r.ok()) << "seed " << seed_ << ": fsck: " << r.status().ToString();
    std::string errors;
    for (size_t i = 0; i < r->errors.size() && i < 5; ++i) errors += r->errors[i] + "\n";
    ASSERT_TRUE(r->ok()) << "seed " << seed_ << ", after txn " << txn_index_ << " (" << when
                         << "): fsck found " << r->errors.size() << " errors:\n"
                         << errors << "last transaction:\n"
                         << last_txn_;
  }

  // Checks the objects a transaction named (cheaper than a full comparison).
  void ExpectTouchedSameAsModel(const Transaction& t) {
    std::set<std::pair<std::string, std::string>> seen;
    for (const Op& op : t.ops()) {
      std::vector<std::pair<std::string, ObjectId>> named = {{op.coll, op.oid},
                                                             {op.coll, op.dest_oid}};
      if (!op.dest_coll.empty()) named.emplace_back(op.dest_coll, op.dest_oid);
      for (const auto& [c, o] : named) {
        if (!seen.insert({c, Id(o)}).second) continue;
        auto cit = model_.find(c);
        const MObj* want = nullptr;
        if (cit != model_.end()) {
          auto oit = cit->second.objs.find(o);
          if (oit != cit->second.objs.end()) want = oit->second.get();
        }
        std::string diff;
        if (want == nullptr) {
          auto exists = store_->Exists(c, o);
          if (!exists.ok()) {
            diff = c + "/" + o.ToString() + ": Exists: " + exists.status().ToString();
          } else if (*exists) {
            diff = c + "/" + o.ToString() + " exists, model: absent";
          }
        } else {
          diff = DiffObject(store_.get(), c, o, *want);
        }
        ASSERT_EQ(diff, "") << "seed " << seed_ << ", txn " << txn_index_ << ":\n"
                            << DescribeTxn(t);
      }
    }
  }

  // Runs `count` random transactions: without a fault, submitted back to back (they may be
  // group-committed); with a write fault armed on one drive, applied one by one. Returns
  // through *io_failed whether a commit failed for an I/O reason (after which nothing may
  // commit).
  void RunBurst(Generator* gen, int count, bool fault, bool* io_failed) {
    std::vector<Transaction> txns;
    std::vector<Status> predicted;
    std::vector<Undo> undos;
    for (int i = 0; i < count; ++i) {
      txns.push_back(gen->Build(&model_));
      Undo u;
      predicted.push_back(ModelApply(&model_, txns.back(), &u));
      undos.push_back(std::move(u));
    }
    if (fault) {
      FaultInjectionDevice* d = drives_[gen->Uniform(0, drives_.size() - 1)].get();
      d->FailNthWrite(gen->Uniform(1, 6), /*sticky=*/gen->Chance(50));
    }
    std::vector<Status> results(count);
    if (fault) {
      // One at a time, so that which write fails (and so what commits) does not depend on
      // how the commit thread happens to group transactions: a seed replays exactly.
      for (int i = 0; i < count; ++i) results[i] = store_->Apply(txns[i]);
    } else {
      std::mutex mu;
      std::condition_variable cv;
      std::vector<int> order;
      for (int i = 0; i < count; ++i) {
        Transaction copy = txns[i];
        store_->Submit(std::move(copy), [&, i](const Status& s) {
          std::lock_guard<std::mutex> lock(mu);
          results[i] = s;
          order.push_back(i);
          cv.notify_all();
        });
      }
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return static_cast<int>(order.size()) == count; });
      }
      for (int i = 0; i < count; ++i) {
        ASSERT_EQ(order[i], i) << "seed " << seed_ << ": callbacks out of submission order";
      }
    }
    // Decide what committed; undo (newest first) the predicted successes that did not.
    *io_failed = false;
    std::vector<int> to_undo;
    for (int i = 0; i < count; ++i) {
      txn_index_++;
      last_txn_ = DescribeTxn(txns[i]);
      const Status& s = results[i];
      const Status& p = predicted[i];
      if (s.ok()) {
        ASSERT_TRUE(p.ok()) << "seed " << seed_ << ", txn " << txn_index_
                            << ": store committed a transaction the model rejects ("
                            << p.ToString() << "):\n"
                            << last_txn_;
        ASSERT_FALSE(*io_failed) << "seed " << seed_ << ", txn " << txn_index_
                                 << ": committed after an earlier commit failed";
        continue;
      }
      if (p.ok()) {
        ASSERT_TRUE(fault) << "seed " << seed_ << ", txn " << txn_index_
                           << ": store failed a transaction the model accepts: "
                           << s.ToString() << "\n"
                           << last_txn_;
        *io_failed = true;
        to_undo.push_back(i);
      } else if (!fault) {
        ASSERT_EQ(s.code(), p.code())
            << "seed " << seed_ << ", txn " << txn_index_ << ": store says " << s.ToString()
            << ", model says " << p.ToString() << "\n"
            << last_txn_;
      }
    }
    for (auto it = to_undo.rbegin(); it != to_undo.rend(); ++it) undos[*it].Revert(&model_);
  }

  uint64_t seed_ = 0;
  uint64_t txns_ = 0;
  ScratchDir dir_;
  StoreOptions options_;
  std::vector<std::string> specs_;
  std::vector<std::unique_ptr<FaultInjectionDevice>> drives_;  // outlive every mount
  std::unique_ptr<Store> store_;
  Model model_;
  uint64_t txn_index_ = 0;
  std::string last_txn_;
  int remounts_ = 0, power_cuts_ = 0, fault_bursts_ = 0, io_failures_ = 0, failed_txns_ = 0;
};

TEST_P(StoreModelTest, RandomTransactionsRemountsAndPowerCuts) {
  SCOPED_TRACE("SMRSTORE_MODEL_SEED=" + std::to_string(seed_));
  Generator gen(seed_);
  std::mt19937_64& rng = gen.rng();
  {
    Transaction t;
    t.MkColl("1.0_head", 3);
    t.MkColl("meta", 0);
    ASSERT_OK(store_->Apply(t));
    ASSERT_OK(ModelApply(&model_, t));
  }
  while (txn_index_ < txns_) {
    const uint64_t r = gen.Uniform(0, 999);
    if (r < 25) {
      CleanRemount();
      ASSERT_FALSE(HasFatalFailure());
      ExpectSameAsModel("clean remount");
    } else if (r < 40) {
      PowerCutAndRemount(rng);
      ASSERT_FALSE(HasFatalFailure());
      ExpectSameAsModel("power cut");
    } else if (r < 55) {
      // Zone GC relocates live data: the state must not change. Sometimes a power cut
      // follows at once (GC's relocations and resets are then half done or not at all).
      auto gc = store_->RunGc(static_cast<uint32_t>(gen.Uniform(1, 4)));
      ASSERT_TRUE(gc.ok()) << "seed " << seed_ << ": " << gc.status().ToString();
      ExpectSameAsModel("gc");
      if (gen.Chance(30)) {
        PowerCutAndRemount(rng);
        ASSERT_FALSE(HasFatalFailure());
        ExpectSameAsModel("gc + power cut");
      }
    } else if (r < 70) {
      const bool fault = gen.Chance(50);
      bool io_failed = false;
      RunBurst(&gen, static_cast<int>(gen.Uniform(2, 12)), fault, &io_failed);
      ASSERT_FALSE(HasFatalFailure());
      if (fault) {
        ++fault_bursts_;
        io_failures_ += io_failed ? 1 : 0;
        PowerCutAndRemount(rng);
        ASSERT_FALSE(HasFatalFailure());
        ExpectSameAsModel(io_failed ? "write fault + power cut" : "armed fault + power cut");
      }
    } else {
      Transaction t = gen.Build(&model_);
      last_txn_ = DescribeTxn(t);
      ++txn_index_;
      Undo u;
      const Status want = ModelApply(&model_, t, &u);
      const Status got = store_->Apply(t);
      if (!want.ok()) ++failed_txns_;
      ASSERT_EQ(got.code(), want.code())
          << "seed " << seed_ << ", txn " << txn_index_ << ": store says " << got.ToString()
          << ", model says " << want.ToString() << "\n"
          << last_txn_;
      ExpectTouchedSameAsModel(t);
      ASSERT_FALSE(HasFatalFailure());
      bool coll_op = false;
      for (const Op& op : t.ops()) {
        coll_op |= op.code == C::kMkColl || op.code == C::kRmColl ||
                   op.code == C::kSplitCollection || op.code == C::kMergeCollection;
      }
      if (coll_op && !want.ok()) coll_op = false;
      if (coll_op) {
        ExpectSameAsModel("collection op");
        ASSERT_FALSE(HasFatalFailure());
      }
    }
  }
  ExpectSameAsModel("end");
  ASSERT_FALSE(HasFatalFailure());
  CleanRemount();
  ASSERT_FALSE(HasFatalFailure());
  ExpectSameAsModel("final remount");
  size_t objects = 0;
  for (const auto& [n, c] : model_) objects += c.objs.size();
  std::printf("[ model    ] seed %llu: %llu txns (%d rejected), %d remounts, %d power cuts, "
              "%d fault bursts (%d hit), %zu collections, %zu objects at the end\n",
              static_cast<unsigned long long>(seed_),
              static_cast<unsigned long long>(txn_index_), failed_txns_, remounts_,
              power_cuts_, fault_bursts_, io_failures_, model_.size(), objects);
}

INSTANTIATE_TEST_SUITE_P(StoreModel, StoreModelTest, ::testing::ValuesIn(Seeds()),
                         [](const ::testing::TestParamInfo<uint64_t>& info) {
                           return "seed" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace smr::store_model
