// GC simulator (see gc_sim.h for the model).
#include "gc/gc_sim.h"

#include "gc/lifetime_history.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

namespace smr {

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr uint32_t kNoZone = std::numeric_limits<uint32_t>::max();
constexpr size_t kMaxStreams = 8 + 64;

// SplitMix64: small, fast, and the same on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  uint64_t Below(uint64_t n) { return static_cast<uint64_t>(Uniform() * n) % n; }

 private:
  uint64_t s_;
};

class Simulator {
 public:
  Simulator(const std::vector<TraceOp>& trace, const SimConfig& cfg) : trace_(trace), cfg_(cfg) {}

  Result<SimResult> Run() {
    SMR_RETURN_IF_ERROR(Validate());
    zones_.resize(cfg_.zones);
    for (uint32_t z = 0; z < cfg_.zones; ++z) free_.push_back(z);
    open_.assign(kMaxStreams, kNoZone);
    streams_.resize(kMaxStreams);
    if (cfg_.placement == Placement::kOracle) PrepareOracle();
    if (cfg_.placement == Placement::kRateOracle) PrepareRateOracle();
    const size_t n = trace_.size();
    uint64_t last_device = 0, last_user = 0;
    size_t next_decile = 1;
    for (now_ = 0; now_ < n; ++now_) {
      const TraceOp& op = trace_[now_];
      if (op.kind == TraceOp::kWrite) {
        SMR_RETURN_IF_ERROR(UserWrite(op));
      } else {
        SMR_RETURN_IF_ERROR(Delete(op.object));
      }
      while (next_decile <= 10 && now_ + 1 >= (n * next_decile + 9) / 10) {
        const uint64_t du = r_.user_bytes - last_user;
        const uint64_t dd = r_.device_bytes - last_device;
        r_.wa_over_time.push_back(du ? static_cast<double>(dd) / du : 0.0);
        last_user = r_.user_bytes;
        last_device = r_.device_bytes;
        ++next_decile;
      }
    }
    r_.wa = r_.user_bytes ? static_cast<double>(r_.device_bytes) / r_.user_bytes : 0.0;
    r_.gc_wa = r_.user_record_bytes
                   ? static_cast<double>(r_.device_bytes) / r_.user_record_bytes
                   : 0.0;
    return r_;
  }

 private:
  enum class ZoneState : uint8_t { kFree, kOpen, kSealed };
  struct Zone {
    ZoneState state = ZoneState::kFree;
    uint8_t stream = 0;
    uint64_t written = 0;       // record bytes appended
    uint64_t live = 0;          // live payload bytes
    uint64_t dead_records = 0;  // records whose object died
    uint64_t sealed_at = 0;
    std::vector<uint64_t> objects;  // in append order (dead ones included)
  };
  struct Object {
    uint32_t zone = kNoZone;
    uint8_t stream = 0;
    uint64_t bytes = 0;
    uint64_t created = 0;
    uint64_t death = kNever;
    uint64_t name = TraceOp::kNoName;
  };
  // Online death-rate estimate of one stream: deaths / integral of live bytes over time.
  struct StreamStats {
    uint64_t live = 0;
    uint64_t last = 0;
    double exposure = 0;
    double deaths = 0;
    void Advance(uint64_t now) {
      exposure += static_cast<double>(live) * static_cast<double>(now - last);
      last = now;
    }
  };

  Status Validate() const {
    if (cfg_.zone_bytes == 0 || cfg_.zones == 0 || cfg_.block == 0) {
      return Status::InvalidArgument("gc_sim: zone_bytes, zones and block must be > 0");
    }
    if (cfg_.reserve_zones >= cfg_.zones) {
      return Status::InvalidArgument("gc_sim: reserve_zones must be < zones");
    }
    if ((cfg_.placement == Placement::kOracle || cfg_.placement == Placement::kRateOracle) &&
        (cfg_.oracle_classes == 0 || cfg_.oracle_classes > 64)) {
      return Status::InvalidArgument("gc_sim: oracle_classes must be 1..64");
    }
    if (cfg_.placement != Placement::kSingleStream && cfg_.placement != Placement::kSeparated &&
        cfg_.placement != Placement::kOracle && cfg_.placement != Placement::kRateOracle) {
      return Status::InvalidArgument("gc_sim: unknown placement");
    }
    return Status::OK();
  }

