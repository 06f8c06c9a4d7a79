// The Store's statistics: Statfs, Counters and the store's own view (Stats/StatsJson) that
// `smrstore-tool stats` and `zones` print; the operator document is stats_document.cc.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "common/json.h"
#include "format/record.h"
#include "store/store.h"
#include "store/store_internal.h"

namespace smr {

uint64_t Store::Impl::Writable(const std::vector<ZoneStatus>& zones, uint64_t user_available,
                               uint64_t total, const StoreCounters& c) const {
  const uint64_t max_record = MaxRecordBytes();
  // A live payload byte's footprint in its zone: record headers and block padding come with
  // it and GC moves them too. Measured over the data records written since this mount (user
  // writes and GC's relocations), never below one header block per largest record: the
  // footprint a store of large objects has, and the estimate before anything is written.
  double footprint = 1.0 + double(recfmt::kBlockSize) / double(max_record - recfmt::kBlockSize);
  {
    const uint64_t payload = c.user_bytes_written -
                             std::min(c.user_bytes_written, c.inline_bytes_written) +
                             c.gc_live_moved;
    if (payload >= kFootprintSampleBytes && c.device_bytes_written > payload) {
      footprint = std::max(footprint, double(c.device_bytes_written) / double(payload));
    }
  }
  uint64_t gainable = 0;  // what cleaning every zone would give back, footprints included
  for (const ZoneStatus& z : zones) {
    if (z.state == ZoneState::kReserved) continue;
    if (z.stream == StreamId::kJournal && z.state != ZoneState::kFree) continue;  // metadata
    if ((z.state != ZoneState::kOpen && z.state != ZoneState::kSealed) ||
        z.written <= z.live_bytes) {
      continue;
    }
    // GC cleans sealed zones only, and not one holding journal records a rebuild still
    // needs (until a checkpoint). A user stream's open zone seals as users write on, so
    // its dead bytes count; a GC stream's open zone's do not.
    if (z.journal_pinned || (z.state != ZoneState::kSealed && !IsUserStream(z.stream))) {
      continue;
    }
    // Its live records' footprint: in proportion to the payload placed in it when that is
    // known (zones opened since mount), else by the store's measured footprint.
    uint64_t live_footprint = z.written;
    if (z.payload_written && *z.payload_written >= z.live_bytes) {
      live_footprint = *z.payload_written == 0
                           ? 0
                           : static_cast<uint64_t>(std::ceil(
                                 double(z.written) *
                                 (double(z.live_bytes) / double(*z.payload_written))));
    } else if (!z.payload_written) {
      live_footprint = std::min<uint64_t>(
          z.written, static_cast<uint64_t>(std::ceil(double(z.live_bytes) * footprint)));
    }
    // Cleaning it gives back its dead footprint less the tail the relocated records may
    // leave unusable at the end of the zone they go to (up to a record).
    const uint64_t dead = z.written - live_footprint;
    gainable += dead > max_record ? dead - max_record : 0;
  }
  return std::min(total, user_available + gainable);
}

StoreStatfs Store::Statfs() {
  StoreStatfs st;
  st.total = impl_->zones->data_capacity();
  st.available = impl_->zones->free_bytes();
  const std::vector<ZoneStatus> zones =
      impl_->zones->Snapshot(impl_->MaxRecordBytes(), &st.user_available);
  for (const ZoneStatus& z : zones) {
    if (z.state == ZoneState::kReserved) continue;
    st.allocated += z.written;
    if (z.stream == StreamId::kJournal && z.state != ZoneState::kFree) continue;  // metadata
    st.stored += z.live_bytes;  // (and nothing GC could reclaim in a journal zone)
    if ((z.state == ZoneState::kOpen || z.state == ZoneState::kSealed) &&
        z.written > z.live_bytes) {
      st.reclaimable += z.written - z.live_bytes;
    }
  }
  {
    MutexLock lock(&impl_->counters_mu);
    st.stored += impl_->inline_stored;
  }
  st.meta_bytes = impl_->meta->ApproximateSizeBytes();
  st.writable = impl_->Writable(zones, st.user_available, st.total, Counters());
  return st;
}

StoreCounters Store::Counters() {
  MutexLock lock(&impl_->counters_mu);
  return impl_->counters;
}

Json Store::Stats() {
  const StoreCounters c = Counters();
  const StoreStatfs st = Statfs();
  std::map<std::string, uint64_t> zones_by_state;
  for (const ZoneStatus& z : impl_->zones->Snapshot()) {
    ++zones_by_state[std::string(ZoneStateName(z.state)) +
                     (z.state == ZoneState::kOpen || z.state == ZoneState::kSealed
                          ? std::string("_") + StreamName(z.stream)
                          : std::string())];
  }
  auto ratio = [](uint64_t num, uint64_t den) {
    return den ? static_cast<double>(num) / static_cast<double>(den) : 0.0;
  };
  Json j;
  j["store"] = {{"dir", impl_->dir},
                {"uuid", UuidToString(impl_->superblock.store_uuid)},
                {"drives", impl_->devices.size()},
                {"mount_count", impl_->superblock.mount_count}};
  j["statfs"] = {{"total", st.total},         {"available", st.available},
                 {"allocated", st.allocated}, {"stored", st.stored},
                 {"meta_bytes", st.meta_bytes}, {"reclaimable", st.reclaimable}};
  j["counters"] = {{"txns_committed", c.txns_committed},
                   {"txns_failed", c.txns_failed},
                   {"groups_committed", c.groups_committed},
                   {"commit_queue_ns", c.commit_queue_ns},
                   {"commit_plan_ns", c.commit_plan_ns},
                   {"commit_write_ns", c.commit_write_ns},
                   {"commit_flush_ns", c.commit_flush_ns},
                   {"commit_meta_ns", c.commit_meta_ns},
                   {"commit_sync_ns", c.commit_sync_ns},
                   {"commit_callback_ns", c.commit_callback_ns},
                   {"user_bytes_written", c.user_bytes_written},
                   {"device_bytes_written", c.device_bytes_written},
                   {"inline_bytes_written", c.inline_bytes_written},
                   {"bytes_read", c.bytes_read},
                   {"crc_errors", c.crc_errors},
                   {"dead_on_mount_bytes", c.dead_on_mount_bytes},
                   {"write_amplification", ratio(c.device_bytes_written, c.user_bytes_written)},
                   {"lifetime_user_bytes", c.lifetime_user_bytes},
                   {"lifetime_device_bytes", c.lifetime_device_bytes},
                   {"lifetime_txns", c.lifetime_txns},
                   {"lifetime_write_amplification",
                    ratio(c.lifetime_device_bytes, c.lifetime_user_bytes)}};
  j["zones"] = Json::object();
  for (const auto& [k, n] : zones_by_state) j["zones"][k] = n;
  // The host page cache's share per drive (ZonedDevice::HostCache): how data writes reach
  // the drive, and the drive file's cached / dirty / writeback bytes where measured.
  j["host_cache"] = Json::array();
  for (size_t d = 0; d < impl_->devices.size(); ++d) {
    const ZonedDevice::HostCacheUse u = impl_->devices[d]->HostCache();
    auto bytes = [&u](uint64_t v) { return u.measured ? Json(v) : Json(nullptr); };
    j["host_cache"].push_back({{"drive", d},
                               {"mode", u.mode.empty() ? "unknown" : u.mode},
                               {"cached_bytes", bytes(u.cached_bytes)},
                               {"dirty_bytes", bytes(u.dirty_bytes)},
                               {"writeback_bytes", bytes(u.writeback_bytes)}});
  }
  return j;
}

std::string Store::StatsJson() {
  return Stats().dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace) + "\n";
}

}  // namespace smr
