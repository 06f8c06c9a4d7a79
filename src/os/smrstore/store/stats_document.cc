// Store::StatsDocument: the `smrstore.stats/1` document of doc/stats-schema.md.
//
// Everything zone-related (statfs, per-drive bytes, zone counts, zone maps) comes from one
// ZoneManager::Snapshot, so the numbers of one document agree with each other: the zone
// counts of a drive add up to its nr_zones, its zonemap has nr_zones characters, and
// statfs.stored is the drives' live bytes plus the bytes held inline in RocksDB.
#include "store/stats_document.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "common/json.h"
#include "device/device_spec.h"
#include "format/record.h"
#include "store/store.h"
#include "store/store_internal.h"

namespace smr {

int LiveTenths(uint64_t live_bytes, uint64_t capacity) {
  if (capacity == 0) return 0;
  const uint64_t live = std::min(live_bytes, capacity);
  // live * 10 cannot overflow for zones below 1.8e18 bytes.
  return static_cast<int>((live * 10 + capacity / 2) / capacity);
}

namespace {

// The zone-map characters (mgr-module/smrstore/stats_schema.json, x-zonemap-codes), used by
// both the encoder and the decoder below.
constexpr char kMapReserved = '#';
constexpr char kMapFree = '.';
constexpr char kMapOpen0 = 'A';    // + live tenths: 'A'..'K'
constexpr char kMapSealed0 = 'a';  // + live tenths: 'a'..'k'
constexpr char kMapOffline = 'X';
constexpr char kMapReadOnly = '!';
constexpr char kMapConventional = '=';
constexpr char kMapInactive = '_';
constexpr int kMaxTenths = 10;

}  // namespace

char ZoneMapChar(const ZoneStatus& zone, ZoneMapRole role) {
  switch (role) {
    case ZoneMapRole::kSuperblock:
      return kMapReserved;
    case ZoneMapRole::kConventional:
      return kMapConventional;
    case ZoneMapRole::kInactive:
      return kMapInactive;
    case ZoneMapRole::kData:
      break;
  }
  if (zone.device_cond == ZoneCondition::kOffline) return kMapOffline;
  if (zone.device_cond == ZoneCondition::kReadOnly) return kMapReadOnly;
  switch (zone.state) {
    case ZoneState::kFree:
      return kMapFree;
    case ZoneState::kOpen:
      return static_cast<char>(kMapOpen0 + LiveTenths(zone.live_bytes, zone.capacity));
    case ZoneState::kSealed:
      return static_cast<char>(kMapSealed0 + LiveTenths(zone.live_bytes, zone.capacity));
    case ZoneState::kReserved:
      return kMapReserved;
    case ZoneState::kInactive:
      return kMapInactive;
  }
  return '?';
}

const char* ZoneMapStateName(ZoneMapState state) {
  switch (state) {
    case ZoneMapState::kReserved:
      return "reserved";
    case ZoneMapState::kFree:
      return "free";
    case ZoneMapState::kOpen:
      return "open";
    case ZoneMapState::kSealed:
      return "sealed";
    case ZoneMapState::kOffline:
      return "offline";
    case ZoneMapState::kReadOnly:
      return "readonly";
    case ZoneMapState::kConventional:
      return "conventional";
    case ZoneMapState::kInactive:
      return "inactive";
    case ZoneMapState::kUnknown:
      break;
  }
  return "unknown";
}

ZoneMapCode DecodeZoneMapChar(char c) {
  ZoneMapCode code;
  if (c >= kMapOpen0 && c <= kMapOpen0 + kMaxTenths) {
    code.state = ZoneMapState::kOpen;
    code.live_tenths = c - kMapOpen0;
  } else if (c >= kMapSealed0 && c <= kMapSealed0 + kMaxTenths) {
    code.state = ZoneMapState::kSealed;
    code.live_tenths = c - kMapSealed0;
  } else if (c == kMapReserved) {
    code.state = ZoneMapState::kReserved;
  } else if (c == kMapFree) {
    code.state = ZoneMapState::kFree;
  } else if (c == kMapOffline) {
    code.state = ZoneMapState::kOffline;
  } else if (c == kMapReadOnly) {
    code.state = ZoneMapState::kReadOnly;
  } else if (c == kMapConventional) {
    code.state = ZoneMapState::kConventional;
  } else if (c == kMapInactive) {
    code.state = ZoneMapState::kInactive;
  }
  return code;
}

char ZoneStreamChar(const ZoneStatus& zone, ZoneMapRole role) {
  if (role != ZoneMapRole::kData) return '-';
  if (zone.device_cond == ZoneCondition::kOffline) return '-';
  if (zone.state != ZoneState::kOpen && zone.state != ZoneState::kSealed) return '-';
  switch (zone.stream) {
    case StreamId::kUser:
      return 'u';
    case StreamId::kSmall:
    case StreamId::kJournal:  // metadata: shown with the small+metadata stream
      return 's';
    case StreamId::kGc:
      return 'g';
    case StreamId::kGcCold:
      return 'G';
    case StreamId::kUserHot:
      return 'h';
  }
  return '?';
}

namespace {

// A finite double as JSON (JSON has no NaN or infinity).
double Ratio(uint64_t num, uint64_t den) {
  return den ? static_cast<double>(num) / static_cast<double>(den) : 0.0;
}

struct DriveTally {
  uint64_t capacity = 0, written = 0, live = 0;
  uint64_t free = 0, open = 0, sealed = 0, superblock = 0, offline = 0, readonly = 0,
           conventional = 0, inactive = 0;
  DriveZoneMaps maps;
};

// A drive's `hybrid` block (doc/stats-schema.md).
Json HybridJson(uint16_t drive, const DeviceInfo& info, const std::vector<RealmStatus>& realms,
                const HybridCounters& h, const StoreOptions& options) {
  Json j = {{"supported", info.hybrid()},
            {"state", "none"},
            {"cmr_bytes", 0},
            {"smr_bytes", 0},
            {"converting_zones", 0},
            {"progress", 0.0},
            {"latency_bound_ms", nullptr},
            {"realms", info.nr_realms},
            {"realms_cmr", 0},
            {"realms_smr", 0},
            {"realms_pending", 0},
            {"realmmap", ""},
            {"quantum_bytes", 0},
            {"quantum_ms_p99", nullptr},
            {"quantum_ms_max", nullptr},
            {"bound_violations", 0},
            {"conversions", 0},
            {"migrated_bytes", 0},
            {"stall_reason", nullptr}};
  if (!info.hybrid()) return j;
  uint64_t cmr = 0, smr = 0, cmr_realms = 0, smr_realms = 0, pending = 0, converting_zones = 0;
  std::string map;
  for (const RealmStatus& r : realms) {
    if (r.drive != drive) continue;
    const bool is_cmr = r.domain == ZoneDomain::kCmr;
    (is_cmr ? cmr : smr) += r.capacity;
    ++(is_cmr ? cmr_realms : smr_realms);
    char c = is_cmr ? 'C' : 'S';
    if (r.draining) c = is_cmr ? 'c' : 's';
    if (r.taken) c = '>';
    if (r.draining || r.taken) {
      ++pending;
      converting_zones += is_cmr ? info.cmr_zones_per_realm : info.smr_zones_per_realm;
    }
    map.push_back(c);
  }
  const bool here = h.drive == drive;
  std::string state = "idle";
  if (here && h.active) state = h.stalled ? "stalled" : "converting";
  if (here && !h.active && h.stalled) state = "stalled";
  j["state"] = state;
  j["cmr_bytes"] = cmr;
  j["smr_bytes"] = smr;
  j["converting_zones"] = converting_zones;
  j["progress"] = here && h.active ? JsonFixed(h.progress, 3) : Json(0.0);
  j["latency_bound_ms"] = options.hybrid_latency_bound_ms;
  j["realms_cmr"] = cmr_realms;
  j["realms_smr"] = smr_realms;
  j["realms_pending"] = pending;
  j["realmmap"] = map;
  j["quantum_bytes"] = h.quantum_bytes;
  if (!h.recent_quantum_ms.empty()) {
    std::vector<double> q = h.recent_quantum_ms;
    const size_t k = std::min(q.size() - 1, static_cast<size_t>(0.99 * static_cast<double>(q.size())));
    std::nth_element(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(k), q.end());
    j["quantum_ms_p99"] = JsonFixed(q[k], 3);
    j["quantum_ms_max"] = JsonFixed(h.max_quantum_ms, 3);
  }
  j["bound_violations"] = h.bound_violations;
  if (auto it = h.done_by_drive.find(drive); it != h.done_by_drive.end()) {
    j["conversions"] = it->second;
  }
  j["migrated_bytes"] = h.migrated_bytes;
  if (here && h.stalled) j["stall_reason"] = h.stall_reason;
  return j;
}

// Tallies a zone snapshot per drive (zone counts, bytes, zone maps) and into `st`, exactly as
// Store::Statfs counts it; *pinned_zones counts the data zones pinned by metadata-journal
// records newer than the last checkpoint (ZoneManager::PinJournal: GC may not reset them
// until a checkpoint unpins them), from the same snapshot (ZoneStatus::journal_pinned).
void TallyZones(const std::vector<ZoneStatus>& snapshot,
                const std::vector<std::vector<uint32_t>>& superblock_zones,
                std::vector<DriveTally>* drives, StoreStatfs* st, uint64_t* pinned_zones) {
  for (const ZoneStatus& z : snapshot) {
    if (z.journal_pinned) ++*pinned_zones;
    DriveTally& t = (*drives)[z.addr.drive];
    const auto& sb = superblock_zones[z.addr.drive];
    ZoneMapRole role = ZoneMapRole::kData;
    if (std::find(sb.begin(), sb.end(), z.addr.zone) != sb.end()) {
      role = ZoneMapRole::kSuperblock;
    } else if (z.state == ZoneState::kReserved) {
      role = ZoneMapRole::kConventional;  // the only other zones the manager keeps out
    } else if (z.state == ZoneState::kInactive) {
      role = ZoneMapRole::kInactive;
    }
    t.maps.zonemap.push_back(ZoneMapChar(z, role));
    t.maps.streams.push_back(ZoneStreamChar(z, role));
    if (role == ZoneMapRole::kSuperblock) {
      ++t.superblock;
      continue;
    }
    if (role == ZoneMapRole::kConventional) {
      ++t.conventional;
      continue;
    }
    if (role == ZoneMapRole::kInactive) {
      ++t.inactive;
      continue;
    }
    t.capacity += z.capacity;
    t.written += z.written;
    // Live object bytes (journal zones: metadata, counted as written, not as live).
    if (z.stream != StreamId::kJournal || z.state == ZoneState::kFree) t.live += z.live_bytes;
    if (z.device_cond == ZoneCondition::kOffline) {
      ++t.offline;
    } else if (z.device_cond == ZoneCondition::kReadOnly) {
      ++t.readonly;
    } else if (z.state == ZoneState::kFree) {
      ++t.free;
    } else if (z.state == ZoneState::kOpen) {
      ++t.open;
    } else {
      ++t.sealed;
    }
    // statfs exactly as Store::Statfs counts it, from this snapshot.
    st->total += z.capacity;
    st->allocated += z.written;
    // Journal zones hold metadata (store/metadata_journal.cc): no object bytes, nothing GC frees.
    const bool journal = z.stream == StreamId::kJournal && z.state != ZoneState::kFree;
    if (!journal) st->stored += z.live_bytes;
    if (z.state == ZoneState::kFree) st->available += z.capacity;
    if (z.state == ZoneState::kOpen) st->available += z.capacity - std::min(z.written, z.capacity);
    if ((z.state == ZoneState::kOpen || z.state == ZoneState::kSealed) && !journal &&
        z.written > z.live_bytes) {
      st->reclaimable += z.written - z.live_bytes;
    }
  }
}

// The document's `io` block (doc/stats-schema.md).
Json IoJson(const StoreCounters& c) {
  return {
      {"user_bytes", c.user_bytes_written},
      {"device_bytes", c.device_bytes_written},
      {"inline_bytes", c.inline_bytes_written},
      {"bytes_read", c.bytes_read},
      {"txns_committed", c.txns_committed},
      {"txns_failed", c.txns_failed},
      {"crc_errors", c.crc_errors},
      {"write_amplification", JsonFixed(Ratio(c.device_bytes_written, c.user_bytes_written), 4)},
      {"lifetime_user_bytes", c.lifetime_user_bytes},
      {"lifetime_device_bytes", c.lifetime_device_bytes},
      {"lifetime_gc_bytes", c.lifetime_gc_bytes},
      {"lifetime_write_amplification",
       JsonFixed(Ratio(c.lifetime_device_bytes, c.lifetime_user_bytes), 4)},
      {"pack_records", c.pack_records},
      {"pack_entries", c.pack_entries},
      {"pack_payload_bytes", c.pack_payload_bytes},
      {"pack_record_bytes", c.pack_record_bytes},
      {"data_reads", c.data_reads},
      {"data_read_records", c.data_read_records},
      {"commit_groups", c.groups_committed},
      {"commit_queue_ns", c.commit_queue_ns},
      {"commit_plan_ns", c.commit_plan_ns},
      {"commit_write_ns", c.commit_write_ns},
      {"commit_flush_ns", c.commit_flush_ns},
      {"commit_meta_ns", c.commit_meta_ns},
      {"commit_sync_ns", c.commit_sync_ns},
      {"commit_callback_ns", c.commit_callback_ns}};
}

// The document's `gc` block (doc/stats-schema.md).
Json GcJson(const StoreCounters& c, bool gc_auto, uint64_t pinned_zones) {
  return {{"runs", c.gc_runs},
          {"zones_reset", c.gc_zones_reset},
          {"live_moved", c.gc_live_moved},
          {"bytes_written", c.gc_bytes_written},
          {"throttle_ns", c.gc_throttle_ns},
          {"auto", gc_auto},
          {"failures", c.gc_failures},
          {"quarantined_zones", c.gc_quarantined_zones},
          {"pinned_zones", pinned_zones},
          {"read_ahead_bytes", c.gc_read_ahead_bytes},
          {"read_ahead_yields", c.gc_read_ahead_yields}};
}

// A drive's `head` block: its timing model's counters since the device was opened, null
// when it runs none (doc/stats-schema.md).
Json HeadJson(const std::optional<HeadModel::Stats>& head) {
  if (!head) return nullptr;
  return {{"ios", head->ios},
          {"bytes", head->bytes},
          {"read_ios", head->read_ios},
          {"read_bytes", head->read_bytes},
          {"sequential", head->sequential},
          {"skips", head->skips},
          {"seeks", head->seeks},
          {"busy_seconds", JsonFixed(head->busy_seconds, 6)}};
}

// One drive's entry of `drives` (doc/stats-schema.md), without its zone maps.
Json DriveJson(size_t d, const DeviceInfo& info, const std::string& spec, const DriveTally& t,
               const std::vector<RealmStatus>& realms, const HybridCounters& hybrid,
               const StoreOptions& options, const std::optional<HeadModel::Stats>& head) {
  const char* kind = "unknown";
  if (auto parsed = DeviceSpec::Parse(spec); parsed.ok()) {
    kind = parsed->kind == DeviceSpec::Kind::kZbd ? "zbd" : "emulated";
  }
  return {{"index", d},
          {"spec", spec},
          {"kind", kind},
          {"zone_size", info.zone_size},
          {"zone_capacity", info.zone_capacity},
          {"nr_zones", info.nr_zones},
          {"conventional_zones", info.nr_conventional},
          {"max_open", info.max_open_zones},
          {"max_active", info.max_active_zones},
          {"capacity_bytes", t.capacity},
          {"written_bytes", t.written},
          {"live_bytes", t.live},
          {"zones",
           {{"free", t.free},
            {"open", t.open},
            {"sealed", t.sealed},
            {"reserved", t.superblock},
            {"offline", t.offline},
            {"readonly", t.readonly},
            {"conventional", t.conventional},
            {"inactive", t.inactive}}},
          {"hybrid", HybridJson(static_cast<uint16_t>(d), info, realms, hybrid, options)},
          {"head", HeadJson(head)}};
}

}  // namespace

Json Store::StatsDocumentJson(const std::string& name, const StatsDocumentOptions& options,
                              std::vector<DriveZoneMaps>* maps) {
  const double now = std::chrono::duration<double>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  StoreCounters c;
  uint64_t inline_stored = 0;
  {
    MutexLock lock(&impl_->counters_mu);
    c = impl_->counters;
    inline_stored = impl_->inline_stored;
  }
  uint64_t user_available = 0;
  const std::vector<ZoneStatus> snapshot =
      impl_->zones->Snapshot(impl_->MaxRecordBytes(), &user_available);
  const size_t nr_drives = impl_->devices.size();

  // The specs the store was made with (the device list kept in the metadata).
  std::vector<std::string> specs(nr_drives);
  if (auto v = impl_->meta->GetValue(nullptr, kValueDevices); v.ok() && v->has_value()) {
    std::istringstream in(**v);
    std::string line;
    for (size_t d = 0; d < nr_drives && std::getline(in, line);) {
      if (!line.empty()) specs[d++] = line;
    }
  }

  std::vector<DriveTally> drives(nr_drives);
  std::vector<std::vector<uint32_t>> superblock_zones(nr_drives);
  for (size_t d = 0; d < nr_drives; ++d) {
    superblock_zones[d] = impl_->zones->ReservedZones(static_cast<uint16_t>(d));
    const uint32_t n = impl_->devices[d]->info().nr_zones;
    drives[d].maps.zonemap.reserve(n);
    drives[d].maps.streams.reserve(n);
  }
  StoreStatfs st;
  uint64_t pinned_zones = 0;
  TallyZones(snapshot, superblock_zones, &drives, &st, &pinned_zones);
  st.stored += inline_stored;
  st.meta_bytes = impl_->meta->ApproximateSizeBytes();
  // As Store::Statfs counts it (what an OSD reports to Ceph as available), from this snapshot.
  st.writable = impl_->Writable(snapshot, user_available, st.total, c);

  Json doc;
  doc["schema"] = "smrstore.stats/1";
  doc["name"] = name;
  doc["time"] = JsonFixed(now, 3);
  doc["store"] = {{"uuid", UuidToString(impl_->superblock.store_uuid)},
                  {"dir", impl_->dir},
                  {"mount_count", impl_->superblock.mount_count},
                  {"gc_policy", VictimPolicyName(impl_->options.gc_policy)},
                  {"gc_auto", impl_->options.gc_auto},
                  {"pack_max", impl_->options.pack_max},
                  {"gc_read_ahead", impl_->gc_read_ahead},
                  {"gc_start_free", JsonFixed(impl_->options.gc_start_free, 4)},
                  {"gc_urgent_free", JsonFixed(impl_->options.gc_urgent_free, 4)},
                  {"gc_stop_free", JsonFixed(impl_->options.gc_stop_free, 4)},
                  {"gc_free_zones_max", impl_->options.gc_free_zones_max}};
  doc["statfs"] = {{"total", st.total},         {"available", st.available},
                   {"allocated", st.allocated}, {"stored", st.stored},
                   {"meta_bytes", st.meta_bytes}, {"reclaimable", st.reclaimable},
                   {"writable", st.writable}};
  doc["io"] = IoJson(c);
  doc["gc"] = GcJson(c, impl_->gc_worker.gc_auto(), pinned_zones);
  doc["drives"] = Json::array();
  const std::vector<RealmStatus> realms = impl_->zones->Realms();
  const HybridCounters hybrid = Hybrid();
  for (size_t d = 0; d < nr_drives; ++d) {
    const DeviceInfo& info = impl_->devices[d]->info();
    const DriveTally& t = drives[d];
    Json drive = DriveJson(d, info, specs[d], t, realms, hybrid, impl_->options,
                           impl_->devices[d]->HeadStats());
    if (options.zone_maps) {
      drive["zonemap"] = t.maps.zonemap;
      drive["streams"] = t.maps.streams;
    }
    doc["drives"].push_back(std::move(drive));
  }
  if (maps) {
    maps->clear();
    for (DriveTally& t : drives) maps->push_back(std::move(t.maps));
  }
  return doc;
}

std::string Store::StatsDocument(const std::string& name, const StatsDocumentOptions& options,
                                 std::vector<DriveZoneMaps>* maps) {
  return StatsDocumentJson(name, options, maps)
      .dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

}  // namespace smr