  uint64_t RecordBytes(uint64_t payload) const {
    return cfg_.record_header_bytes + (payload + cfg_.block - 1) / cfg_.block * cfg_.block;
  }

  // Death times and the remaining-lifetime class bounds of the oracle placement.
  void PrepareOracle() {
    std::unordered_map<uint64_t, uint64_t> written_at;
    for (size_t i = 0; i < trace_.size(); ++i) {
      const TraceOp& op = trace_[i];
      if (op.kind == TraceOp::kWrite) {
        written_at[op.object] = i;
      } else {
        death_[op.object] = i;
      }
    }
    std::vector<uint64_t> lifetimes;
    lifetimes.reserve(written_at.size());
    for (const auto& [id, at] : written_at) {
      auto it = death_.find(id);
      lifetimes.push_back(it == death_.end() || it->second < at ? kNever : it->second - at);
    }
    std::sort(lifetimes.begin(), lifetimes.end());
    const uint32_t k = cfg_.oracle_classes;
    for (uint32_t j = 1; j < k && !lifetimes.empty(); ++j) {
      bounds_.push_back(lifetimes[lifetimes.size() * j / k]);
    }
  }

  // Each name's number of writes in the whole trace, and the class bounds over all user
  // writes (kRateOracle).
  void PrepareRateOracle() {
    for (const TraceOp& op : trace_) {
      if (op.kind == TraceOp::kWrite && op.name != TraceOp::kNoName) ++name_writes_[op.name];
    }
    std::vector<uint64_t> counts;
    for (const TraceOp& op : trace_) {
      if (op.kind == TraceOp::kWrite) counts.push_back(NameWrites(op.name));
    }
    std::sort(counts.begin(), counts.end());
    const uint32_t k = cfg_.oracle_classes;
    for (uint32_t j = 1; j < k && !counts.empty(); ++j) {
      rate_bounds_.push_back(counts[counts.size() * j / k]);
    }
  }
  uint64_t NameWrites(uint64_t name) const {
    if (name == TraceOp::kNoName) return 1;
    auto it = name_writes_.find(name);
    return it == name_writes_.end() ? 1 : it->second;
  }

  uint8_t OracleStream(uint64_t death) const {
    const uint64_t remaining = death == kNever ? kNever : death - now_;
    const size_t c = std::upper_bound(bounds_.begin(), bounds_.end(), remaining) - bounds_.begin();
    return static_cast<uint8_t>(kSimStreamOracleBase + c);
  }

  uint8_t UserStream(const Object& o) const {
    switch (cfg_.placement) {
      case Placement::kSingleStream:
        return kSimStreamUser;
      case Placement::kSeparated: {
        if (o.bytes < cfg_.small_bytes) return kSimStreamSmall;
        std::optional<uint64_t> prev;
        if (o.name != TraceOp::kNoName) prev = name_life_.Lookup(o.name);
        return PredictShortLived(prev, ewma_life_) ? kSimStreamUserHot : kSimStreamUser;
      }
      case Placement::kOracle:
        return OracleStream(o.death);
      case Placement::kRateOracle: {
        if (o.bytes < cfg_.small_bytes) return kSimStreamSmall;
        const uint64_t n = NameWrites(o.name);
        const size_t c =
            std::upper_bound(rate_bounds_.begin(), rate_bounds_.end(), n) - rate_bounds_.begin();
        return static_cast<uint8_t>(kSimStreamOracleBase + c);
      }
    }
    return kSimStreamUser;
  }

