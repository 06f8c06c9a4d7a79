// ceph_compat: common/perf_counters.h — the real PerfCounters of libceph-common.
//
// Declares the exported members the adapter calls. PerfCountersBuilder is constructed by
// the caller, so its layout is Pacific's (16 bytes: the counters being built, the default
// priority); PerfCounters and PerfCountersCollection are used only through pointers.
#pragma once

#include <cstdint>
#include <string>

#include "common/ceph_context.h"

namespace ceph::common {

class PerfCounters {
 public:
  ~PerfCounters();
  void inc(int idx, uint64_t v = 1);
  void set(int idx, uint64_t v);

 private:
  PerfCounters() = delete;
};

class PerfCountersCollection {
 public:
  void add(PerfCounters* l);
  void remove(PerfCounters* l);
};

class PerfCountersBuilder {
 public:
  enum {
    PRIO_CRITICAL = 10,
    PRIO_INTERESTING = 8,
    PRIO_USEFUL = 5,
    PRIO_UNINTERESTING = 2,
    PRIO_DEBUGONLY = 0,
  };
  enum { UNIT_NONE = 0, UNIT_BYTES = 1 };

  PerfCountersBuilder(CephContext* cct, const std::string& name, int first, int last);
  ~PerfCountersBuilder();
  PerfCountersBuilder(const PerfCountersBuilder&) = delete;
  PerfCountersBuilder& operator=(const PerfCountersBuilder&) = delete;

  void add_u64(int key, const char* name, const char* description = nullptr,
               const char* nick = nullptr, int prio = 0, int unit = UNIT_NONE);
  void add_u64_counter(int key, const char* name, const char* description = nullptr,
                       const char* nick = nullptr, int prio = 0, int unit = UNIT_NONE);
  void set_prio_default(int prio) { prio_default = prio; }
  PerfCounters* create_perf_counters();

 private:
  PerfCounters* m_perf_counters;
  int prio_default = 0;
};

}  // namespace ceph::common

using ceph::common::PerfCounters;
using ceph::common::PerfCountersBuilder;
using ceph::common::PerfCountersCollection;
