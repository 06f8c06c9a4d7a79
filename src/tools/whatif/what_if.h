// what-if: from a capture of a real OSD's transactions (qa/traces/, smrstore.trace/1),
// predicts the write amplification, GC bandwidth and zone turnover smrstore would see on a
// given drive geometry at a given fill level (smrstore-tool what-if; what_if_command.cc),
// and replays the same scaled workload into a real store to check the prediction
// (what_if_check.h).
//
// Contract
//   Capture -> store model. LoadCapture/ParseCapture read the capture's ops (payloads are
//   not in captures: lengths only). StoreModel applies them as the engine records them
//   (store/txn_planner.cc): an object whose data never exceeds `inline_max` while it has no
//   extents stays inline in RocksDB (no zone bytes); every other write appends records of at
//   most `max_record` payload bytes and points the written range at them (the extent map);
//   an overwrite, zero, truncate or remove takes ranges out of the extent map, and a record
//   is dead when no extent points into it any more. An inline object that outgrows
//   inline_max is moved into a record first (device bytes, not user bytes, as the store
//   counts). Clone copies the source's data into new records (as the store does). Each
//   record becomes one object of the GC simulator's trace (gc/gc_sim.h TraceOp: a write of
//   the record's payload, a delete when it is dead), named by the object it belongs to.
//   Approximation: a record partly overwritten stays whole in the simulator until its last
//   byte dies (the store's live count drops by the overwritten bytes at once, and GC
//   relocates only the live extents); StoreModel::stranded_bytes() (payload of live
//   records no extent points at) says how much of the live data that concerns. xattrs and omap live in RocksDB, not in data records: they
//   count no zone bytes, but every transaction's metadata also goes to the store's
//   metadata journal in the zones (store/metadata_journal.cc), estimated per transaction (below).
//
//   Scaling rule (PlanScale). A capture is small; to fill the drive it is replayed in
//   passes 0, 1, 2, ... Objects created by the capture are renamed per pass (name + "~" +
//   pass): each pass's objects are new incarnations; objects that existed before the
//   capture (its seed) keep their names and are rewritten by every pass. What a pass
//   deletes dies in that pass; its survivors (objects of the pass alive at its end) are
//   removed at the start of pass p + N. One pass alone (ProfilePass) peaks at T live zone
//   payload bytes and leaves S of survivors, so the live data peaks at
//   cold + (N - 1) S + T; N is the largest window with (N - 1) S + T <= fill x capacity
//   (at most max_window), and a cold set — 1 MiB objects written before pass 0 and never
//   deleted — makes up the difference (less than S unless the window was capped or S is
//   0, e.g. a capture that deletes all it writes). Passes 0 .. warm - 1 reach the steady
//   state (warm = N + capacity / pass bytes, rounded up); the next `measured` passes
//   (turns x capacity / pass bytes, rounded up) are the measured window.
//
//   Metadata journal estimate (per transaction, one commit group per transaction, as a
//   client that waits for each commit sees it): one journal record = a 4 KiB header plus
//   its payload padded to 4 KiB; payload = 128 bytes of per-group ops + per object the
//   transaction names, 64 + name + 24 per extent + inline data + its xattrs (name + value
//   + 2 each) (the onode is rewritten whole) + per omap key set 16 + key + value, per key
//   removed 16 + key. Checkpoints: a checkpoint writes the journaled keyspace K (onodes and
//   omap, estimated the same way) whenever the journal since the last one exceeds
//   max(2K, zone), so checkpoint bytes = journal bytes x K / max(2K, zone). The journal's
//   zones are not GC's: the simulator gets the data zones less those the journal holds on
//   average — the last checkpoint K plus the journal growing from 0 to max(2K, zone), so
//   K + max(2K, zone) / 2, in zones rounded, plus its open zone. GC: the store's default
//   policy and separated placement; the simulator's reserve is the store's GC reserve (2)
//   or, when larger, ceil(gc_stop_free x (data zones - 2)): the store cleans whenever it is
//   idle until that many zones beyond its reserve are free, the simulator until reserve + 2
//   are (so both stop at about the same free count).
//
// Thread safety: value types and pure functions; distinct objects may be used concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "gc/gc_sim.h"

