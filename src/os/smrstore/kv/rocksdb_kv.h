// The RocksDB implementation of kv_store.h, private to kv/: reached through OpenKvStore
// (kv_link_rocksdb.cc, linked in) or through the plugin module (kv_plugin_rocksdb.cc).
// This header does not include RocksDB.
#pragma once

#include <memory>
#include <string>

#include "common/result.h"
#include "kv/kv_store.h"

namespace smr {

// OpenKvStore's semantics (kv_store.h) on RocksDB at directory `path`.
Result<std::unique_ptr<KvStore>> OpenRocksDbKvStore(const std::string& path, KvOpenMode mode);

}  // namespace smr
