// The plugin boundary (kv/kv_plugin.h) as the ceph-osd preload library uses it: this binary
// links the engine and smr_kv_plugin_loader, not RocksDB, and reaches RocksDB only through
// libsmrstore_kv_rocksdb.so. Built into the module's directory (osd/), so the loader's
// default path is tested too. Its own binary: smrstore_tests links RocksDB directly.

#include <dlfcn.h>
#include <stdlib.h>

#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "kv/kv_plugin.h"
#include "kv/kv_store.h"
#include "meta/meta_store.h"
#include "store/store.h"
#include "store/transaction.h"

namespace smr {
namespace {

using smr::testing::ScratchDir;

bool RocksDbMapped() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream all;
  all << maps.rdbuf();
  return all.str().find("librocksdb") != std::string::npos;
}

// Taken before main: nothing has opened a store yet.
const bool kRocksDbMappedAtStart = RocksDbMapped();

// Points the loader at `path` (or at its default, when null) for one test.
class PluginEnv {
 public:
  explicit PluginEnv(const char* path) {
    if (path != nullptr) {
      ::setenv(kKvPluginPathEnv, path, 1);
    } else {
      ::unsetenv(kKvPluginPathEnv);
    }
  }
  ~PluginEnv() { ::unsetenv(kKvPluginPathEnv); }
};

std::optional<std::string> Get(KvStore* kv, const std::string& key) {
  Result<std::optional<std::string>> r = kv->Get(key);
  EXPECT_OK(r.status());
  return r.ok() ? *r : std::nullopt;
}

TEST(KvPluginLoaderTest, ProgramDoesNotLinkRocksDb) {
  EXPECT_FALSE(kRocksDbMappedAtStart) << "librocksdb was mapped before any store was opened: "
                                         "the binary links it (DT_NEEDED)";
}

TEST(KvPluginLoaderTest, OpenWriteReadReopenThroughThePlugin) {
  PluginEnv env(SMR_TEST_KV_PLUGIN);
  ScratchDir dir;
  const std::string path = dir.path() + "/kv";
  {
    Result<std::unique_ptr<KvStore>> r = OpenKvStore(path, KvOpenMode::kCreate);
    ASSERT_OK(r.status());
    KvStore* kv = r->get();
    std::unique_ptr<KvBatch> b = kv->NewBatch();
    ASSERT_OK(b->Put("a", "1"));
    ASSERT_OK(b->Put("b", "2"));
    b->SetSavePoint();
    ASSERT_OK(b->Put("c", "3"));
    ASSERT_OK(b->RollbackToSavePoint());
    EXPECT_EQ(Get(kv, "a"), std::nullopt);  // not before Commit
    ASSERT_OK(kv->Commit(b.get(), /*sync=*/true));
    EXPECT_EQ(Get(kv, "a"), "1");
    std::unique_ptr<KvIterator> it = kv->NewIterator(KvBounds{});
    std::string keys;
    for (it->Seek(""); it->Valid(); it->Next()) keys += std::string(it->key());
    EXPECT_OK(it->status());
    EXPECT_EQ(keys, "ab");
    // Errors cross the boundary as Status values.
    EXPECT_CODE(OpenKvStore(path, KvOpenMode::kOpen).status(), kBusy);
    EXPECT_CODE(OpenKvStore(path, KvOpenMode::kCreate).status(), kAlreadyExists);
    EXPECT_CODE(OpenKvStore(dir.path() + "/none", KvOpenMode::kOpen).status(), kNotFound);
    EXPECT_CODE(b->PopSavePoint(), kNotFound);
  }
  Result<std::unique_ptr<KvStore>> r = OpenKvStore(path, KvOpenMode::kOpen);
  ASSERT_OK(r.status());
  EXPECT_EQ(Get(r->get(), "b"), "2");
  EXPECT_EQ(Get(r->get(), "c"), std::nullopt);

  // RocksDB is in the process now, but loaded RTLD_LOCAL: neither the entry point nor
  // RocksDB's symbols are visible to the rest of the process.
  EXPECT_TRUE(RocksDbMapped());
  EXPECT_EQ(::dlsym(RTLD_DEFAULT, kKvPluginEntrySymbol), nullptr);
  EXPECT_EQ(::dlsym(RTLD_DEFAULT, "rocksdb_open"), nullptr);  // RocksDB's C API
}

TEST(KvPluginLoaderTest, DefaultPathIsBesideTheObjectContainingTheLoader) {
  PluginEnv env(nullptr);
  ScratchDir dir;
  Result<std::unique_ptr<KvStore>> r = OpenKvStore(dir.path() + "/kv", KvOpenMode::kCreate);
  ASSERT_OK(r.status());
}

TEST(KvPluginLoaderTest, MetaStoreAndStoreRunOnThePlugin) {
  PluginEnv env(SMR_TEST_KV_PLUGIN);
  ScratchDir dir;
  {
    Result<std::unique_ptr<MetaStore>> meta = MetaStore::Create(dir.path() + "/meta");
    ASSERT_OK(meta.status());
    std::unique_ptr<MetaStore::Batch> b = (*meta)->NewBatch();
    b->PutCounter("nid_max", 42);
    ASSERT_OK((*meta)->Commit(b.get(), true));
    b.reset();
    meta.value().reset();
    meta = MetaStore::Open(dir.path() + "/meta");
    ASSERT_OK(meta.status());
    Result<uint64_t> nid_max = (*meta)->GetCounter(nullptr, "nid_max");
    ASSERT_OK(nid_max.status());
    EXPECT_EQ(*nid_max, 42u);
  }

  const std::vector<std::string> specs = {"emu:" + dir.path() +
                                          "/d0.img?zones=16&zone_mib=4&conv=1&max_open=8"};
  ASSERT_OK(Store::Mkfs(dir.path() + "/store", specs, StoreOptions()));
  ObjectId oid;
  oid.pool = 1;
  oid.name = "obj";
  for (int mount = 0; mount < 2; ++mount) {
    Result<std::unique_ptr<Store>> store = Store::Open(dir.path() + "/store");
    ASSERT_OK(store.status());
    if (mount == 0) {
      Transaction t;
      t.MkColl("c", 0);
      t.Write("c", oid, 0, "hello through the plugin");
      t.OmapSetKeys("c", oid, {{"k", "v"}});
      ASSERT_OK((*store)->Apply(std::move(t)));
    }
    Result<std::string> data = (*store)->Read("c", oid, 0, 0);
    ASSERT_OK(data.status());
    EXPECT_EQ(*data, "hello through the plugin");
    ASSERT_OK((*store)->Close());
  }
}

TEST(KvPluginLoaderTest, MissingPluginNamesThePath) {
  const std::string bad = "/nonexistent-dir/libsmrstore_kv_nothing.so";
  PluginEnv env(bad.c_str());
  ScratchDir dir;
  const Status s = OpenKvStore(dir.path() + "/kv", KvOpenMode::kCreate).status();
  EXPECT_CODE(s, kIOError);
  EXPECT_NE(s.message().find(bad), std::string::npos) << s.ToString();
  // MetaStore hands the same error on; not kNotFound, which would mean "no database".
  EXPECT_CODE(MetaStore::Open(dir.path() + "/kv").status(), kIOError);
}

TEST(KvPluginLoaderTest, WrongAbiVersionIsRefused) {
  PluginEnv env(SMR_TEST_BAD_VERSION_PLUGIN);
  ScratchDir dir;
  const Status s = OpenKvStore(dir.path() + "/kv", KvOpenMode::kCreate).status();
  EXPECT_CODE(s, kNotSupported);
  EXPECT_NE(s.message().find(SMR_TEST_BAD_VERSION_PLUGIN), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("ABI version " + std::to_string(kKvPluginAbiVersion + 1000)),
            std::string::npos)
      << s.ToString();
}

TEST(KvPluginLoaderTest, LibraryWithoutTheEntryPointIsRefused) {
  PluginEnv env(SMR_TEST_ROCKSDB_LIBRARY);
  ScratchDir dir;
  const Status s = OpenKvStore(dir.path() + "/kv", KvOpenMode::kCreate).status();
  EXPECT_CODE(s, kNotSupported);
  EXPECT_NE(s.message().find(SMR_TEST_ROCKSDB_LIBRARY), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(kKvPluginEntrySymbol), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace smr
