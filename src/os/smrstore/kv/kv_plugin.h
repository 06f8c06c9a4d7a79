// The plugin boundary of kv/: RocksDB in a shared module behind dlopen(RTLD_DEEPBIND).
//
// Contract
//   Why: the engine runs inside Debian's unmodified ceph-osd (LD_PRELOAD), which carries and
//   exports its own, older RocksDB and has no DT_NEEDED on librocksdb. A library linking
//   Debian's librocksdb.so.7.8 loaded into it normally gets its rocksdb:: references bound
//   to ceph-osd's copy (and crashes in DB::Open). So in that build the engine links
//   smr_kv_plugin_loader instead of RocksDB, and OpenKvStore (kv_store.h) loads the module
//   libsmrstore_kv_rocksdb.so with RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND: the module and its
//   dependencies (librocksdb) resolve their symbols in their own scope first, so no
//   reference binds into ceph-osd, and RTLD_LOCAL keeps theirs out of everyone else's.
//
//   Module: exports exactly one symbol (kv/kv_plugin.map, linked with -z defs so every
//   reference resolves inside the module's own dependencies), kKvPluginEntrySymbol, an
//   extern "C" function returning a KvPlugin that lives as long as the process.
//
//   Loader: the module path is $SMRSTORE_KV_PLUGIN when set and non-empty, else
//   kKvPluginFileName in the directory of the object that contains the loader (the preload
//   library or the executable). A module is loaded once per path and never unloaded.
//   Failures name the path: dlopen failure (missing file, unresolved symbol, ...) is
//   kIOError with dlerror(); a missing entry symbol or an ABI version other than
//   kKvPluginAbiVersion is kNotSupported.
//
//   What crosses: virtual calls on KvPlugin / KvStore / KvBatch / KvIterator and the one
//   extern "C" entry. Arguments and results are std:: value types and Status/Result (one
//   libstdc++ and one malloc in the process: ceph-osd links neither tcmalloc nor jemalloc).
//   No exception and no RTTI crosses: the implementation never throws (allocation failure
//   aside) and downcasts with static_cast only.
//
//   Versioning: kKvPluginAbiVersion covers the layout of everything that crosses
//   (kv_store.h, this header, common/status.h, common/result.h); bump it on any change of
//   those. abi_version() is the first virtual function of KvPlugin and stays first.
//
// Thread safety: KvPlugin::Open is thread-safe; the loader serialises loads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/result.h"
#include "kv/kv_store.h"

namespace smr {

inline constexpr uint32_t kKvPluginAbiVersion = 2;  // 2: KvStore::SyncWal
inline constexpr char kKvPluginEntrySymbol[] = "smrstore_kv_plugin_v1";
inline constexpr char kKvPluginFileName[] = "libsmrstore_kv_rocksdb.so";
inline constexpr char kKvPluginPathEnv[] = "SMRSTORE_KV_PLUGIN";

class KvPlugin {
 public:
  // Vtable slot 0, forever: the loader checks it before any other call.
  virtual uint32_t abi_version() const = 0;
  // OpenKvStore (kv_store.h) implemented inside the module.
  virtual Result<std::unique_ptr<KvStore>> Open(const std::string& path,
                                                KvOpenMode mode) const = 0;

 protected:
  // Owned by the module; never deleted through this interface.
  ~KvPlugin() = default;
};

// The signature of the entry symbol.
using KvPluginEntryFn = const KvPlugin* (*)();

}  // namespace smr