  uint8_t GcStream(const Object& o) const {
    switch (cfg_.placement) {
      case Placement::kSingleStream:
        return kSimStreamUser;
      case Placement::kSeparated:
      case Placement::kRateOracle: {
        if (deleted_ == 0) return kSimStreamGc;
        const double mean_life = lifetime_sum_ / static_cast<double>(deleted_);
        return static_cast<double>(now_ - o.created) < mean_life ? kSimStreamGc
                                                                  : kSimStreamGcOld;
      }
      case Placement::kOracle:
        return OracleStream(o.death);
    }
    return kSimStreamUser;
  }

  void AddLive(uint8_t stream, int64_t delta) {
    StreamStats& s = streams_[stream];
    s.Advance(now_);
    s.live = static_cast<uint64_t>(static_cast<int64_t>(s.live) + delta);
  }

  void Seal(uint32_t z) {
    Zone& zone = zones_[z];
    zone.state = ZoneState::kSealed;
    zone.sealed_at = now_;
    open_[zone.stream] = kNoZone;
  }

  // Appends one record to `stream`'s open zone; returns the zone.
  Result<uint32_t> Append(uint8_t stream, uint64_t rec, bool gc) {
    for (;;) {
      uint32_t z = open_[stream];
      if (z != kNoZone && zones_[z].written + rec <= cfg_.zone_bytes) {
        zones_[z].written += rec;
        return z;
      }
      if (z != kNoZone) Seal(z);
      if (!gc && free_.size() <= cfg_.reserve_zones) {
        SMR_RETURN_IF_ERROR(CollectGarbage());
        if (open_[stream] != kNoZone) continue;  // GC may have opened this stream's zone
      }
      if (free_.empty() || (!gc && free_.size() <= cfg_.reserve_zones)) {
        return Status::NoSpace("gc_sim: no free zone at op " + std::to_string(now_) +
                               (gc ? " (GC relocation)" : ""));
      }
      z = free_.front();
      free_.pop_front();
      Zone& zone = zones_[z];
      zone.state = ZoneState::kOpen;
      zone.stream = stream;
      open_[stream] = z;
    }
  }

  Status Place(uint64_t id, Object* o, uint8_t stream, bool gc) {
    const uint64_t rec = RecordBytes(o->bytes);
    SMR_ASSIGN_OR_RETURN(uint32_t z, Append(stream, rec, gc));
    Zone& zone = zones_[z];
    zone.live += o->bytes;
    zone.objects.push_back(id);
    o->zone = z;
    o->stream = stream;
    AddLive(stream, static_cast<int64_t>(o->bytes));
    r_.device_bytes += rec;
    if (gc) {
      r_.gc_bytes += rec;
      ++r_.gc_objects;
    } else {
      r_.user_bytes += o->bytes;
      r_.user_record_bytes += rec;
    }
    return Status::OK();
  }

  Status UserWrite(const TraceOp& op) {
    if (RecordBytes(op.bytes) > cfg_.zone_bytes) {
      return Status::InvalidArgument("gc_sim: object " + std::to_string(op.object) +
                                     " does not fit in a zone");
    }
    auto [it, inserted] = objects_.try_emplace(op.object);
    if (!inserted) {
      return Status::InvalidArgument("gc_sim: object " + std::to_string(op.object) +
                                     " written while live");
    }
    Object& o = it->second;
    o.bytes = op.bytes;
    o.created = now_;
    o.name = op.name;
    if (cfg_.placement == Placement::kOracle) {
      auto d = death_.find(op.object);
      if (d != death_.end() && d->second > now_) o.death = d->second;
    }
    // Place() may run GC, which never touches `o` (not yet in a zone) but may rehash
    // objects_; copy out and back.
    Object copy = o;
    Status s = Place(op.object, &copy, UserStream(copy), /*gc=*/false);
    if (!s.ok()) return s;
    objects_[op.object] = copy;
    return Status::OK();
  }

