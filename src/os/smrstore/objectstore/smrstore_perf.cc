#include "objectstore/smrstore_perf.h"

#include <algorithm>

#include <cerrno>
#include <chrono>
#include <iterator>
#include <string>
#include <vector>

#include "common/json.h"
#include "objectstore/smrstore_perf_table.h"
#include "store/stats_document.h"
#include "store/store.h"

namespace smr::ceph_adapter {

namespace {

// Registers `defs` in `b` at indices first + 1, first + 2, ...
template <size_t N>
void AddCounters(PerfCountersBuilder& b, int first, const PerfCounterDef (&defs)[N]) {
  for (size_t i = 0; i < N; ++i) {
    const PerfCounterDef& d = defs[i];
    const int idx = first + 1 + static_cast<int>(i);
    const char* nick = d.nick[0] != '\0' ? d.nick : nullptr;
    const int prio = d.interesting ? PerfCountersBuilder::PRIO_INTERESTING : 0;
    const int unit = d.bytes ? PerfCountersBuilder::UNIT_BYTES : PerfCountersBuilder::UNIT_NONE;
    if (d.kind == PerfKind::kCounter) {
      b.add_u64_counter(idx, d.name, d.description, nick, prio, unit);
    } else {
      b.add_u64(idx, d.name, d.description, nick, prio, unit);
    }
  }
}

// A counter's value from the stats document `doc` (`at`: the document, or one drive of it
// for drive counters): the field at its path (booleans as 0/1), or what its source derives.
uint64_t CounterValue(const PerfCounterDef& d, const Json& doc, const Json& at) {
  switch (d.source) {
    case PerfSource::kPath: {
      const Json& v = at.at(Json::json_pointer(d.path));
      if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
      if (v.is_null()) return 0;
      if (v.is_number_float()) return static_cast<uint64_t>(v.get<double>());
      return v.get<uint64_t>();
    }
    case PerfSource::kWaMilli: {
      const uint64_t user = doc.at("io").at("user_bytes").get<uint64_t>();
      const uint64_t device = doc.at("io").at("device_bytes").get<uint64_t>();
      return user ? device * 1000 / user : 0;
    }
    case PerfSource::kConversionState: {
      // The most pressing of the drives' hybrid states: converting, then stalled, then
      // idle; none when no drive is hybrid. Numbering: 0 none, 1 idle, 2 converting,
      // 3 stalled.
      int rank = 0;  // 0 none, 1 idle, 2 stalled, 3 converting
      for (const Json& dr : doc.at("drives")) {
        const std::string state = dr.at("hybrid").at("state").get<std::string>();
        rank = std::max(rank, state == "converting" ? 3 : state == "stalled" ? 2 : state == "idle" ? 1 : 0);
      }
      return rank == 3 ? 2 : rank == 2 ? 3 : static_cast<uint64_t>(rank);
    }
  }
  return 0;
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
  constexpr int kStoreLast = l_smrstore_first + 1 + std::size(kStorePerfCounters);
  constexpr int kDriveLast = l_smrdrive_first + 1 + std::size(kDrivePerfCounters);
  PerfCountersBuilder b(cct_, "smrstore", l_smrstore_first, kStoreLast);
  b.set_prio_default(PerfCountersBuilder::PRIO_USEFUL);
  AddCounters(b, l_smrstore_first, kStorePerfCounters);
  logger_ = b.create_perf_counters();
  cct_->get_perfcounters_collection()->add(logger_);

  std::vector<DriveZoneMaps> maps;
  engine_->StatsDocument(name_, StatsDocumentOptions{false}, &maps);
  for (size_t i = 0; i < maps.size(); ++i) {
    PerfCountersBuilder d(cct_, "smrstore-drive." + std::to_string(i), l_smrdrive_first,
                          kDriveLast);
    d.set_prio_default(PerfCountersBuilder::PRIO_USEFUL);
    AddCounters(d, l_smrdrive_first, kDrivePerfCounters);
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
    MutexLock l(&mu_);
    stop_ = true;
  }
  cv_.NotifyAll();
  thread_.join();
  for (PerfCounters* p : drive_loggers_) {
    cct_->get_perfcounters_collection()->remove(p);
    delete p;
  }
  cct_->get_perfcounters_collection()->remove(logger_);
  delete logger_;
}

void PerfAndAdmin::Refresh() {
  // Every counter is a field of the stats document (or derived from it): one snapshot.
  const Json doc = engine_->StatsDocumentJson(name_, StatsDocumentOptions{false});
  for (size_t i = 0; i < std::size(kStorePerfCounters); ++i) {
    logger_->set(l_smrstore_first + 1 + static_cast<int>(i),
                 CounterValue(kStorePerfCounters[i], doc, doc));
  }
  const Json& drives = doc.at("drives");
  for (size_t i = 0; i < drives.size() && i < drive_loggers_.size(); ++i) {
    for (size_t k = 0; k < std::size(kDrivePerfCounters); ++k) {
      drive_loggers_[i]->set(l_smrdrive_first + 1 + static_cast<int>(k),
                             CounterValue(kDrivePerfCounters[k], doc, drives.at(i)));
    }
  }
}

void PerfAndAdmin::Run() {
  MutexUniqueLock l(&mu_);
  while (!stop_) {
    // A refresh a second; a wakeup before that and before stop_ waits on.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    for (auto now = std::chrono::steady_clock::now(); !stop_ && now < until;
         now = std::chrono::steady_clock::now()) {
      cv_.WaitFor(&l, until - now);
    }
    if (stop_) break;
    l.Unlock();
    Refresh();
    l.Lock();
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
