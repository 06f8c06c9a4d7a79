// A plugin module with the right entry point and the wrong ABI version, for
// kv_plugin_loader_test.cc: the loader must refuse it before any other call.

#include "kv/kv_plugin.h"

namespace {

class BadVersionKvPlugin final : public smr::KvPlugin {
 public:
  uint32_t abi_version() const override { return smr::kKvPluginAbiVersion + 1000; }
  smr::Result<std::unique_ptr<smr::KvStore>> Open(const std::string&,
                                                  smr::KvOpenMode) const override {
    return smr::Status::NotSupported("the bad-version test plugin opens nothing");
  }
};

}  // namespace

extern "C" const smr::KvPlugin* smrstore_kv_plugin_v1() {
  static const BadVersionKvPlugin plugin;
  return &plugin;
}