  Status Delete(uint64_t id) {
    auto it = objects_.find(id);
    if (it == objects_.end() || it->second.zone == kNoZone) {
      return Status::InvalidArgument("gc_sim: delete of object " + std::to_string(id) +
                                     " that is not live");
    }
    const Object& o = it->second;
    Zone& zone = zones_[o.zone];
    zone.live -= o.bytes;
    ++zone.dead_records;
    AddLive(o.stream, -static_cast<int64_t>(o.bytes));
    streams_[o.stream].deaths += static_cast<double>(o.bytes);
    const double life = static_cast<double>(now_ - o.created);
    lifetime_sum_ += life;
    ewma_life_ = deleted_ == 0 ? life : 0.99 * ewma_life_ + 0.01 * life;
    ++deleted_;
    if (o.name != TraceOp::kNoName) name_life_.Note(o.name, now_ - o.created);
    objects_.erase(it);
    return Status::OK();
  }

  PolicyParams CurrentParams() const {
    PolicyParams p = cfg_.params;
    if (cfg_.policy != VictimPolicy::kLifetime) return p;
    if (p.death_rate_per_age.empty()) {
      p.death_rate_per_age.assign(kMaxStreams, 0.0);
      for (size_t s = 0; s < kMaxStreams; ++s) {
        const StreamStats& st = streams_[s];
        const double exposure =
            st.exposure + static_cast<double>(st.live) * static_cast<double>(now_ - st.last);
        p.death_rate_per_age[s] = exposure > 0 ? st.deaths / exposure : 0.0;
      }
    }
    if (p.horizon <= 0 && victims_ > 0) p.horizon = victim_age_sum_ / victims_;
    return p;
  }

  // Cleans victims until more than reserve + 1 zones are free or none has a dead record.
  Status CollectGarbage() {
    std::vector<ZoneCandidate> cands;
    std::vector<uint32_t> ids;
    while (free_.size() < static_cast<size_t>(cfg_.reserve_zones) + 2) {
      cands.clear();
      ids.clear();
      for (uint32_t z = 0; z < zones_.size(); ++z) {
        const Zone& zone = zones_[z];
        if (zone.state != ZoneState::kSealed || zone.dead_records == 0) continue;
        ZoneCandidate c;
        c.zone = z;
        c.stream = zone.stream;
        c.capacity = cfg_.zone_bytes;
        c.written = zone.written;
        c.live = zone.live;
        c.age = now_ - zone.sealed_at;
        cands.push_back(c);
        ids.push_back(z);
      }
      if (cands.empty()) return Status::OK();
      const std::vector<size_t> order = RankVictims(cfg_.policy, cands, CurrentParams());
      if (order.empty()) return Status::OK();
      SMR_RETURN_IF_ERROR(Clean(ids[order.front()]));
    }
    return Status::OK();
  }

  Status Clean(uint32_t victim) {
    victim_age_sum_ += static_cast<double>(now_ - zones_[victim].sealed_at);
    ++victims_;
    const std::vector<uint64_t> ids = std::move(zones_[victim].objects);
    zones_[victim].objects.clear();
    for (uint64_t id : ids) {
      auto it = objects_.find(id);
      if (it == objects_.end() || it->second.zone != victim) continue;
      Object o = it->second;
      zones_[victim].live -= o.bytes;
      AddLive(o.stream, -static_cast<int64_t>(o.bytes));
      SMR_RETURN_IF_ERROR(Place(id, &o, GcStream(o), /*gc=*/true));
      objects_[id] = o;
    }
    Zone& zone = zones_[victim];
    zone = Zone{};
    free_.push_back(victim);
    ++r_.zones_reset;
    return Status::OK();
  }

  const std::vector<TraceOp>& trace_;
  const SimConfig cfg_;
  uint64_t now_ = 0;
  std::vector<Zone> zones_;
  std::deque<uint32_t> free_;
  std::vector<uint32_t> open_;  // stream -> open zone
  std::vector<StreamStats> streams_;
  std::unordered_map<uint64_t, Object> objects_;
  std::unordered_map<uint64_t, uint64_t> death_;  // kOracle: object -> op index of delete
  std::vector<uint64_t> bounds_;                   // kOracle: class bounds (remaining life)
  std::unordered_map<uint64_t, uint64_t> name_writes_;  // kRateOracle: name -> writes
  std::vector<uint64_t> rate_bounds_;                   // kRateOracle: class bounds
  double lifetime_sum_ = 0;
  double ewma_life_ = 0;  // EWMA of lifetimes at death, as the store keeps it
  uint64_t deleted_ = 0;
  LifetimeHistory name_life_{1u << 22};  // name -> lifetime of its past incarnations
  double victim_age_sum_ = 0;
  uint64_t victims_ = 0;
  SimResult r_;
};

}  // namespace

