// A store on one emulated drive (spec_) under a FaultInjectionDevice that survives remounts,
// objects of 1 MiB written with a seed and checked against a model (ExpectModel: every
// object's data, a clean deep fsck). The fixture base of the GC tests
// (store/testing/gc_test_fixture.h) and of the hybrid store tests (store/hybrid_test.cc):
// a derived SetUp sets spec_ and options_ and calls MkfsAndMount.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "common/pattern.h"
#include "common/testing/test_util.h"
#include "device/device_spec.h"
#include "device/fault_injection_device.h"
#include "device/testing/borrowed_device.h"
#include "device/testing/device_test_backends.h"
#include "store/store.h"

namespace smr::testing {

inline constexpr uint64_t kMiB = 1ull << 20;
inline constexpr char kColl[] = "1.0_head";

inline ObjectId Obj(uint64_t i) {
  ObjectId o;
  o.pool = 1;
  o.name = "o" + std::to_string(i);
  o.hash = static_cast<uint32_t>(i * 2654435761u);
  return o;
}

inline std::string Data(uint64_t seed, size_t n) {
  std::string s(n, '\0');
  FillPattern(seed, 0, s.data(), n);
  return s;
}

class StoreOnFaultyDrive : public ::testing::Test {
 protected:
  void TearDown() override {
    if (store_) (void)store_->Close();
  }
  // A store in `dir` with `options` on the drive spec_ (created by Mkfs when it does not
  // exist; `force` for a drive that holds a closed store), the wrapper opened afresh on it,
  // mounted.
  void MkfsAndMount(const std::string& dir, const StoreOptions& options, bool force = false) {
    fault_.reset();
    ASSERT_OK(Store::Mkfs(dir, {spec_}, options, force));
    auto dev = OpenDevice(spec_);
    ASSERT_TRUE(dev.ok()) << dev.status().ToString();
    fault_ = std::make_unique<FaultInjectionDevice>(std::move(*dev));
    store_dir_ = dir;
    Mount();
  }
  // Opens the store in `dir` on the fault-injecting drive.
  Result<std::unique_ptr<Store>> OpenOnTheDrive(const std::string& dir, bool read_only = false) {
    return Store::Open(
        dir,
        [this](const std::string&) {
          return Result<std::unique_ptr<ZonedDevice>>(
              std::make_unique<BorrowedDevice>(fault_.get()));
        },
        read_only);
  }
  // Mounts the store of the last MkfsAndMount (or `store_dir_`).
  void Mount() {
    auto s = OpenOnTheDrive(store_dir_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
  }
  void Remount() {
    (void)store_->Close();
    store_.reset();
    Mount();
  }
  Status Put(uint64_t i, uint64_t seed) {
    Transaction t;
    t.Write(kColl, Obj(i), 0, Data(seed, kMiB));
    Status s = store_->Apply(std::move(t));
    if (s.ok()) model_[i] = seed;
    return s;
  }
  Status Remove(uint64_t i) {
    Transaction t;
    t.Remove(kColl, Obj(i));
    Status s = store_->Apply(std::move(t));
    if (s.ok()) model_.erase(i);
    return s;
  }
  // The device offset of the first read a Read of object `i` makes (where its data is).
  uint64_t DeviceOffsetOf(uint64_t i) {
    fault_->PauseNextRead(0, fault_->info().capacity_bytes());
    std::thread reader([&] { (void)store_->Read(kColl, Obj(i), 0, 0); });
    const uint64_t at = fault_->WaitForPausedRead();
    fault_->ResumePausedRead();
    reader.join();
    return at;
  }
  void ExpectModel() {
    for (const auto& [i, seed] : model_) {
      auto got = store_->Read(kColl, Obj(i), 0, 0);
      ASSERT_TRUE(got.ok()) << i << ": " << got.status().ToString();
      ASSERT_EQ(*got, Data(seed, kMiB)) << "object " << i;
    }
    auto r = store_->Fsck(/*deep=*/true, /*repair=*/false);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->ok()) << (r->errors.empty() ? "" : r->errors.front());
    EXPECT_EQ(r->objects, model_.size());
  }

  ScratchDir dir_;
  std::string spec_;
  StoreOptions options_;
  std::string store_dir_;
  std::unique_ptr<FaultInjectionDevice> fault_;
  std::unique_ptr<Store> store_;
  std::map<uint64_t, uint64_t> model_;  // object -> data seed
};

}  // namespace smr::testing
