// Perf counters and admin-socket commands of a mounted SMRStore (registered as BlueStore
// registers its own: PerfCountersBuilder + the CephContext's collection, AdminSocket hooks).
//
// Contract
//   Construction registers logger `smrstore` and one logger `smrstore-drive.<i>` per drive
//   (names and meanings: the stats schema's x-perf-counters, doc/stats-schema.md), starts a thread that refreshes them every
//   second from the engine, and registers the admin-socket commands (also reachable as
//   `ceph tell osd.N ...` and from ceph-mgr's send_command). Every counter has priority
//   PRIO_USEFUL or above, so an OSD's MgrClient sends it to ceph-mgr (mgr_stats_threshold
//   defaults to PRIO_USEFUL): the smrstore mgr module reads them there.
//     smrstore stats        the stats document (doc/stats-schema.md, with zone maps)
//     smrstore zones        the stats document's drives (zone counts, maps, streams)
//     smrstore gc start     background GC on
//     smrstore gc stop      background GC off
//     smrstore gc run       clean one victim zone now; replies with the GC report
//   Destruction unregisters everything before the engine may go away.
// Thread safety: internal (one refresh thread; hooks may run on the admin-socket thread).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/admin_socket.h"
#include "common/ceph_context.h"
#include "common/perf_counters.h"
#include "common/thread_annotations.h"

namespace smr {
class Store;
}

namespace smr::ceph_adapter {

// Counter indices (Ceph reserves ranges per subsystem; smrstore takes 930000..): the
// counters of objectstore/smrstore_perf_table.h (generated from the stats schema's
// x-perf-counters) in table order, logger `smrstore` from l_smrstore_first + 1, the drive
// loggers from l_smrdrive_first + 1.
enum { l_smrstore_first = 930000 };
enum { l_smrdrive_first = 931000 };

class PerfAndAdmin : public AdminSocketHook {
 public:
  PerfAndAdmin(CephContext* cct, Store* engine, const std::string& name);
  ~PerfAndAdmin() override;
  PerfAndAdmin(const PerfAndAdmin&) = delete;
  PerfAndAdmin& operator=(const PerfAndAdmin&) = delete;

  const PerfCounters* logger() const { return logger_; }
  // Refreshes every counter from the engine now (also done every second).
  void Refresh();

  int call(std::string_view command, const cmdmap_t& cmdmap, ceph::Formatter* f,
           std::ostream& errss, ceph::buffer::list& out) override;

 private:
  void Run();

  CephContext* cct_;
  Store* engine_;
  std::string name_;
  PerfCounters* logger_ = nullptr;
  std::vector<PerfCounters*> drive_loggers_;
  std::vector<std::string> registered_;
  Mutex mu_;
  CondVar cv_;
  bool stop_ SMR_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace smr::ceph_adapter
