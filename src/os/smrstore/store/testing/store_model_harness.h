// The harness of the store's randomized model runs (store/store_model_test.cc, the fixed
// layouts; store/store_matrix_test.cc, configurations drawn over the option space): a real
// Store on fault-injecting drives that outlive every mount (testing::BorrowedDevice), the
// reference model (store/testing/store_model.h) it must always equal, and the steps a run
// is made of — clean remounts, power cuts, bursts of group-committed or faulted
// transactions, one transaction at a time with its error code checked against the model,
// and comparisons (whole store + fsck --deep, or just the objects a transaction named).
//
// The invariant: the store equals the model of every transaction whose Apply (or
// callback) returned OK, in submission order. A transaction the model rejects must fail
// with the model's error code and leave nothing behind. After a power cut nothing
// committed may be lost (data is flushed before its metadata commits).
//
// Steps report failures with gtest ASSERTs naming the seed (callers check
// HasFatalFailure() after each). Not thread-safe: one test thread drives it.
#pragma once

#include <condition_variable>
#include <cstdint>
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

// A run's size from the environment (SMRSTORE_MODEL_TXNS, SMRSTORE_MATRIX_TXNS, ...).
inline uint64_t EnvU64(const char* name, uint64_t dflt) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return dflt;
  return std::strtoull(v, nullptr, 10);
}

class ModelHarness {
 public:
  // `dir` holds the store (dir/store); `specs` are its drives (created by mkfs).
  ModelHarness(uint64_t seed, std::string dir, std::vector<std::string> specs,
               StoreOptions options)
      : seed_(seed), dir_(std::move(dir)), specs_(std::move(specs)), options_(options) {}
  ~ModelHarness() {
    if (store_) (void)store_->Close();
    store_.reset();
    drives_.clear();
  }

  std::string store_dir() const { return dir_ + "/store"; }
  const std::vector<std::string>& specs() const { return specs_; }
  Store* store() { return store_.get(); }
  Model& model() { return model_; }
  uint64_t seed() const { return seed_; }
  uint64_t txns() const { return txn_index_; }
  const std::string& last_txn() const { return last_txn_; }

  // Mkfs on the drives, wraps each in a FaultInjectionDevice, mounts.
  void Create() {
    ASSERT_OK(Store::Mkfs(store_dir(), specs_, options_,
                          /*force=*/testing::StoreTestOnKernelDevices()));
    for (const std::string& spec : specs_) {
      auto dev = OpenDevice(spec);
      ASSERT_TRUE(dev.ok()) << dev.status().ToString();
      drives_.push_back(std::make_unique<FaultInjectionDevice>(std::move(*dev)));
    }
    Mount();
  }

  // Opens the drives the harness keeps (for Store::Open and Store::RebuildMeta).
  Store::DeviceOpener Opener() {
    return [this](const std::string& spec) -> Result<std::unique_ptr<ZonedDevice>> {
      for (size_t i = 0; i < specs_.size(); ++i) {
        if (specs_[i] == spec) {
          return std::unique_ptr<ZonedDevice>(
              std::make_unique<testing::BorrowedDevice>(drives_[i].get()));
        }
      }
      return Status::NotFound("test opener: unknown spec " + spec);
    };
  }

  void Mount() {
    auto s = Store::Open(store_dir(), Opener());
    ASSERT_TRUE(s.ok()) << "seed " << seed_ << ": mount: " << s.status().ToString();
    store_ = std::move(*s);
  }

  void Unmount() {
    ASSERT_OK(store_->Close());
    store_.reset();
  }

  void CleanRemount() {
    ++remounts;
    Unmount();
    Mount();
  }

  // Stops the drives, cuts power, drops the store, and remounts on the same drives.
  void PowerCutAndRemount(std::mt19937_64& rng) {
    ++power_cuts;
    // Off first: the store is still running, and a flush or a commit it makes after the
    // cut must not succeed on what the cut lost (a real cut stops it).
    for (auto& d : drives_) d->PowerOff();
    const auto mode = rng() % 2 ? FaultInjectionDevice::PowerCutMode::kTornUnflushed
                                : FaultInjectionDevice::PowerCutMode::kLoseUnflushed;
    for (auto& d : drives_) ASSERT_OK(d->PowerCut(mode, rng()));
    (void)store_->Close();  // may fail: the drives refuse writes
    store_.reset();
    for (auto& d : drives_) d->ClearFaults();
    Mount();
  }

