// StoreUnderTest: the store API the conformance suite (store/store_conformance*_test.cc)
// drives, so that one test source runs against two backends:
//   - direct (store/testing/direct_store_under_test.cc, in smrstore_tests): every call goes
//     straight to smr::Store;
//   - Ceph (objectstore/testing/objectstore_under_test.cc, in smrstore_ceph_tests): every
//     call is translated into Ceph's ObjectStore API on SMRStore (ceph::os::Transaction,
//     queue_transactions, CollectionHandle reads, the omap iterator).
//
// Contract
//   The methods have smr::Store's names, signatures and semantics (store/store.h). A test
//   binary links exactly one backend, which defines the three factory functions below.
// Thread safety: as smr::Store (every method may be called from any thread).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "format/object_id.h"
#include "store/store.h"
#include "store/transaction.h"

namespace smr::testing {

class StoreUnderTest {
 public:
  virtual ~StoreUnderTest() = default;

  virtual Status Close() = 0;
  virtual void Submit(Transaction txn, Store::Callback on_commit) = 0;
  virtual Status Apply(Transaction txn) = 0;

  virtual Result<std::string> Read(const std::string& coll, const ObjectId& oid,
                                   uint64_t offset, uint64_t len) = 0;
  virtual Result<ObjectStat> Stat(const std::string& coll, const ObjectId& oid) = 0;
  virtual bool Exists(const std::string& coll, const ObjectId& oid) = 0;
  virtual Result<std::string> GetAttr(const std::string& coll, const ObjectId& oid,
                                      const std::string& name) = 0;
  virtual Result<std::map<std::string, std::string>> GetAttrs(const std::string& coll,
                                                              const ObjectId& oid) = 0;
  virtual Result<std::map<uint64_t, uint64_t>> Fiemap(const std::string& coll,
                                                      const ObjectId& oid, uint64_t offset,
                                                      uint64_t len) = 0;

  virtual Result<std::vector<std::string>> ListCollections() = 0;
  virtual bool CollectionExists(const std::string& coll) = 0;
  virtual Result<bool> CollectionEmpty(const std::string& coll) = 0;
  virtual Result<uint32_t> CollectionBits(const std::string& coll) = 0;
  virtual Status ListObjects(const std::string& coll, const ObjectId& start,
                             const ObjectId& end, size_t max, std::vector<ObjectId>* out,
                             ObjectId* next) = 0;

  virtual Result<std::string> GetOmapHeader(const std::string& coll, const ObjectId& oid) = 0;
  virtual Result<std::vector<std::pair<std::string, std::string>>> ListOmap(
      const std::string& coll, const ObjectId& oid, const std::string* after, size_t max) = 0;
  virtual Result<std::map<std::string, std::string>> GetOmapValues(
      const std::string& coll, const ObjectId& oid, const std::set<std::string>& keys) = 0;

  virtual Result<FsckReport> Fsck(bool deep, bool repair) = 0;
  virtual StoreCounters Counters() = 0;
  virtual StoreStatfs Statfs() = 0;
};

// Store::Mkfs for the backend: makes a store in `dir` on `specs`.
Status MkfsStoreUnderTest(const std::string& dir, const std::vector<std::string>& specs,
                          const StoreOptions& options, bool force);
// Store::Open for the backend: mounts the store `MkfsStoreUnderTest` made in `dir`.
Result<std::unique_ptr<StoreUnderTest>> OpenStoreUnderTest(const std::string& dir);
// "direct" or "objectstore", for test output.
const char* StoreUnderTestBackend();

}  // namespace smr::testing