const char* PlacementName(Placement p) {
  switch (p) {
    case Placement::kSingleStream:
      return "single-stream";
    case Placement::kSeparated:
      return "separated";
    case Placement::kOracle:
      return "oracle";
    case Placement::kRateOracle:
      return "rate-oracle";
  }
  return "unknown";
}

const char* SizeDistName(SizeDist d) {
  switch (d) {
    case SizeDist::kFixed:
      return "fixed";
    case SizeDist::kMixed:
      return "mixed";
    case SizeDist::kOss:
      return "oss";
  }
  return "unknown";
}

const char* DeletePatternName(DeletePattern d) {
  switch (d) {
    case DeletePattern::kNone:
      return "none";
    case DeletePattern::kUniform:
      return "uniform";
    case DeletePattern::kZipf:
      return "zipf";
    case DeletePattern::kFifo:
      return "fifo";
  }
  return "unknown";
}

Result<SimResult> Simulate(const std::vector<TraceOp>& trace, const SimConfig& cfg) {
  if (cfg.placement != Placement::kOracle && cfg.placement != Placement::kRateOracle) {
    return Simulator(trace, cfg).Run();
  }
  // The oracle: the lowest WA over oracle_classes, /2, /4 ... 1 classes among the runs that
  // fit (more classes separate better but hold more zones open; with few zones the
  // relocations of many classes can run out of free zones).
  // A victim's relocations may open a zone per class: a run that does not fit in the
  // configured reserve is tried again with k + 2, then 2k + 2 reserve zones (at most a quarter of the
  // zones) before fewer classes are
  // (else whether k classes fit would be a coin flip of the trace, and the floor would jump
  // between runs of one workload).
  Result<SimResult> best = Status::InvalidArgument("gc_sim: no oracle run");
  for (uint32_t k = cfg.oracle_classes; k >= 1; k /= 2) {
    SimConfig c = cfg;
    c.oracle_classes = k;
    Result<SimResult> r = Simulator(trace, c).Run();
    for (uint32_t more : {k + 2, 2 * k + 2}) {
      if (r.ok() || !r.status().IsNoSpace() || c.reserve_zones >= more || more >= c.zones / 4) break;
      c.reserve_zones = more;
      r = Simulator(trace, c).Run();
    }
    if (r.ok()) {
      r->oracle_classes = k;
      if (!best.ok() || r->wa < best->wa) best = std::move(r);
    } else if (!r.status().IsNoSpace()) {
      return r;
    } else if (!best.ok()) {
      best = std::move(r);
    }
  }
  return best;
}