namespace smr::tool::whatif {

// One op of a capture, with the fields what-if needs.
struct CapOp {
  enum Kind : uint8_t {
    kNone,  // nop, hints, coll_hint, coll_set_bits: nothing to model
    kMkColl,
    kTouch,
    kWrite,
    kZero,
    kTruncate,  // offset = the new size
    kRemove,
    kSetAttrs,
    kRmAttr,
    kRmAttrs,
    kClone,
    kCloneRange,
    kRename,  // coll_move_rename, try_rename
    kOmapSetKeys,
    kOmapRmKeys,
    kOmapRmKeyRange,
    kOmapClear,
    kOmapSetHeader,  // length = header length
  };
  Kind kind = kNone;
  std::string coll, oid;
  std::string dest_coll, dest_oid;
  uint64_t offset = 0, length = 0, dest_offset = 0;
  // setattrs / omap_setkeys: name -> value length; omap_rmkeys: keys (length 0);
  // rmattr: the name; omap_rmkeyrange: first, last.
  std::vector<std::pair<std::string, uint64_t>> kv;
};

struct Capture {
  std::string dir;
  std::vector<std::string> collections;  // every collection the capture names (seed, mkcoll)
  std::vector<std::pair<std::string, std::string>> seed_objects;  // (coll, oid)
  std::vector<std::vector<CapOp>> txns;
  uint64_t write_bytes = 0;  // payload bytes of its write ops
};

// kInvalidArgument for a format other than smrstore.trace/1, a malformed op, or an op
// what-if cannot model (split/merge of collections, rmcoll).
Result<Capture> ParseCapture(const Json& trace);
// Reads DIR/trace.json.gz (or DIR/trace.json). kNotFound when neither exists.
Result<Capture> LoadCapture(const std::string& dir);

struct ModelConfig {
  uint32_t inline_max = 4096;         // StoreOptions::inline_max (the default)
  uint32_t max_record = 1u << 20;     // StoreOptions::max_record_payload
};

struct ModelCounters {
  uint64_t txns = 0;
  uint64_t user_bytes = 0;       // payload bytes written to records by write/clone ops
  uint64_t uninline_bytes = 0;   // inline data moved to records (device, not user, bytes)
  uint64_t inline_bytes = 0;     // payload bytes kept inline in RocksDB
  uint64_t records = 0;
  uint64_t xattr_bytes = 0;      // xattr name + value bytes set
  uint64_t omap_bytes = 0;       // omap key + value (and header) bytes set
  uint64_t journal_bytes = 0;    // estimated journal record bytes (see the contract)
};

// The store's object state as far as zones and metadata sizes go.
class StoreModel {
 public:
  explicit StoreModel(ModelConfig cfg) : cfg_(cfg) {}
  // Applies one transaction; appends the records written and killed to `trace`.
  void Apply(const std::vector<CapOp>& txn, std::vector<TraceOp>* trace);
  bool Exists(const std::string& coll, const std::string& oid) const;
  uint64_t live_bytes() const { return live_bytes_; }  // live payload bytes in records
  // Payload bytes of records still partly live that no extent points at: dead to the
  // store, live to the simulator (the approximation above).
  uint64_t stranded_bytes() const { return live_record_payload_ - live_bytes_; }
  uint64_t keyspace_bytes() const;                     // estimated journaled keyspace
  const ModelCounters& counters() const { return c_; }

 private:
  struct Ext {
    uint64_t rec, len;
  };
  struct Obj {
    uint64_t size = 0;
    bool inline_data = false;
    std::map<uint64_t, Ext> extents;  // logical offset -> (record, length)
    std::map<std::string, uint64_t> xattrs, omap;
    uint64_t omap_header = 0;
  };
  struct Rec {
    uint64_t payload = 0, live = 0;
  };
  static std::string Key(const std::string& coll, const std::string& oid);
  Obj& GetOrCreate(const std::string& key);
  void Punch(Obj* o, uint64_t off, uint64_t len, std::vector<TraceOp>* trace);
  void AddRecords(Obj* o, const std::string& key, uint64_t off, uint64_t len,
                  std::vector<TraceOp>* trace);
  void Uninline(Obj* o, const std::string& key, std::vector<TraceOp>* trace);
  void DoWrite(Obj* o, const std::string& key, uint64_t off, uint64_t len,
               std::vector<TraceOp>* trace);
  void DoZero(Obj* o, const std::string& key, uint64_t off, uint64_t len,
              std::vector<TraceOp>* trace);
  void Destroy(const std::string& key, std::vector<TraceOp>* trace);
  bool FitsInline(const Obj& o, uint64_t size) const;
  uint64_t OnodeBytes(const std::string& key, const Obj& o) const;

