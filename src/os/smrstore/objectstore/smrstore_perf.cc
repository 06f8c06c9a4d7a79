#include "objectstore/smrstore_perf.h"

#include <algorithm>

#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

#include "common/json.h"
#include "store/stats_document.h"
#include "store/store.h"

namespace smr::ceph_adapter {

namespace {

struct DriveCounts {
  uint64_t free = 0, open = 0, sealed = 0, reserved = 0, offline = 0, readonly = 0, conv = 0;
};

// Counts a drive's zones by state from its zone-map string, decoded by the engine's
// DecodeZoneMapChar (store/stats_document.h; the codes of doc/stats-schema.md).
DriveCounts CountZones(const std::string& zonemap) {
  DriveCounts d;
  for (char ch : zonemap) {
    switch (DecodeZoneMapChar(ch).state) {
      case ZoneMapState::kConventional: ++d.conv; break;
      case ZoneMapState::kFree: ++d.free; break;
      case ZoneMapState::kOpen: ++d.open; break;
      case ZoneMapState::kSealed: ++d.sealed; break;
      case ZoneMapState::kReserved: ++d.reserved; break;
      case ZoneMapState::kOffline: ++d.offline; break;
      case ZoneMapState::kReadOnly: ++d.readonly; break;
      case ZoneMapState::kInactive: break;  // hybrid drives: no counter (the stats document's zones.inactive)
      case ZoneMapState::kUnknown: break;
    }
  }
  return d;
}

// The compact JSON text of an admin-socket reply.
std::string Reply(const Json& j) {
  return j.dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

}  // namespace

PerfAndAdmin::PerfAndAdmin(CephContext* cct, Store* engine, const std::string& name)
    : cct_(cct), engine_(engine), name_(name) {
  // PRIO_USEFUL: the default mgr_stats_threshold, so the OSD reports every counter to
  // ceph-mgr (the smrstore mgr module reads them; doc/stats-schema.md).
  PerfCountersBuilder b(cct_, "smrstore", l_smrstore_first, l_smrstore_last);
  b.set_prio_default(PerfCountersBuilder::PRIO_USEFUL);
  b.add_u64_counter(l_smrstore_user_bytes, "smrstore_user_bytes",
                    "Payload bytes written by clients since mount", "usr", 0,
                    PerfCountersBuilder::UNIT_BYTES);
  b.add_u64_counter(l_smrstore_device_bytes, "smrstore_device_bytes",
                    "Record bytes written to the zoned drives since mount", "dev", 0,
                    PerfCountersBuilder::UNIT_BYTES);
  b.add_u64_counter(l_smrstore_gc_bytes, "smrstore_gc_bytes",
                    "Record bytes written by zone GC since mount", "gcb", 0,
                    PerfCountersBuilder::UNIT_BYTES);
  b.add_u64(l_smrstore_wa_milli, "smrstore_wa_milli",
            "Write amplification x 1000 (device / user bytes since mount)", "wa",
            PerfCountersBuilder::PRIO_INTERESTING);
  b.add_u64_counter(l_smrstore_gc_runs, "smrstore_gc_runs", "Victim zones cleaned");
  b.add_u64_counter(l_smrstore_gc_zones_reset, "smrstore_gc_zones_reset", "Zones reset by GC");
  b.add_u64_counter(l_smrstore_gc_live_moved, "smrstore_gc_live_moved",
                    "Live payload bytes relocated by GC", nullptr, 0,
                    PerfCountersBuilder::UNIT_BYTES);
  b.add_u64_counter(l_smrstore_gc_throttle_ns, "smrstore_gc_throttle_ns",
                    "Nanoseconds foreground commits waited for GC");
  b.add_u64(l_smrstore_gc_auto, "smrstore_gc_auto", "1 when background GC is on");
  b.add_u64_counter(l_smrstore_gc_failures, "smrstore_gc_failures",
                    "GC cleanings that failed and were rolled back since mount");
  b.add_u64(l_smrstore_gc_quarantined_zones, "smrstore_gc_quarantined_zones",
            "Zones GC leaves alone for a while after their cleaning failed");
  b.add_u64_counter(l_smrstore_pack_records, "smrstore_pack_records",
                    "Pack records (small writes sharing a header block) written since mount");
  b.add_u64_counter(l_smrstore_pack_entries, "smrstore_pack_entries",
                    "Small writes stored as pack entries since mount");
  b.add_u64_counter(l_smrstore_pack_payload_bytes, "smrstore_pack_payload_bytes",
                    "Payload bytes of pack entries written since mount", nullptr, 0,
                    PerfCountersBuilder::UNIT_BYTES);
  b.add_u64_counter(l_smrstore_pack_record_bytes, "smrstore_pack_record_bytes",
                    "Zone bytes of pack records written since mount (header blocks, padding)",
                    nullptr, 0, PerfCountersBuilder::UNIT_BYTES);
  b.add_u64_counter(l_smrstore_data_reads, "smrstore_data_reads",
                    "Device reads of object data since mount");
  b.add_u64_counter(l_smrstore_data_read_records, "smrstore_data_read_records",
                    "Data records those reads covered (more than reads: gathered reads)");
  b.add_u64(l_smrstore_gc_pinned_zones, "smrstore_gc_pinned_zones",
            "Data zones pinned by metadata-journal records until the next checkpoint");
  b.add_u64_counter(l_smrstore_gc_read_ahead_bytes, "smrstore_gc_read_ahead_bytes",
                    "Victim bytes idle GC read ahead of the slices that moved them",
                    nullptr, 0, PerfCountersBuilder::UNIT_BYTES);
  b.add_u64_counter(l_smrstore_gc_read_ahead_yields, "smrstore_gc_read_ahead_yields",
                    "GC read-aheads a foreground arrival stopped");
  b.add_u64_counter(l_smrstore_txns, "smrstore_txns", "Transactions committed");
  b.add_u64_counter(l_smrstore_crc_errors, "smrstore_crc_errors",
                    "Records that failed their crc32c on read");
  b.add_u64(l_smrstore_statfs_total, "smrstore_statfs_total", "Data zone capacity", nullptr, 0,
            PerfCountersBuilder::UNIT_BYTES);
  b.add_u64(l_smrstore_statfs_available, "smrstore_statfs_available",
            "Free zones plus room in open zones", nullptr, 0, PerfCountersBuilder::UNIT_BYTES);
  b.add_u64(l_smrstore_statfs_stored, "smrstore_statfs_stored", "Live object bytes", nullptr, 0,
            PerfCountersBuilder::UNIT_BYTES);
  b.add_u64(l_smrstore_statfs_reclaimable, "smrstore_statfs_reclaimable",
            "Dead record bytes zone GC can reclaim", nullptr, 0, PerfCountersBuilder::UNIT_BYTES);
  b.add_u64(l_smrstore_conversion_state, "smrstore_conversion_state",
            "Hybrid CMR/SMR conversion: 0 none, 1 idle, 2 converting, 3 stalled");
  logger_ = b.create_perf_counters();
  cct_->get_perfcounters_collection()->add(logger_);

  std::vector<DriveZoneMaps> maps;
  engine_->StatsDocument(name_, StatsDocumentOptions{false}, &maps);
  for (size_t i = 0; i < maps.size(); ++i) {
    PerfCountersBuilder d(cct_, "smrstore-drive." + std::to_string(i), l_smrdrive_first,
                          l_smrdrive_last);
    d.set_prio_default(PerfCountersBuilder::PRIO_USEFUL);
    d.add_u64(l_smrdrive_zones_free, "smrstore_zones_free", "Empty data zones");
    d.add_u64(l_smrdrive_zones_open, "smrstore_zones_open", "Open data zones");
    d.add_u64(l_smrdrive_zones_sealed, "smrstore_zones_sealed", "Full (sealed) data zones");
    d.add_u64(l_smrdrive_zones_reserved, "smrstore_zones_reserved", "Superblock-log zones");
    d.add_u64(l_smrdrive_zones_offline, "smrstore_zones_offline", "Offline zones");
    d.add_u64(l_smrdrive_zones_readonly, "smrstore_zones_readonly", "Read-only zones");
    d.add_u64(l_smrdrive_zones_conventional, "smrstore_zones_conventional",
              "Conventional zones the store does not use");
    d.add_u64(l_smrdrive_capacity_bytes, "smrstore_capacity_bytes", "Data zone capacity",
              nullptr, 0, PerfCountersBuilder::UNIT_BYTES);
    d.add_u64(l_smrdrive_written_bytes, "smrstore_written_bytes",
              "Bytes up to the write pointers of data zones", nullptr, 0,
              PerfCountersBuilder::UNIT_BYTES);
    d.add_u64(l_smrdrive_live_bytes, "smrstore_live_bytes",
              "Payload bytes committed extents reference", nullptr, 0,
              PerfCountersBuilder::UNIT_BYTES);
    PerfCounters* p = d.create_perf_counters();
    cct_->get_perfcounters_collection()->add(p);
    drive_loggers_.push_back(p);
  }
  Refresh();

  AdminSocket* sock = cct_->get_admin_socket();
  const struct {
    const char* cmd;
    const char* help;
  } cmds[] = {
      {"smrstore stats", "smrstore stats document (doc/stats-schema.md)"},
      {"smrstore zones", "smrstore per-drive zone counts, zone maps and streams"},
      {"smrstore gc start", "turn smrstore background zone GC on"},
      {"smrstore gc stop", "turn smrstore background zone GC off"},
      {"smrstore gc run", "clean one smrstore victim zone now"},
  };
  for (const auto& c : cmds) {
    if (sock->register_command(c.cmd, this, c.help) == 0) registered_.push_back(c.cmd);
  }
  thread_ = std::thread([this] { Run(); });
}

PerfAndAdmin::~PerfAndAdmin() {
  if (!registered_.empty()) cct_->get_admin_socket()->unregister_commands(this);
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  for (PerfCounters* p : drive_loggers_) {
    cct_->get_perfcounters_collection()->remove(p);
    delete p;
  }
  cct_->get_perfcounters_collection()->remove(logger_);
  delete logger_;
}

void PerfAndAdmin::Refresh() {
  const StoreCounters c = engine_->Counters();
  const StoreStatfs st = engine_->Statfs();
  logger_->set(l_smrstore_user_bytes, c.user_bytes_written);
  logger_->set(l_smrstore_device_bytes, c.device_bytes_written);
  logger_->set(l_smrstore_gc_bytes, c.gc_bytes_written);
  logger_->set(l_smrstore_wa_milli,
               c.user_bytes_written ? c.device_bytes_written * 1000 / c.user_bytes_written : 0);
  logger_->set(l_smrstore_gc_runs, c.gc_runs);
  logger_->set(l_smrstore_gc_zones_reset, c.gc_zones_reset);
  logger_->set(l_smrstore_gc_live_moved, c.gc_live_moved);
  logger_->set(l_smrstore_gc_throttle_ns, c.gc_throttle_ns);
  logger_->set(l_smrstore_gc_failures, c.gc_failures);
  logger_->set(l_smrstore_gc_quarantined_zones, c.gc_quarantined_zones);
  logger_->set(l_smrstore_pack_records, c.pack_records);
  logger_->set(l_smrstore_pack_entries, c.pack_entries);
  logger_->set(l_smrstore_pack_payload_bytes, c.pack_payload_bytes);
  logger_->set(l_smrstore_pack_record_bytes, c.pack_record_bytes);
  logger_->set(l_smrstore_data_reads, c.data_reads);
  logger_->set(l_smrstore_data_read_records, c.data_read_records);
  logger_->set(l_smrstore_gc_read_ahead_bytes, c.gc_read_ahead_bytes);
  logger_->set(l_smrstore_gc_read_ahead_yields, c.gc_read_ahead_yields);
  logger_->set(l_smrstore_txns, c.txns_committed);
  logger_->set(l_smrstore_crc_errors, c.crc_errors);
  logger_->set(l_smrstore_statfs_total, st.total);
  logger_->set(l_smrstore_statfs_available, st.available);
  logger_->set(l_smrstore_statfs_stored, st.stored);
  logger_->set(l_smrstore_statfs_reclaimable, st.reclaimable);
  std::vector<DriveZoneMaps> maps;
  const Json doc = engine_->StatsDocumentJson(name_, StatsDocumentOptions{false}, &maps);
  // The store's conversion state: the most pressing of its drives' hybrid states
  // (converting, then stalled, then idle; none when no drive is hybrid).
  uint64_t conversion = 0;
  for (const Json& dr : doc.at("drives")) {
    const std::string state = dr.at("hybrid").at("state").get<std::string>();
    const uint64_t code = state == "converting" ? 3 : state == "stalled" ? 2 : state == "idle" ? 1 : 0;
    conversion = std::max(conversion, code);
  }
  // Perf counter numbering: 0 none, 1 idle, 2 converting, 3 stalled.
  logger_->set(l_smrstore_conversion_state,
               conversion == 3 ? 2 : conversion == 2 ? 3 : conversion);
  // The engine's own state (its gc_auto option, then `smrstore gc start|stop`), as the
  // document's gc.auto says it.
  logger_->set(l_smrstore_gc_auto, doc.at("gc").at("auto").get<bool>() ? 1 : 0);
  // Journal-pinned zones are counted from the document's zone snapshot (no counter has them).
  logger_->set(l_smrstore_gc_pinned_zones, doc.at("gc").at("pinned_zones").get<uint64_t>());
  const Json& drives = doc.at("drives");
  for (size_t i = 0; i < maps.size() && i < drive_loggers_.size(); ++i) {
    const DriveCounts d = CountZones(maps[i].zonemap);
    PerfCounters* p = drive_loggers_[i];
    if (i < drives.size()) {
      p->set(l_smrdrive_capacity_bytes, drives.at(i).at("capacity_bytes").get<uint64_t>());
      p->set(l_smrdrive_written_bytes, drives.at(i).at("written_bytes").get<uint64_t>());
      p->set(l_smrdrive_live_bytes, drives.at(i).at("live_bytes").get<uint64_t>());
    }
    p->set(l_smrdrive_zones_free, d.free);
    p->set(l_smrdrive_zones_open, d.open);
    p->set(l_smrdrive_zones_sealed, d.sealed);
    p->set(l_smrdrive_zones_reserved, d.reserved);
    p->set(l_smrdrive_zones_offline, d.offline);
    p->set(l_smrdrive_zones_readonly, d.readonly);
    p->set(l_smrdrive_zones_conventional, d.conv);
  }
}

void PerfAndAdmin::Run() {
  std::unique_lock<std::mutex> l(mu_);
  while (!stop_) {
    cv_.wait_for(l, std::chrono::seconds(1), [this] { return stop_; });
    if (stop_) break;
    l.unlock();
    Refresh();
    l.lock();
  }
}

int PerfAndAdmin::call(std::string_view command, const cmdmap_t& cmdmap, ceph::Formatter* f,
                       std::ostream& errss, ceph::buffer::list& out) {
  std::string reply;
  if (command == "smrstore stats") {
    reply = engine_->StatsDocument(name_);
  } else if (command == "smrstore zones") {
    const Json doc = engine_->StatsDocumentJson(name_);
    reply = Reply({{"name", name_}, {"drives", doc.at("drives")}});
  } else if (command == "smrstore gc start" || command == "smrstore gc stop") {
    const bool on = command == "smrstore gc start";
    engine_->SetGcAuto(on);
    reply = Reply({{"gc_auto", on}});
  } else if (command == "smrstore gc run") {
    auto r = engine_->RunGc(1);
    if (!r.ok()) {
      errss << "smrstore gc run: " << r.status().ToString();
      return -r.status().errno_value();
    }
    reply = Reply({{"zones_cleaned", r->zones_cleaned},
                   {"live_moved", r->live_moved},
                   {"bytes_written", r->bytes_written},
                   {"bytes_freed", r->bytes_freed}});
  } else {
    errss << "unknown smrstore command '" << command << "'";
    return -EINVAL;
  }
  if (reply.empty() || reply.back() != '\n') reply += "\n";
  out.append(reply.data(), reply.size());
  Refresh();
  return 0;
}

}  // namespace smr::ceph_adapter