std::vector<TraceOp> MakeTrace(const TraceSpec& spec) {
  Rng rng(spec.seed * 0x2545F4914F6CDD1Dull + 1);
  const uint64_t div = std::max<uint32_t>(spec.size_divisor, 1);
  auto scaled = [&](double bytes) {
    return std::max<uint64_t>(1, static_cast<uint64_t>(bytes) / div);
  };
  // Slot kind for kOss: small (long-lived metadata) or large.
  auto draw_small = [&]() { return spec.sizes == SizeDist::kOss && rng.Uniform() < 0.1; };
  auto draw_size = [&](bool small) -> uint64_t {
    switch (spec.sizes) {
      case SizeDist::kFixed:
        return scaled(static_cast<double>(spec.fixed_bytes));
      case SizeDist::kMixed: {
        const double lo = std::log(16.0 * 1024), hi = std::log(16.0 * 1024 * 1024);
        return scaled(std::exp(lo + (hi - lo) * rng.Uniform()));
      }
      case SizeDist::kOss:
        return small ? scaled((4 + 60 * rng.Uniform()) * 1024)
                     : scaled((4 + 4 * rng.Uniform()) * 1024 * 1024);
    }
    return scaled(static_cast<double>(spec.fixed_bytes));
  };

  std::vector<TraceOp> trace;
  struct Slot {
    uint64_t object;
    uint64_t bytes;
    bool small;
  };
  std::vector<Slot> slots;
  uint64_t next_id = 1;
  const double target = spec.utilization * static_cast<double>(spec.capacity_bytes);
  double live = 0;
  for (;;) {
    const bool small = draw_small();
    const uint64_t bytes = draw_size(small);
    if (live + static_cast<double>(bytes) > target) break;
    trace.push_back({TraceOp::kWrite, next_id, bytes, /*name=*/slots.size()});
    slots.push_back({next_id++, bytes, small});
    live += static_cast<double>(bytes);
  }
  if (slots.empty() || spec.deletes == DeletePattern::kNone) return trace;

  const size_t n = slots.size();
  std::vector<size_t> rank_to_slot(n);
  for (size_t i = 0; i < n; ++i) rank_to_slot[i] = i;
  for (size_t i = n - 1; i > 0; --i) std::swap(rank_to_slot[i], rank_to_slot[rng.Below(i + 1)]);
  std::vector<double> zipf_cdf;
  if (spec.deletes == DeletePattern::kZipf) {
    zipf_cdf.resize(n);
    double sum = 0;
    for (size_t k = 0; k < n; ++k) {
      sum += 1.0 / std::pow(static_cast<double>(k + 1), spec.zipf_theta);
      zipf_cdf[k] = sum;
    }
    for (double& c : zipf_cdf) c /= sum;
  }
  std::deque<size_t> fifo;
  for (size_t i = 0; i < n; ++i) fifo.push_back(i);

  auto pick = [&]() -> size_t {
    for (;;) {
      size_t s = 0;
      switch (spec.deletes) {
        case DeletePattern::kUniform:
        case DeletePattern::kNone:
          s = rng.Below(n);
          break;
        case DeletePattern::kZipf: {
          const double u = rng.Uniform();
          size_t k = std::lower_bound(zipf_cdf.begin(), zipf_cdf.end(), u) - zipf_cdf.begin();
          s = rank_to_slot[std::min(k, n - 1)];
          break;
        }
        case DeletePattern::kFifo:
          s = fifo.front();
          fifo.pop_front();
          if (slots[s].small && rng.Uniform() >= 0.1) {
            fifo.push_back(s);  // long-lived metadata survives another round
            continue;
          }
          fifo.push_back(s);  // its new object is the youngest
          return s;
      }
      if (slots[s].small && rng.Uniform() >= 0.1) continue;
      return s;
    }
  };

  for (uint64_t i = 0; i < spec.steady_ops; ++i) {
    const size_t s = pick();
    trace.push_back({TraceOp::kDelete, slots[s].object, 0});
    slots[s].bytes = draw_size(slots[s].small);
    slots[s].object = next_id++;
    trace.push_back({TraceOp::kWrite, slots[s].object, slots[s].bytes, /*name=*/s});
  }
  return trace;
}

Result<OracleFloor> SimulateOracleFloor(const std::vector<TraceOp>& trace, const SimConfig& cfg,
                                        const std::function<double(const SimResult&)>& score) {
  const auto value = [&](const SimResult& r) { return score ? score(r) : r.wa; };
  OracleFloor floor;
  bool any = false;
  for (VictimPolicy p : {VictimPolicy::kGreedy, VictimPolicy::kCostBenefit, VictimPolicy::kLifetime}) {
    SimConfig c = cfg;
    c.policy = p;
    c.placement = Placement::kOracle;
    Result<SimResult> r = Simulate(trace, c);
    if (r.ok() && (!any || value(*r) < value(floor.best))) {
      floor.best = *r;
      floor.policy = p;
      any = true;
    }
    floor.runs.emplace_back(p, std::move(r));
  }
  if (!any) return floor.runs.front().second.status();
  return floor;
}

}  // namespace smr
