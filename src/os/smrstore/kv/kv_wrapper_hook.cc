// The process-wide KvStore wrapper hook (kv/kv_wrapper_hook.h).
#include "kv/kv_wrapper_hook.h"

#include <utility>

#include "common/thread_annotations.h"

namespace smr {

namespace {

struct Hook {
  Mutex mu{"kv_wrapper_hook"};
  KvStoreWrapper wrapper SMR_GUARDED_BY(mu);
};

Hook& TheHook() {
  static Hook* hook = new Hook();  // never destroyed: stores may close during exit
  return *hook;
}

}  // namespace

KvStoreWrapper SetKvStoreWrapper(KvStoreWrapper wrapper) {
  Hook& h = TheHook();
  MutexLock lock(&h.mu);
  std::swap(h.wrapper, wrapper);
  return wrapper;
}

std::unique_ptr<KvStore> WrapOpenedKvStore(const std::string& path, KvOpenMode mode,
                                           std::unique_ptr<KvStore> kv) {
  KvStoreWrapper wrapper;
  {
    Hook& h = TheHook();
    MutexLock lock(&h.mu);
    if (!h.wrapper) return kv;
    wrapper = h.wrapper;
  }
  return wrapper(path, mode, std::move(kv));
}

}  // namespace smr
