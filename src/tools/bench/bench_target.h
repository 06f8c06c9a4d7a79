// smrstore-tool bench: what the generator drives (Target): the store, or a directory of
// files on a peer file system (--fs-dir; fs_target.h has its PUT/DELETE/GET semantics).
// Objects are named by slot (Oid(slot).name); every PUT/DELETE is durable when it returns.
// Thread safety: every Target method may be called from any thread concurrently (the
// clients, the fill's callbacks and the sampler all use one Target).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/status.h"
#include "fs_target.h"
#include "store/store.h"

namespace smr::tool::bench {

// The collection the bench's objects live in (the caller creates it in the store).
constexpr const char* kColl = "bench";

class Target {
 public:
  virtual ~Target() = default;
  // Fill: writes new objects; `done` runs (on any thread) once all are durable.
  virtual void PutBatch(std::vector<std::pair<uint64_t, std::string>> objs,
                        std::function<void(const Status&)> done) = 0;
  // One PUT (`overwrite`: the name exists and is replaced atomically) or DELETE.
  // `on_commit` runs once it committed (for the store: on the commit thread, in commit
  // order). *ns = latency.
  virtual Status Put(uint64_t slot, const std::string& data, bool overwrite,
                     const std::function<void()>& on_commit, uint64_t* ns) = 0;
  virtual Status Remove(uint64_t slot, const std::function<void()>& on_commit,
                        uint64_t* ns) = 0;
  virtual Result<std::string> Read(uint64_t slot) = 0;
  // Advances whenever GC made progress (0 for file systems: their GC is invisible).
  virtual uint64_t GcProgress() = 0;
  // device_bytes_written / user_bytes_written (+ GC counters for the store). For a file
  // system, device bytes come from the --stat-dev kernel counters.
  virtual StoreCounters Counters() = 0;
  virtual StoreStatfs Statfs() = 0;
  // Makes everything written so far durable (before reading kernel write counters).
  virtual Status Sync() = 0;
};

// The store (it must hold the collection kColl); `store` outlives the Target.
std::unique_ptr<Target> MakeStoreTarget(Store* store);

// One file per object in `dir`; `capacity` is what users could store on the empty file
// system (statvfs f_bavail x f_frsize); device bytes come from the kernel write counters of
// `stat_devs`; the fill's batches are written by `workers` threads.
std::unique_ptr<Target> MakeFsTarget(std::unique_ptr<FsObjectDir> dir, uint64_t capacity,
                                     std::vector<std::string> stat_devs, size_t workers);

}  // namespace smr::tool::bench
