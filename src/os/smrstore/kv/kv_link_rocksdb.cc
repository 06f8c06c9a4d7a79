// OpenKvStore for programs that link RocksDB directly (CMake target smr_kv_rocksdb):
// smrstore-tool and the test binaries.

#include "kv/kv_store.h"
#include "kv/rocksdb_kv.h"

namespace smr {

Result<std::unique_ptr<KvStore>> OpenKvStore(const std::string& path, KvOpenMode mode) {
  return OpenRocksDbKvStore(path, mode);
}

}  // namespace smr
