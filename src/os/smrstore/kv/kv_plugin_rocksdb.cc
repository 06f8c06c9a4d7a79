// The entry point of the plugin module libsmrstore_kv_rocksdb.so (kv/kv_plugin.h): the
// RocksDB implementation behind the one exported extern "C" symbol.

#include <type_traits>

#include "kv/kv_plugin.h"
#include "kv/rocksdb_kv.h"

namespace smr {
namespace {

class RocksDbKvPlugin final : public KvPlugin {
 public:
  uint32_t abi_version() const override { return kKvPluginAbiVersion; }
  Result<std::unique_ptr<KvStore>> Open(const std::string& path,
                                        KvOpenMode mode) const override {
    return OpenRocksDbKvStore(path, mode);
  }
};

}  // namespace
}  // namespace smr

extern "C" __attribute__((visibility("default"))) const smr::KvPlugin* smrstore_kv_plugin_v1() {
  static const smr::RocksDbKvPlugin plugin;
  return &plugin;
}

static_assert(std::is_same_v<decltype(&smrstore_kv_plugin_v1), smr::KvPluginEntryFn>,
              "the entry symbol must have the signature the loader calls");
