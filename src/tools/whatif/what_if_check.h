// what-if --check: replays the scaled workload of a what-if prediction (what_if.h,
// GenerateScaled) into a real store — the engine (store/store.h) on one emulated drive of
// the predicted geometry, default StoreOptions — and measures what the prediction
// predicts, over the same measured window.
//
// Contract
//   RunCheck makes `work_dir` (which must not exist; kAlreadyExists), creates the drive
//   `emu:work_dir/d0.img?zones=Z&zone_kib=K&conv=2` and a store in work_dir/store (with
//   `options`: the defaults, or what --no-idle-gc changes), applies
//   every transaction of the scaled workload one at a time (Store::Apply: one commit group
//   per transaction, as the prediction's journal estimate assumes; background GC on), and
//   takes the store's counters (Store::Counters) when the first measured pass starts and
//   after the last one. Payloads are filler bytes of the recorded lengths; xattr and omap
//   values likewise. Objects are ObjectId{name = the (renamed) oid text, hash = crc32c of
//   it}. A transaction the store fails is counted (CheckResult::failed_txns), not fatal; a
//   store error that stops writes (e.g. kNoSpace for every transaction) is. The store is
//   closed and work_dir removed at the end unless `keep`.
// Thread safety: one call at a time per work_dir.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"
#include "store/store.h"
#include "what_if.h"

namespace smr::tool::whatif {

struct CheckResult {
  WindowFigures window;      // measured: store counters over the measured window
  uint64_t capacity = 0;     // the store's data capacity (Statfs total)
  uint64_t txns = 0;
  uint64_t failed_txns = 0;
  uint64_t checkpoints = 0;  // in the window
  double seconds = 0;
};

Result<CheckResult> RunCheck(const Capture& cap, const Prediction& pred, const Geometry& g,
                             const StoreOptions& options, const std::string& work_dir, bool keep);

}  // namespace smr::tool::whatif