  ModelConfig cfg_;
  std::unordered_map<std::string, Obj> objs_;
  std::unordered_map<uint64_t, Rec> recs_;
  uint64_t next_rec_ = 0;
  uint64_t live_bytes_ = 0;
  uint64_t live_record_payload_ = 0;  // payload of records with live bytes
  ModelCounters c_;
};

// One pass of the capture alone, from an empty store (seed objects created empty).
struct Profile {
  uint64_t txns = 0;
  uint64_t record_bytes = 0;    // W: user record payload bytes a pass writes
  uint64_t peak_live = 0;       // T: most live record payload during the pass
  uint64_t survivor_bytes = 0;  // S: live record payload of the pass's objects at its end
  std::vector<std::pair<std::string, std::string>> survivors;  // (coll, oid), not renamed
  std::set<std::pair<std::string, std::string>> seed;
  ModelCounters counters;
};
Result<Profile> ProfilePass(const Capture& cap, const ModelConfig& cfg);

struct ScalePlan {
  uint64_t capacity = 0;    // bytes the scaling fills (data zones x zone bytes)
  double fill = 0;          // peak live / capacity
  uint32_t window = 1;      // N: survivors of pass p are removed at the start of pass p + N
  bool window_capped = false;
  uint64_t cold_objects = 0;  // cold set: this many objects of cold_object_bytes
  uint64_t cold_object_bytes = 1u << 20;
  uint32_t warm_passes = 0;
  uint32_t measured_passes = 0;
};
// kInvalidArgument for a fill outside (0, 1) or when one pass does not fit (T > fill x
// capacity); kNotSupported when the capture writes nothing to the zones.
Result<ScalePlan> PlanScale(const Profile& p, uint64_t capacity, double fill, double turns,
                            uint32_t max_window);
// Plain-text statement of the rule with this plan's numbers (for the output and docs).
std::string DescribeScale(const Profile& p, const ScalePlan& s);

// The scaled workload, transaction by transaction: a setup transaction (every collection
// created, seed objects touched), the cold set, then passes 0 .. warm + measured - 1
// (each opening with the removal of pass p - N's survivors). `pass` is -1 for the setup
// and the cold set. Returns the number of transactions generated.
uint64_t GenerateScaled(const Capture& cap, const Profile& p, const ScalePlan& s,
                        const std::function<void(int64_t pass, const std::vector<CapOp>&)>& fn);

// Geometry of the drives (one drive here; the check runs one emulated drive of it).
struct Geometry {
  uint32_t zones = 64;                // zones of the drive
  uint64_t zone_bytes = 16ull << 20;
  static constexpr uint32_t kReservedZones = 2;  // superblock log (conventional, conv=2)
  static constexpr uint32_t kGcReserveZones = 2;  // StoreOptions::gc_reserve_zones
  uint32_t data_zones() const { return zones > kReservedZones ? zones - kReservedZones : 0; }
};

struct WindowFigures {  // the measured window's totals
  uint64_t user_bytes = 0;    // user payload bytes in records
  uint64_t device_bytes = 0;  // data records + GC records (sim) / all zone writes (store)
  uint64_t gc_bytes = 0;
  uint64_t zones_reset = 0;   // by GC
  uint64_t journal_bytes = 0;
  uint64_t checkpoint_bytes = 0;
  double data_wa() const;   // (device - journal - checkpoint) / user
  double wa() const;        // device / user
  double gc_per_user() const;
};

struct Prediction {
  Profile profile;
  ScalePlan plan;
  uint32_t sim_zones = 0;          // data zones the simulator had (journal zones left out)
  uint32_t sim_reserve_zones = 0;  // its reserve: the store's GC reserve or stop watermark
  uint32_t journal_zones = 0;      // zones set aside for the journal, checkpoints and the
                                   // journal's reserve of free zones
  uint64_t keyspace_bytes = 0;     // estimated journaled keyspace K at the end of the run
  uint64_t trace_ops = 0;
  uint64_t scaled_txns = 0;
  WindowFigures window;            // predicted, measured window (device includes journal)
  ModelCounters model;             // whole scaled run
  uint64_t stranded_bytes = 0;     // StoreModel::stranded_bytes at the end of the run
  uint64_t live_bytes = 0;         // StoreModel::live_bytes at the end of the run
  uint64_t window_xattr_bytes = 0, window_omap_bytes = 0, window_inline_bytes = 0;
  double whole_wa = 0;             // the store policy over the whole scaled trace (sim)
  double oracle_wa = 0;            // the oracle floor over the whole scaled trace (sim)
  uint32_t oracle_classes = 0;
  std::string oracle_policy;       // the victim policy of the floor (gc_sim.h SimulateOracleFloor)
  std::string oracle_error;        // when the oracle did not fit
  // The rate oracle (gc_sim.h kRateOracle: each name's write count known), whole trace:
  // the best a placement by name could do on this workload; < 0 when it did not fit.
  double rate_oracle_wa = -1;
};

struct PredictOptions {
  Geometry geometry;
  double fill = 0.8;
  double turns = 2;
  uint32_t max_window = 1000;
  uint64_t max_trace_ops = 30'000'000;
  bool oracle = true;
  ModelConfig model;
};
// kInvalidArgument for a geometry or fill what-if cannot use or a capture that does not fit
// (as PlanScale, or the simulator runs out of free zones); kNotSupported as PlanScale.
Result<Prediction> Predict(const Capture& cap, const PredictOptions& o);

}  // namespace smr::tool::whatif
