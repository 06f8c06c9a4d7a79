// KvStoreWrapper: a process-wide, test-only hook that wraps every KvStore MetaStore opens —
// how a Store under test gets a fault-injecting KvStore (kv/testing/fault_kv.h).
//
// Contract
//   MetaStore::Create and MetaStore::Open pass the KvStore that OpenKvStore returned through
//   WrapOpenedKvStore before using it. With no wrapper set (every program but the tests
//   that set one) it returns `kv` unchanged: the hook costs one uncontended lock per
//   metadata open and nothing per operation. With a wrapper set it returns what the wrapper
//   returns for (path, mode, kv); a wrapper may return `kv` itself (a store it does not
//   want to wrap), else a KvStore that owns `kv` and forwards to it. It must not return
//   null.
//
//   Why this seam (and not another): OpenKvStore is chosen at link time (smr_kv_rocksdb in
//   the test binaries and smrstore-tool, smr_kv_plugin_loader in the OSD module), so a hook
//   there would have to be repeated in both definitions or would miss one; StoreOptions are
//   persisted at mkfs and documented for operators, no place for a test switch; a
//   Store::Open parameter would have to be threaded through Open, RebuildMeta and the tools.
//   MetaStore is the only caller of OpenKvStore in the engine, so wrapping there covers
//   every path a Store takes to its metadata — mkfs, mount, remount, read-only mounts —
//   whichever OpenKvStore the program links. The wrapper lives on the host side of the kv
//   plugin boundary: the plugin ABI (kv/kv_plugin.h) and the on-disk formats are untouched.
//   Only test code calls SetKvStoreWrapper (kv/testing/fault_kv.h's
//   ScopedKvStoreFaults); no engine code does.
//
// Invariants
//   - The wrapper sees only stores opened after it was set; a store already open keeps what
//     it was given (restoring the old wrapper does not unwrap it).
//
// Thread safety: SetKvStoreWrapper and WrapOpenedKvStore may be called from any thread at
// any time (a mutex guards the wrapper; the wrapper is called outside it, on a copy, so a
// wrapper may open stores or set the hook itself).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "kv/kv_store.h"

namespace smr {

using KvStoreWrapper = std::function<std::unique_ptr<KvStore>(
    const std::string& path, KvOpenMode mode, std::unique_ptr<KvStore> kv)>;

// Replaces the process-wide wrapper (an empty function: none). Returns the old one.
KvStoreWrapper SetKvStoreWrapper(KvStoreWrapper wrapper);

// `kv` (just opened at `path` in `mode`) through the wrapper, if one is set.
std::unique_ptr<KvStore> WrapOpenedKvStore(const std::string& path, KvOpenMode mode,
                                           std::unique_ptr<KvStore> kv);

}  // namespace smr
