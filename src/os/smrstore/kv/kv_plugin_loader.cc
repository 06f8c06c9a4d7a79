// OpenKvStore for programs that must not link RocksDB (CMake target smr_kv_plugin_loader):
// loads libsmrstore_kv_rocksdb.so with dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND) and
// opens stores through its KvPlugin. See kv/kv_plugin.h for why and for the rules.

#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "common/thread_annotations.h"
#include "kv/kv_plugin.h"
#include "kv/kv_store.h"

namespace smr {

namespace {

std::string DlError() {
  const char* e = ::dlerror();
  return e != nullptr ? std::string(e) : std::string("unknown dlerror");
}

// Any function of this object: dladdr on it finds the file the loader was linked into.
void LoaderAnchor() {}

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// $SMRSTORE_KV_PLUGIN, else kKvPluginFileName beside the object containing this loader.
Result<std::string> PluginPath() {
  const char* env = ::secure_getenv(kKvPluginPathEnv);
  if (env != nullptr && env[0] != '\0') return std::string(env);

  Dl_info info{};
  struct link_map* map = nullptr;
  if (::dladdr1(reinterpret_cast<void*>(&LoaderAnchor), &info, reinterpret_cast<void**>(&map),
                RTLD_DL_LINKMAP) == 0 ||
      map == nullptr) {
    return Status::NotSupported(std::string("cannot find the key-value plugin: dladdr found no "
                                            "object containing the loader; set ") +
                                kKvPluginPathEnv);
  }
  std::string object;
  if (map->l_name != nullptr && map->l_name[0] != '\0') {
    // A shared object (the preload library): the path it was loaded by.
    object = map->l_name;
  } else {
    // The main program, whose link map has no name (dladdr would say argv[0]).
    char buf[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0) {
      return Status::NotSupported(std::string("cannot find the key-value plugin: readlink "
                                              "/proc/self/exe failed; set ") +
                                  kKvPluginPathEnv);
    }
    object.assign(buf, static_cast<size_t>(n));
  }
  return DirName(object) + "/" + kKvPluginFileName;
}

// Loads the module at `path` once per process (never unloaded: stores and RocksDB's
// background threads may outlive any caller) and checks its entry point and ABI version.
Result<const KvPlugin*> LoadPlugin(const std::string& path) {
  struct Loaded {
    Mutex mu;
    std::map<std::string, const KvPlugin*> by_path SMR_GUARDED_BY(mu);
  };
  // Leaked on purpose: no destructor runs at exit while a store may still be open.
  static auto* loaded = new Loaded();
  MutexLock lock(&loaded->mu);
  auto it = loaded->by_path.find(path);
  if (it != loaded->by_path.end()) return it->second;

  ::dlerror();  // clear a stale error
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (handle == nullptr) {
    return Status::IOError("cannot load the key-value plugin " + path + ": " + DlError());
  }
  ::dlerror();
  void* sym = ::dlsym(handle, kKvPluginEntrySymbol);
  if (sym == nullptr) {
    const std::string err = DlError();
    ::dlclose(handle);
    return Status::NotSupported("key-value plugin " + path + " has no entry point " +
                                kKvPluginEntrySymbol + ": " + err);
  }
  const KvPlugin* plugin = reinterpret_cast<KvPluginEntryFn>(sym)();
  if (plugin == nullptr) {
    ::dlclose(handle);
    return Status::NotSupported("key-value plugin " + path + ": entry point " +
                                kKvPluginEntrySymbol + " returned no plugin");
  }
  const uint32_t version = plugin->abi_version();
  if (version != kKvPluginAbiVersion) {
    ::dlclose(handle);
    return Status::NotSupported("key-value plugin " + path + " has ABI version " +
                                std::to_string(version) + ", this build needs " +
                                std::to_string(kKvPluginAbiVersion));
  }
  loaded->by_path.emplace(path, plugin);
  return plugin;
}

}  // namespace

Result<std::unique_ptr<KvStore>> OpenKvStore(const std::string& path, KvOpenMode mode) {
  SMR_ASSIGN_OR_RETURN(const std::string plugin_path, PluginPath());
  SMR_ASSIGN_OR_RETURN(const KvPlugin* plugin, LoadPlugin(plugin_path));
  return plugin->Open(path, mode);
}

}  // namespace smr
