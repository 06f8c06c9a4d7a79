// what-if: capture -> store model -> scaled GC-simulator trace (what_if.h has the contract).
#include "what_if.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "cli/gzip_file.h"
#include "store/store.h"

namespace smr::tool::whatif {
namespace {

constexpr uint64_t kBlock = 4096;
constexpr uint64_t kRecordHeader = 4096;   // a data or journal record's header block
constexpr uint64_t kSmallWriteMax = 64 << 10;  // StoreOptions::small_write_max
// Journal payload estimate (what_if.h): bytes per group, per object named, per extent,
// per xattr and per omap key.
constexpr uint64_t kJournalGroupBytes = 128;
constexpr uint64_t kOnodeBytes = 64;
constexpr uint64_t kExtentBytes = 24;
constexpr uint64_t kXattrBytes = 2;
constexpr uint64_t kOmapKeyBytes = 16;
const char kColdColl[] = "whatif.cold";

uint64_t RoundUp(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

// The capture's JSON types: a wrong one throws (nlohmann or here); ParseCapture turns that
// into kInvalidArgument.
const std::string& Text(const Json& j, const char* field) {
  return j.at(field).get_ref<const std::string&>();
}
uint64_t Num(const Json& j, const char* field) {
  Result<uint64_t> v = JsonU64(j.at(field), field);
  if (!v.ok()) throw std::runtime_error(v.status().ToString());
  return *v;
}

CapOp ParseOp(const Json& j) {
  CapOp op;
  const std::string& name = Text(j, "op");
  op.coll = Text(j, "coll");
  if (j.contains("oid")) op.oid = Text(j, "oid");
  auto sized_map = [&](const char* field) {
    for (const auto& [k, v] : j.at(field).items()) {
      Result<uint64_t> n = JsonU64(v, field);
      if (!n.ok()) throw std::runtime_error(n.status().ToString());
      op.kv.emplace_back(k, *n);
    }
  };
  if (name == "nop" || name == "op_setallochint" || name == "coll_hint" ||
      name == "coll_set_bits") {
    op.kind = CapOp::kNone;
  } else if (name == "mkcoll") {
    op.kind = CapOp::kMkColl;
  } else if (name == "create" || name == "touch") {
    op.kind = CapOp::kTouch;
  } else if (name == "write" || name == "zero") {
    op.kind = name == "write" ? CapOp::kWrite : CapOp::kZero;
    op.offset = Num(j, "offset");
    op.length = Num(j, "length");
  } else if (name == "truncate") {
    op.kind = CapOp::kTruncate;
    op.offset = Num(j, "offset");
  } else if (name == "remove") {
    op.kind = CapOp::kRemove;
  } else if (name == "setattrs" || name == "setattr") {
    op.kind = CapOp::kSetAttrs;
    sized_map("attrs");
  } else if (name == "rmattr") {
    op.kind = CapOp::kRmAttr;
    op.kv.emplace_back(Text(j, "name"), 0);
  } else if (name == "rmattrs") {
    op.kind = CapOp::kRmAttrs;
  } else if (name == "clone") {
    op.kind = CapOp::kClone;
    op.dest_oid = Text(j, "dest_oid");
  } else if (name == "clonerange2") {
    op.kind = CapOp::kCloneRange;
    op.dest_oid = Text(j, "dest_oid");
    op.offset = Num(j, "src_offset");
    op.length = Num(j, "length");
    op.dest_offset = Num(j, "dest_offset");
  } else if (name == "coll_move_rename" || name == "try_rename") {
    op.kind = CapOp::kRename;
    op.dest_coll = name == "try_rename" ? op.coll : Text(j, "dest_coll");
    op.dest_oid = Text(j, "dest_oid");
  } else if (name == "omap_setkeys") {
    op.kind = CapOp::kOmapSetKeys;
    sized_map("keys");
  } else if (name == "omap_rmkeys") {
    op.kind = CapOp::kOmapRmKeys;
    for (const Json& k : j.at("keys")) op.kv.emplace_back(k.get_ref<const std::string&>(), 0);
  } else if (name == "omap_rmkeyrange") {
    op.kind = CapOp::kOmapRmKeyRange;
    op.kv.emplace_back(Text(j, "first"), 0);
    op.kv.emplace_back(Text(j, "last"), 0);
  } else if (name == "omap_clear") {
    op.kind = CapOp::kOmapClear;
  } else if (name == "omap_setheader") {
    op.kind = CapOp::kOmapSetHeader;
    op.length = Num(j, "header_length");
  } else {
    // rmcoll, split_collection2, merge_collection: collections come and go; the scaled
    // replay keeps every collection for all passes, so these cannot be repeated.
    throw std::runtime_error("op '" + name + "' is not supported by what-if");
  }
  if (op.kind != CapOp::kMkColl && op.kind != CapOp::kNone && op.oid.empty()) {
    throw std::runtime_error("op '" + name + "' has no oid");
  }
  return op;
}

std::string PassName(const std::string& oid, int64_t pass) {
  return oid + "~" + std::to_string(pass);
}

}  // namespace

Result<Capture> ParseCapture(const Json& trace) {
  Capture cap;
  try {
    if (!trace.is_object() || !trace.contains("format") ||
        Text(trace, "format") != "smrstore.trace/1") {
      return Status::InvalidArgument("trace: format is not smrstore.trace/1");
    }
    std::set<std::string> colls;
    if (trace.contains("seed")) {
      const Json& seed = trace.at("seed");
      for (const Json& c : seed.at("collections")) colls.insert(Text(c, "coll"));
      for (const Json& o : seed.at("objects")) {
        cap.seed_objects.emplace_back(Text(o, "coll"), Text(o, "oid"));
        colls.insert(Text(o, "coll"));
      }
    }
    for (const Json& tx : trace.at("transactions")) {
      std::vector<CapOp> ops;
      for (const Json& j : tx.at("ops")) {
        ops.push_back(ParseOp(j));
        colls.insert(ops.back().coll);
        if (!ops.back().dest_coll.empty()) colls.insert(ops.back().dest_coll);
        if (ops.back().kind == CapOp::kWrite) cap.write_bytes += ops.back().length;
      }
      cap.txns.push_back(std::move(ops));
    }
    cap.collections.assign(colls.begin(), colls.end());
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("trace: ") + e.what());
  }
  return cap;
}

Result<Capture> LoadCapture(const std::string& dir) {
  Result<std::string> text = ReadGzipOrPlain(dir + "/trace.json.gz");
  if (!text.ok() && text.status().code() == Status::Code::kNotFound) {
    text = ReadGzipOrPlain(dir + "/trace.json");
    if (!text.ok() && text.status().code() == Status::Code::kNotFound) {
      return Status::NotFound("no capture in " + dir + " (trace.json.gz or trace.json)");
    }
  }
  if (!text.ok()) return text.status();
  auto json = ParseJson(*text);
  if (!json.ok()) return json.status().WithContext(dir + "/trace.json.gz");
  auto cap = ParseCapture(*json);
  if (!cap.ok()) return cap.status().WithContext(dir);
  cap->dir = dir;
  return cap;
}

// --- StoreModel ---

std::string StoreModel::Key(const std::string& coll, const std::string& oid) {
  std::string k = coll;
  k.push_back('\0');
  k += oid;
  return k;
}

bool StoreModel::Exists(const std::string& coll, const std::string& oid) const {
  return objs_.count(Key(coll, oid)) > 0;
}

StoreModel::Obj& StoreModel::GetOrCreate(const std::string& key) { return objs_[key]; }

bool StoreModel::FitsInline(const Obj& o, uint64_t size) const {
  return cfg_.inline_max > 0 && o.extents.empty() && size <= cfg_.inline_max;
}

uint64_t StoreModel::OnodeBytes(const std::string& key, const Obj& o) const {
  uint64_t b = kOnodeBytes + key.size() + kExtentBytes * o.extents.size() +
               (o.inline_data ? o.size : 0);
  for (const auto& [n, v] : o.xattrs) b += kXattrBytes + n.size() + v;
  return b;
}

uint64_t StoreModel::keyspace_bytes() const {
  uint64_t b = 0;
  for (const auto& [key, o] : objs_) {
    b += OnodeBytes(key, o) + o.omap_header;
    for (const auto& [k, v] : o.omap) b += kOmapKeyBytes + k.size() + v;
  }
  return b;
}

void StoreModel::Punch(Obj* o, uint64_t off, uint64_t len, std::vector<TraceOp>* trace) {
  if (len == 0 || o->extents.empty()) return;
  const uint64_t end = len > UINT64_MAX - off ? UINT64_MAX : off + len;
  auto it = o->extents.upper_bound(off);
  if (it != o->extents.begin()) --it;
  while (it != o->extents.end() && it->first < end) {
    const uint64_t s = it->first;
    const Ext e = it->second;
    const uint64_t e_end = s + e.len;
    if (e_end <= off) {
      ++it;
      continue;
    }
    it = o->extents.erase(it);
    const uint64_t cut_from = std::max(s, off), cut_to = std::min(e_end, end);
    if (s < off) o->extents.emplace(s, Ext{e.rec, off - s});
    if (e_end > end) it = std::next(o->extents.emplace(end, Ext{e.rec, e_end - end}).first);
    const uint64_t dead = cut_to - cut_from;
    Rec& r = recs_.at(e.rec);
    r.live -= dead;
    live_bytes_ -= dead;
    if (r.live == 0) {
      live_record_payload_ -= r.payload;
      TraceOp d;
      d.kind = TraceOp::kDelete;
      d.object = e.rec;
      trace->push_back(d);
      recs_.erase(e.rec);
    }
  }
}

void StoreModel::AddRecords(Obj* o, const std::string& key, uint64_t off, uint64_t len,
                            std::vector<TraceOp>* trace) {
  const uint64_t name = std::hash<std::string>{}(key) & ~(1ull << 63);  // never kNoName
  for (uint64_t done = 0; done < len;) {
    const uint64_t n = std::min<uint64_t>(cfg_.max_record, len - done);
    Punch(o, off + done, n, trace);
    const uint64_t id = next_rec_++;
    recs_[id] = Rec{n, n};
    o->extents.emplace(off + done, Ext{id, n});
    live_bytes_ += n;
    live_record_payload_ += n;
    ++c_.records;
    TraceOp w;
    w.kind = TraceOp::kWrite;
    w.object = id;
    w.bytes = n;
    w.name = name;
    trace->push_back(w);
    done += n;
  }
}

void StoreModel::Uninline(Obj* o, const std::string& key, std::vector<TraceOp>* trace) {
  if (!o->inline_data) return;
  o->inline_data = false;
  if (o->size > 0) {
    AddRecords(o, key, 0, o->size, trace);
    c_.uninline_bytes += o->size;
  }
}

void StoreModel::DoWrite(Obj* o, const std::string& key, uint64_t off, uint64_t len,
                         std::vector<TraceOp>* trace) {
  if (len == 0) return;
  const uint64_t new_size = std::max(o->size, off + len);
  if (FitsInline(*o, new_size)) {
    o->inline_data = true;
    o->size = new_size;
    c_.inline_bytes += len;
    return;
  }
  Uninline(o, key, trace);
  AddRecords(o, key, off, len, trace);
  o->size = new_size;
  c_.user_bytes += len;
}

// As the store's DoZero: an inline object stays inline while it fits (and one that no
// longer fits moves to a record first); otherwise the range becomes a hole.
void StoreModel::DoZero(Obj* o, const std::string& key, uint64_t off, uint64_t len,
                        std::vector<TraceOp>* trace) {
  if (len == 0) return;
  const uint64_t new_size = std::max(o->size, off + len);
  if (o->inline_data && !FitsInline(*o, new_size)) Uninline(o, key, trace);
  if (o->inline_data || FitsInline(*o, new_size)) {
    o->inline_data = true;
  } else {
    Punch(o, off, len, trace);
  }
  o->size = new_size;
}

void StoreModel::Destroy(const std::string& key, std::vector<TraceOp>* trace) {
  auto it = objs_.find(key);
  if (it == objs_.end()) return;
  Punch(&it->second, 0, UINT64_MAX, trace);
  objs_.erase(it);
}

void StoreModel::Apply(const std::vector<CapOp>& txn, std::vector<TraceOp>* trace) {
  std::set<std::string> named;  // objects whose onode the transaction rewrites (or deletes)
  uint64_t journal_payload = kJournalGroupBytes;
  bool any = false;
  for (const CapOp& op : txn) {
    if (op.kind == CapOp::kNone) continue;
    any = true;
    if (op.kind == CapOp::kMkColl) {
      journal_payload += kOnodeBytes + op.coll.size();
      continue;
    }
    const std::string key = Key(op.coll, op.oid);
    named.insert(key);
    auto found = objs_.find(key);
    Obj* o = found == objs_.end() ? nullptr : &found->second;
    switch (op.kind) {
      case CapOp::kTouch:
        GetOrCreate(key);
        break;
      case CapOp::kWrite:
        DoWrite(&GetOrCreate(key), key, op.offset, op.length, trace);
        break;
      case CapOp::kZero:
        DoZero(&GetOrCreate(key), key, op.offset, op.length, trace);
        break;
      case CapOp::kTruncate:
        if (o == nullptr) break;
        if (o->inline_data && op.offset > o->size && !FitsInline(*o, op.offset)) {
          Uninline(o, key, trace);
        }
        if (!o->inline_data) Punch(o, op.offset, UINT64_MAX, trace);
        o->size = op.offset;
        break;
      case CapOp::kRemove:
        Destroy(key, trace);
        break;
      case CapOp::kSetAttrs:
        if (o == nullptr) break;
        for (const auto& [n, v] : op.kv) {
          o->xattrs[n] = v;
          c_.xattr_bytes += n.size() + v;
        }
        break;
      case CapOp::kRmAttr:
        if (o != nullptr) o->xattrs.erase(op.kv.at(0).first);
        break;
      case CapOp::kRmAttrs:
        if (o != nullptr) o->xattrs.clear();
        break;
      case CapOp::kClone: {
        if (o == nullptr) break;
        const Obj src = *o;
        const std::string dkey = Key(op.coll, op.dest_oid);
        named.insert(dkey);
        Destroy(dkey, trace);
        Obj& d = GetOrCreate(dkey);
        DoWrite(&d, dkey, 0, src.size, trace);
        d.size = src.size;
        d.xattrs = src.xattrs;
        d.omap = src.omap;
        d.omap_header = src.omap_header;
        for (const auto& [n, v] : src.xattrs) c_.xattr_bytes += n.size() + v;
        for (const auto& [k, v] : src.omap) {
          c_.omap_bytes += k.size() + v;
          journal_payload += kOmapKeyBytes + k.size() + v;
        }
        break;
      }
      case CapOp::kCloneRange: {
        if (o == nullptr) break;
        const uint64_t src_size = o->size;
        const std::string dkey = Key(op.coll, op.dest_oid);
        named.insert(dkey);
        // The store zeroes the destination range, then writes what the source has of it.
        Obj* d = &GetOrCreate(dkey);
        DoZero(d, dkey, op.dest_offset, op.length, trace);
        const uint64_t n = op.offset >= src_size ? 0 : std::min(op.length, src_size - op.offset);
        DoWrite(d, dkey, op.dest_offset, n, trace);
        break;
      }
      case CapOp::kRename: {
        if (o == nullptr) break;
        const std::string dkey = Key(op.dest_coll, op.dest_oid);
        named.insert(dkey);
        Obj moved = std::move(*o);
        objs_.erase(key);
        Destroy(dkey, trace);
        objs_[dkey] = std::move(moved);
        break;
      }
      case CapOp::kOmapSetKeys:
        if (o == nullptr) break;
        for (const auto& [k, v] : op.kv) {
          o->omap[k] = v;
          c_.omap_bytes += k.size() + v;
          journal_payload += kOmapKeyBytes + k.size() + v;
        }
        break;
      case CapOp::kOmapRmKeys:
        if (o == nullptr) break;
        for (const auto& kv : op.kv) {
          o->omap.erase(kv.first);
          journal_payload += kOmapKeyBytes + kv.first.size();
        }
        break;
      case CapOp::kOmapRmKeyRange: {
        if (o == nullptr) break;
        auto from = o->omap.lower_bound(op.kv.at(0).first);
        auto to = o->omap.lower_bound(op.kv.at(1).first);
        for (auto it = from; it != to; ++it) journal_payload += kOmapKeyBytes + it->first.size();
        if (from != o->omap.end() && op.kv.at(0).first < op.kv.at(1).first) {
          o->omap.erase(from, to);
        }
        break;
      }
      case CapOp::kOmapClear:
        if (o == nullptr) break;
        for (const auto& [k, v] : o->omap) journal_payload += kOmapKeyBytes + k.size();
        o->omap.clear();
        o->omap_header = 0;
        break;
      case CapOp::kOmapSetHeader:
        if (o == nullptr) break;
        o->omap_header = op.length;
        c_.omap_bytes += op.length;
        journal_payload += kOmapKeyBytes + op.length;
        break;
      case CapOp::kNone:
      case CapOp::kMkColl:
        break;
    }
  }
  if (!any) return;
  ++c_.txns;
  for (const std::string& key : named) {
    auto it = objs_.find(key);
    journal_payload += it == objs_.end() ? kOnodeBytes + key.size() : OnodeBytes(key, it->second);
  }
  c_.journal_bytes += kRecordHeader + RoundUp(journal_payload, kBlock);
}

// --- Scaling ---

namespace {

// `op` with the objects of pass `pass` renamed (seed objects keep their names).
CapOp Renamed(const CapOp& op, int64_t pass, const std::set<std::pair<std::string, std::string>>& seed) {
  CapOp r = op;
  auto rename = [&](const std::string& coll, std::string* oid) {
    if (!oid->empty() && !seed.count({coll, *oid})) *oid = PassName(*oid, pass);
  };
  rename(op.coll, &r.oid);
  rename(op.kind == CapOp::kRename ? op.dest_coll : op.coll, &r.dest_oid);
  return r;
}

std::vector<CapOp> SetupTxn(const Capture& cap, bool cold) {
  std::vector<CapOp> ops;
  for (const std::string& c : cap.collections) {
    CapOp op;
    op.kind = CapOp::kMkColl;
    op.coll = c;
    ops.push_back(op);
  }
  if (cold) {
    CapOp op;
    op.kind = CapOp::kMkColl;
    op.coll = kColdColl;
    ops.push_back(op);
  }
  for (const auto& [c, o] : cap.seed_objects) {
    CapOp op;
    op.kind = CapOp::kTouch;
    op.coll = c;
    op.oid = o;
    ops.push_back(op);
  }
  return ops;
}

}  // namespace

Result<Profile> ProfilePass(const Capture& cap, const ModelConfig& cfg) {
  Profile p;
  p.seed.insert(cap.seed_objects.begin(), cap.seed_objects.end());
  StoreModel m(cfg);
  std::vector<TraceOp> trace;
  m.Apply(SetupTxn(cap, false), &trace);
  // Objects of the pass: every (coll, oid) its ops name, renamed.
  std::set<std::pair<std::string, std::string>> pass_objects;
  for (const auto& txn : cap.txns) {
    std::vector<CapOp> ops;
    for (const CapOp& op : txn) {
      if (op.kind == CapOp::kNone || op.kind == CapOp::kMkColl) continue;
      ops.push_back(Renamed(op, 0, p.seed));
      const CapOp& r = ops.back();
      if (!p.seed.count({r.coll, op.oid})) pass_objects.emplace(op.coll, op.oid);
      if (!r.dest_oid.empty()) {
        const std::string& dc = r.kind == CapOp::kRename ? r.dest_coll : r.coll;
        if (!p.seed.count({dc, op.dest_oid})) pass_objects.emplace(dc, op.dest_oid);
      }
    }
    m.Apply(ops, &trace);
    p.peak_live = std::max(p.peak_live, m.live_bytes());
  }
  p.counters = m.counters();
  p.txns = p.counters.txns;
  for (const TraceOp& t : trace) {
    if (t.kind == TraceOp::kWrite) p.record_bytes += t.bytes;
  }
  // Survivors and their live bytes: remove them from a copy of the model and see what dies.
  StoreModel after = m;
  const uint64_t before = after.live_bytes();
  trace.clear();
  for (const auto& [c, o] : pass_objects) {
    if (!m.Exists(c, PassName(o, 0))) continue;
    p.survivors.emplace_back(c, o);
    CapOp rm;
    rm.kind = CapOp::kRemove;
    rm.coll = c;
    rm.oid = PassName(o, 0);
    after.Apply({rm}, &trace);
  }
  p.survivor_bytes = before - after.live_bytes();
  return p;
}

Result<ScalePlan> PlanScale(const Profile& p, uint64_t capacity, double fill, double turns,
                            uint32_t max_window) {
  if (!(fill > 0 && fill < 1)) return Status::InvalidArgument("fill must be in (0, 1)");
  if (p.record_bytes == 0) {
    return Status::NotSupported(
        "the capture writes nothing to the zones (all its data is inline or metadata): "
        "there is no zone write amplification to predict");
  }
  ScalePlan s;
  s.capacity = capacity;
  s.fill = fill;
  const double target = fill * static_cast<double>(capacity);
  if (static_cast<double>(p.peak_live) > target) {
    char buf[256];
    std::snprintf(buf, sizeof(buf),
                  "the capture does not fit: one pass holds up to %llu live bytes in zones, "
                  "more than fill x capacity = %.0f bytes; use more or larger zones or a higher "
                  "fill",
                  static_cast<unsigned long long>(p.peak_live), target);
    return Status::InvalidArgument(buf);
  }
  const double room = target - static_cast<double>(p.peak_live);
  uint64_t n = 1;
  if (p.survivor_bytes > 0) n = 1 + static_cast<uint64_t>(room / static_cast<double>(p.survivor_bytes));
  if (n > max_window) {
    n = max_window;
    s.window_capped = true;
  }
  s.window = static_cast<uint32_t>(n);
  const double cold = room - static_cast<double>(n - 1) * static_cast<double>(p.survivor_bytes);
  s.cold_objects = static_cast<uint64_t>(std::max(0.0, cold) / static_cast<double>(s.cold_object_bytes));
  const double per_pass = static_cast<double>(p.record_bytes);
  s.warm_passes = static_cast<uint32_t>(n + std::ceil(static_cast<double>(capacity) / per_pass));
  s.measured_passes =
      static_cast<uint32_t>(std::max(1.0, std::ceil(turns * static_cast<double>(capacity) / per_pass)));
  return s;
}

std::string DescribeScale(const Profile& p, const ScalePlan& s) {
  std::ostringstream o;
  o << "the capture is replayed in passes, its objects renamed per pass (the " << p.seed.size()
    << " objects that existed before it keep their names); a pass writes "
    << p.record_bytes << " record payload bytes, peaks at T = " << p.peak_live
    << " live bytes and leaves S = " << p.survivor_bytes << " bytes in " << p.survivors.size()
    << " surviving objects, removed when the pass " << s.window
    << " later starts (window N = " << s.window
    << (s.window_capped ? ", capped" : "") << "); a cold set of " << s.cold_objects << " x "
    << s.cold_object_bytes << " bytes, never deleted, brings the peak live data to "
    << "cold + (N-1) S + T = fill x capacity; " << s.warm_passes
    << " passes to reach the steady state, then " << s.measured_passes << " measured passes";
  return o.str();
}

uint64_t GenerateScaled(const Capture& cap, const Profile& p, const ScalePlan& s,
                        const std::function<void(int64_t, const std::vector<CapOp>&)>& fn) {
  uint64_t n = 0;
  fn(-1, SetupTxn(cap, s.cold_objects > 0));
  ++n;
  for (uint64_t i = 0; i < s.cold_objects; ++i) {
    CapOp w;
    w.kind = CapOp::kWrite;
    w.coll = kColdColl;
    w.oid = "cold." + std::to_string(i);
    w.length = s.cold_object_bytes;
    fn(-1, {w});
    ++n;
  }
  const int64_t passes = static_cast<int64_t>(s.warm_passes) + s.measured_passes;
  std::vector<CapOp> ops;
  for (int64_t pass = 0; pass < passes; ++pass) {
    if (pass >= static_cast<int64_t>(s.window)) {
      const int64_t old = pass - s.window;
      for (size_t i = 0; i < p.survivors.size(); i += 64) {
        ops.clear();
        for (size_t j = i; j < std::min(p.survivors.size(), i + 64); ++j) {
          CapOp rm;
          rm.kind = CapOp::kRemove;
          rm.coll = p.survivors[j].first;
          rm.oid = PassName(p.survivors[j].second, old);
          ops.push_back(rm);
        }
        fn(pass, ops);
        ++n;
      }
    }
    for (const auto& txn : cap.txns) {
      ops.clear();
      for (const CapOp& op : txn) {
        if (op.kind == CapOp::kNone || op.kind == CapOp::kMkColl) continue;
        ops.push_back(Renamed(op, pass, p.seed));
      }
      if (ops.empty()) continue;
      fn(pass, ops);
      ++n;
    }
  }
  return n;
}

// --- Prediction ---

double WindowFigures::data_wa() const {
  return user_bytes ? static_cast<double>(device_bytes - journal_bytes - checkpoint_bytes) /
                          static_cast<double>(user_bytes)
                    : 0;
}
double WindowFigures::wa() const {
  return user_bytes ? static_cast<double>(device_bytes) / static_cast<double>(user_bytes) : 0;
}
double WindowFigures::gc_per_user() const {
  return user_bytes ? static_cast<double>(gc_bytes) / static_cast<double>(user_bytes) : 0;
}

Result<Prediction> Predict(const Capture& cap, const PredictOptions& o) {
  const Geometry& g = o.geometry;
  if (g.zone_bytes < (4ull << 20) || (g.zone_bytes & (g.zone_bytes - 1)) != 0) {
    return Status::InvalidArgument("zone size must be a power of two of at least 4 MiB");
  }
  if (g.data_zones() < 16) {
    return Status::InvalidArgument("at least 18 zones are needed (2 for the superblock, 16 for data)");
  }
  if (!(o.fill > 0 && o.fill < 1)) return Status::InvalidArgument("fill must be in (0, 1)");
  Prediction pr;
  SMR_ASSIGN_OR_RETURN(pr.profile, ProfilePass(cap, o.model));
  const uint64_t z = g.zone_bytes;
  // Zones the journal and its checkpoints hold on average (what_if.h), and the free zones
  // the store keeps for the journal alone (1 + a checkpoint's zones: store/metadata_journal.cc,
  // SizeJournalReserve), never users' either; refined once from the keyspace the scaled
  // run ends with.
  auto journal_zones_for = [&](uint64_t keyspace) {
    const double threshold = static_cast<double>(std::max(2 * keyspace, z));
    const uint64_t reserve = 1 + (keyspace + z - 1) / z;
    return static_cast<uint32_t>(
        std::llround((static_cast<double>(keyspace) + threshold / 2) / static_cast<double>(z)) + 1 +
        reserve);
  };
  pr.journal_zones = journal_zones_for(0);
  std::vector<TraceOp> trace;
  size_t steady_at = 0;
  ModelCounters at_steady, at_end;
  uint64_t keyspace = 0;
  for (int round = 0; round < 2; ++round) {
    if (g.data_zones() <= pr.journal_zones + Geometry::kGcReserveZones + 8) {
      return Status::InvalidArgument("too few zones: the journal needs " +
                                     std::to_string(pr.journal_zones) + " of them");
    }
    pr.sim_zones = g.data_zones() - pr.journal_zones;
    SMR_ASSIGN_OR_RETURN(pr.plan, PlanScale(pr.profile, uint64_t{pr.sim_zones} * z, o.fill,
                                            o.turns, o.max_window));
    const uint64_t est_ops =
        (pr.profile.counters.records * 2 + pr.profile.survivors.size()) *
            (uint64_t{pr.plan.warm_passes} + pr.plan.measured_passes) + pr.plan.cold_objects;
    if (est_ops > o.max_trace_ops) {
      return Status::InvalidArgument(
          "the scaled workload needs about " + std::to_string(est_ops) +
          " simulator ops, more than " + std::to_string(o.max_trace_ops) +
          ": use fewer zones (the figures are per byte, they carry over) or fewer --turns");
    }
    trace.clear();
    StoreModel m(o.model);
    std::vector<TraceOp> ops;
    bool steady = false;
    pr.scaled_txns = GenerateScaled(cap, pr.profile, pr.plan, [&](int64_t pass, const std::vector<CapOp>& txn) {
      if (!steady && pass >= static_cast<int64_t>(pr.plan.warm_passes)) {
        steady = true;
        steady_at = trace.size();
        at_steady = m.counters();
      }
      m.Apply(txn, &trace);
    });
    at_end = m.counters();
    keyspace = m.keyspace_bytes();
    pr.keyspace_bytes = keyspace;
    pr.model = at_end;
    pr.stranded_bytes = m.stranded_bytes();
    pr.live_bytes = m.live_bytes();
    const uint32_t need = journal_zones_for(keyspace);
    if (need <= pr.journal_zones) break;
    pr.journal_zones = need;
  }
  pr.trace_ops = trace.size();

  SimConfig cfg;
  cfg.zone_bytes = z;
  cfg.zones = pr.sim_zones;
  // The store keeps more zones free than its GC reserve: whenever it is idle it cleans
  // until the free zones beyond the reserve are gc_stop_free of the others (gc/pacer.h).
  // The simulator cleans when a write finds only reserve_zones free, up to reserve + 2:
  // with reserve = ceil(stop x (data zones - GC reserve)) it stops where the store does.
  const StoreOptions store_defaults;
  cfg.reserve_zones = std::max<uint32_t>(
      Geometry::kGcReserveZones,
      static_cast<uint32_t>(std::ceil(store_defaults.gc_stop_free *
                                      (g.data_zones() - Geometry::kGcReserveZones))));
  pr.sim_reserve_zones = cfg.reserve_zones;
  cfg.policy = VictimPolicy::kLifetime;  // StoreOptions::gc_policy's default
  cfg.placement = Placement::kSeparated;  // StoreOptions::separate_streams
  cfg.record_header_bytes = kRecordHeader;
  cfg.block = kBlock;
  cfg.small_bytes = kSmallWriteMax;
  Result<SimResult> full_r = Simulate(trace, cfg);
  if (!full_r.ok() && full_r.status().IsNoSpace()) {
    // Open zones of every stream, the GC reserve and record headers leave too little room.
    return Status::InvalidArgument(
        "the scaled workload does not fit this geometry at this fill (" +
        full_r.status().ToString() + "); use more or larger zones or a lower fill");
  }
  SMR_ASSIGN_OR_RETURN(SimResult full, std::move(full_r));
  const std::vector<TraceOp> prefix(trace.begin(), trace.begin() + static_cast<long>(steady_at));
  SMR_ASSIGN_OR_RETURN(SimResult warm, Simulate(prefix, cfg));
  pr.whole_wa = full.wa;
  WindowFigures& w = pr.window;
  w.user_bytes = at_end.user_bytes - at_steady.user_bytes;
  w.gc_bytes = full.gc_bytes - warm.gc_bytes;
  w.zones_reset = full.zones_reset - warm.zones_reset;
  w.journal_bytes = at_end.journal_bytes - at_steady.journal_bytes;
  w.checkpoint_bytes = static_cast<uint64_t>(static_cast<double>(w.journal_bytes) *
                                             static_cast<double>(keyspace) /
                                             static_cast<double>(std::max(2 * keyspace, z)));
  w.device_bytes = full.device_bytes - warm.device_bytes + w.journal_bytes + w.checkpoint_bytes;
  pr.window_xattr_bytes = at_end.xattr_bytes - at_steady.xattr_bytes;
  pr.window_omap_bytes = at_end.omap_bytes - at_steady.omap_bytes;
  pr.window_inline_bytes = at_end.inline_bytes - at_steady.inline_bytes;
  if (o.oracle) {
    // The floor with the store's GC reserve only: the stop watermark above is how the
    // store cleans, not something an oracle needs (bench --oracle takes the same reserve).
    SimConfig oc = cfg;
    oc.reserve_zones = Geometry::kGcReserveZones;
    auto r = SimulateOracleFloor(trace, oc);
    if (r.ok()) {
      pr.oracle_wa = r->best.wa;
      pr.oracle_classes = r->best.oracle_classes;
      pr.oracle_policy = VictimPolicyName(r->policy);
    } else {
      pr.oracle_error = r.status().ToString();
    }
    SimConfig rc = oc;
    rc.placement = Placement::kRateOracle;
    auto rate = Simulate(trace, rc);
    if (rate.ok()) pr.rate_oracle_wa = rate->wa;
  }
  return pr;
}

}  // namespace smr::tool::whatif
