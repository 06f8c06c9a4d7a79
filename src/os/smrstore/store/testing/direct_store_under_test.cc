// The direct StoreUnderTest backend (store/testing/store_under_test.h): every call goes
// straight to smr::Store. Linked into smrstore_tests only.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "store/store.h"
#include "store/testing/store_under_test.h"

namespace smr::testing {
namespace {

class DirectStoreUnderTest final : public StoreUnderTest {
 public:
  explicit DirectStoreUnderTest(std::unique_ptr<Store> store) : store_(std::move(store)) {}

  Status Close() override { return store_->Close(); }
  void Submit(Transaction txn, Store::Callback on_commit) override {
    store_->Submit(std::move(txn), std::move(on_commit));
  }
  Status Apply(Transaction txn) override { return store_->Apply(std::move(txn)); }

  Result<std::string> Read(const std::string& coll, const ObjectId& oid, uint64_t offset,
                           uint64_t len) override {
    return store_->Read(coll, oid, offset, len);
  }
  Result<ObjectStat> Stat(const std::string& coll, const ObjectId& oid) override {
    return store_->Stat(coll, oid);
  }
  // The engine's lookup error (not a "no") fails the running test.
  bool Exists(const std::string& coll, const ObjectId& oid) override {
    auto r = store_->Exists(coll, oid);
    EXPECT_TRUE(r.ok()) << "Exists " << coll << "/" << oid.ToString() << ": "
                        << r.status().ToString();
    return r.ok() && *r;
  }
  Result<std::string> GetAttr(const std::string& coll, const ObjectId& oid,
                              const std::string& name) override {
    return store_->GetAttr(coll, oid, name);
  }
  Result<std::map<std::string, std::string>> GetAttrs(const std::string& coll,
                                                      const ObjectId& oid) override {
    return store_->GetAttrs(coll, oid);
  }
  Result<std::map<uint64_t, uint64_t>> Fiemap(const std::string& coll, const ObjectId& oid,
                                              uint64_t offset, uint64_t len) override {
    return store_->Fiemap(coll, oid, offset, len);
  }

  Result<std::vector<std::string>> ListCollections() override {
    return store_->ListCollections();
  }
  bool CollectionExists(const std::string& coll) override {
    auto r = store_->CollectionExists(coll);
    EXPECT_TRUE(r.ok()) << "CollectionExists " << coll << ": " << r.status().ToString();
    return r.ok() && *r;
  }
  Result<bool> CollectionEmpty(const std::string& coll) override {
    return store_->CollectionEmpty(coll);
  }
  Result<uint32_t> CollectionBits(const std::string& coll) override {
    return store_->CollectionBits(coll);
  }
  Status ListObjects(const std::string& coll, const ObjectId& start, const ObjectId& end,
                     size_t max, std::vector<ObjectId>* out, ObjectId* next) override {
    return store_->ListObjects(coll, start, end, max, out, next);
  }

  Result<std::string> GetOmapHeader(const std::string& coll, const ObjectId& oid) override {
    return store_->GetOmapHeader(coll, oid);
  }
  Result<std::vector<std::pair<std::string, std::string>>> ListOmap(
      const std::string& coll, const ObjectId& oid, const std::string* after,
      size_t max) override {
    return store_->ListOmap(coll, oid, after, max);
  }
  Result<std::map<std::string, std::string>> GetOmapValues(
      const std::string& coll, const ObjectId& oid, const std::set<std::string>& keys) override {
    return store_->GetOmapValues(coll, oid, keys);
  }

  Result<FsckReport> Fsck(bool deep, bool repair) override { return store_->Fsck(deep, repair); }
  StoreCounters Counters() override { return store_->Counters(); }
  StoreStatfs Statfs() override { return store_->Statfs(); }

 private:
  std::unique_ptr<Store> store_;
};

}  // namespace

Status MkfsStoreUnderTest(const std::string& dir, const std::vector<std::string>& specs,
                          const StoreOptions& options, bool force) {
  return Store::Mkfs(dir, specs, options, force);
}

Result<std::unique_ptr<StoreUnderTest>> OpenStoreUnderTest(const std::string& dir) {
  auto s = Store::Open(dir);
  if (!s.ok()) return s.status();
  return std::unique_ptr<StoreUnderTest>(
      std::make_unique<DirectStoreUnderTest>(std::move(s).value()));
}

const char* StoreUnderTestBackend() { return "direct"; }

}  // namespace smr::testing
