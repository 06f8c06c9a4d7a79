// The Store's statistics: Statfs, Counters and the store's own view (Stats/StatsJson) that
// `smrstore-tool stats` and `zones` print; the operator document is stats_document.cc.
#include <map>
#include <string>

#include "common/json.h"
#include "format/record.h"
#include "store/store.h"
#include "store/store_internal.h"

namespace smr {

StoreStatfs Store::Statfs() {
  StoreStatfs st;
  st.total = impl_->zones->data_capacity();
  st.available = impl_->zones->free_bytes();
  for (const ZoneStatus& z : impl_->zones->Snapshot()) {
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
  st.user_available = impl_->zones->user_free_bytes(impl_->MaxRecordBytes());
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