  // The whole store equals the model, and fsck --deep is clean.
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

  // Applies one transaction; its result must be the model's. Returns the model's verdict
  // through *accepted (when given).
  void ApplyOne(const Transaction& t, bool* accepted = nullptr) {
    last_txn_ = DescribeTxn(t);
    ++txn_index_;
    Undo u;
    const Status want = ModelApply(&model_, t, &u);
    const Status got = store_->Apply(t);
    if (!want.ok()) ++failed_txns;
    if (accepted != nullptr) *accepted = want.ok();
    ASSERT_EQ(got.code(), want.code())
        << "seed " << seed_ << ", txn " << txn_index_ << ": store says " << got.ToString()
        << ", model says " << want.ToString() << "\n"
        << (got.IsNoSpace() ? SpaceLine() + "\n" : std::string()) << last_txn_;
    ExpectTouchedSameAsModel(t);
  }

  // Submits `txns` back to back (they may be group-committed) or, with a write fault armed
  // on one drive, applies them one by one (which write fails, and so what commits, then
  // does not depend on grouping: a seed replays exactly). Sets *io_failed when a commit
  // failed for an I/O reason (after which nothing may commit).
  void RunBurst(Generator* gen, std::vector<Transaction> txns, bool fault, bool* io_failed) {
    const int count = static_cast<int>(txns.size());
    std::vector<Status> predicted;
    std::vector<Undo> undos;
    for (int i = 0; i < count; ++i) {
      Undo u;
      predicted.push_back(ModelApply(&model_, txns[i], &u));
      undos.push_back(std::move(u));
    }
    if (fault) {
      FaultInjectionDevice* d = drives_[gen->Uniform(0, drives_.size() - 1)].get();
      d->FailNthWrite(gen->Uniform(1, 6), /*sticky=*/gen->Chance(50));
    }
    std::vector<Status> results(count);
    if (fault) {
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
                           << SpaceLine() << "\n"
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

  // A burst of `count` generated transactions.
  void RunBurst(Generator* gen, int count, bool fault, bool* io_failed) {
    std::vector<Transaction> txns;
    for (int i = 0; i < count; ++i) {
      txns.push_back(gen->Build(&model_));
      Undo u;  // later transactions are built on the model after the earlier ones
      (void)ModelApply(&model_, txns.back(), &u);
      undos_while_building_.push_back(std::move(u));
    }
    for (auto it = undos_while_building_.rbegin(); it != undos_while_building_.rend(); ++it) {
      it->Revert(&model_);
    }
    undos_while_building_.clear();
    RunBurst(gen, std::move(txns), fault, io_failed);
  }

  // The store's space as Statfs reports it, for a NoSpace the model does not predict.
  std::string SpaceLine() {
    const StoreStatfs f = store_->Statfs();
    return "space: total " + std::to_string(f.total) + " available " +
           std::to_string(f.available) + " user_available " + std::to_string(f.user_available) +
           " allocated " + std::to_string(f.allocated) + " stored " + std::to_string(f.stored) +
           " reclaimable " + std::to_string(f.reclaimable) + (getenv("SMRSTORE_DBG_STATS") ? store_->StatsJson() : std::string());
  }

  // Counters a run prints.
  int remounts = 0, power_cuts = 0, fault_bursts = 0, io_failures = 0, failed_txns = 0;

 private:
  uint64_t seed_;
  std::string dir_;
  std::vector<std::string> specs_;
  StoreOptions options_;
  std::vector<std::unique_ptr<FaultInjectionDevice>> drives_;  // outlive every mount
  std::unique_ptr<Store> store_;
  Model model_;
  uint64_t txn_index_ = 0;
  std::string last_txn_;
  std::vector<Undo> undos_while_building_;
};

}  // namespace smr::store_model
