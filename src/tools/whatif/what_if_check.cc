// what-if --check: the scaled workload through the real engine (what_if_check.h).
#include "what_if_check.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "common/crc32c.h"
#include "store/store.h"
#include "store/transaction.h"

namespace smr::tool::whatif {
namespace {

ObjectId Oid(const std::string& text) {
  ObjectId o;
  o.name = text;
  o.hash = crc32c::Value(text.data(), text.size());
  return o;
}

std::map<std::string, std::string> Filled(const std::vector<std::pair<std::string, uint64_t>>& kv,
                                          char fill) {
  std::map<std::string, std::string> out;
  for (const auto& [k, n] : kv) out[k] = std::string(n, fill);
  return out;
}

Transaction ToTransaction(const std::vector<CapOp>& ops) {
  Transaction t;
  for (const CapOp& op : ops) {
    const ObjectId o = Oid(op.oid);
    switch (op.kind) {
      case CapOp::kNone:
        break;
      case CapOp::kMkColl:
        t.MkColl(op.coll, 0);
        break;
      case CapOp::kTouch:
        t.Touch(op.coll, o);
        break;
      case CapOp::kWrite:
        t.Write(op.coll, o, op.offset, std::string(op.length, 'd'));
        break;
      case CapOp::kZero:
        t.Zero(op.coll, o, op.offset, op.length);
        break;
      case CapOp::kTruncate:
        t.Truncate(op.coll, o, op.offset);
        break;
      case CapOp::kRemove:
        t.Remove(op.coll, o);
        break;
      case CapOp::kSetAttrs:
        t.SetAttrs(op.coll, o, Filled(op.kv, 'a'));
        break;
      case CapOp::kRmAttr:
        t.RmAttr(op.coll, o, op.kv.at(0).first);
        break;
      case CapOp::kRmAttrs:
        t.RmAttrs(op.coll, o);
        break;
      case CapOp::kClone:
        t.Clone(op.coll, o, Oid(op.dest_oid));
        break;
      case CapOp::kCloneRange:
        t.CloneRange(op.coll, o, Oid(op.dest_oid), op.offset, op.length, op.dest_offset);
        break;
      case CapOp::kRename:
        t.CollMoveRename(op.coll, o, op.dest_coll, Oid(op.dest_oid));
        break;
      case CapOp::kOmapSetKeys:
        t.OmapSetKeys(op.coll, o, Filled(op.kv, 'v'));
        break;
      case CapOp::kOmapRmKeys: {
        std::set<std::string> keys;
        for (const auto& kv : op.kv) keys.insert(kv.first);
        t.OmapRmKeys(op.coll, o, std::move(keys));
        break;
      }
      case CapOp::kOmapRmKeyRange:
        t.OmapRmKeyRange(op.coll, o, op.kv.at(0).first, op.kv.at(1).first);
        break;
      case CapOp::kOmapClear:
        t.OmapClear(op.coll, o);
        break;
      case CapOp::kOmapSetHeader:
        t.OmapSetHeader(op.coll, o, std::string(op.length, 'h'));
        break;
    }
  }
  return t;
}

WindowFigures Diff(const StoreCounters& a, const StoreCounters& b) {
  WindowFigures w;
  w.user_bytes = b.user_bytes_written - a.user_bytes_written;
  w.device_bytes = b.device_bytes_written - a.device_bytes_written;
  w.gc_bytes = b.gc_bytes_written - a.gc_bytes_written;
  w.zones_reset = b.gc_zones_reset - a.gc_zones_reset;
  w.journal_bytes = b.journal_bytes_written - a.journal_bytes_written;
  w.checkpoint_bytes = b.checkpoint_bytes_written - a.checkpoint_bytes_written;
  return w;
}

Result<CheckResult> Replay(const Capture& cap, const Prediction& pred, const Geometry& g,
                           const StoreOptions& options, const std::string& work_dir) {
  const std::string spec = "emu:" + work_dir + "/d0.img?zones=" + std::to_string(g.zones) +
                           "&zone_kib=" + std::to_string(g.zone_bytes >> 10) + "&conv=" +
                           std::to_string(Geometry::kReservedZones);
  const std::string dir = work_dir + "/store";
  SMR_RETURN_IF_ERROR(Store::Mkfs(dir, {spec}, options));
  SMR_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(dir));
  CheckResult r;
  r.capacity = store->Statfs().total;
  StoreCounters at_steady;
  bool steady = false;
  Status fatal;
  const auto t0 = std::chrono::steady_clock::now();
  GenerateScaled(cap, pred.profile, pred.plan, [&](int64_t pass, const std::vector<CapOp>& ops) {
    if (!fatal.ok()) return;
    if (!steady && pass >= static_cast<int64_t>(pred.plan.warm_passes)) {
      steady = true;
      at_steady = store->Counters();
    }
    ++r.txns;
    Status s = store->Apply(ToTransaction(ops));
    if (s.ok()) return;
    ++r.failed_txns;
    if (s.code() == Status::Code::kReadOnly || s.code() == Status::Code::kNoSpace) {
      fatal = s.WithContext("check replay, transaction " + std::to_string(r.txns));
    }
  });
  if (!fatal.ok()) return fatal;
  const StoreCounters end = store->Counters();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.window = Diff(at_steady, end);
  r.checkpoints = end.checkpoints - at_steady.checkpoints;
  SMR_RETURN_IF_ERROR(store->Close());
  return r;
}

}  // namespace

Result<CheckResult> RunCheck(const Capture& cap, const Prediction& pred, const Geometry& g,
                             const StoreOptions& options, const std::string& work_dir, bool keep) {
  std::error_code ec;
  if (std::filesystem::exists(work_dir, ec)) {
    return Status::AlreadyExists("check directory " + work_dir + " exists");
  }
  if (!std::filesystem::create_directories(work_dir, ec)) {
    return Status::IOError("cannot create " + work_dir + ": " + ec.message());
  }
  Result<CheckResult> r = Replay(cap, pred, g, options, work_dir);
  if (!keep) std::filesystem::remove_all(work_dir, ec);
  return r;
}

}  // namespace smr::tool::whatif
