// ceph_compat: common/log.h — the two pieces of Ceph's logging (ceph::logging, libceph-common
// and ceph-osd export it) that smrstore uses to write one line to the daemon's own log
// (objectstore/ceph_log.h): an Entry (Pacific's abstract log entry) and Log::submit_entry.
//
// ABI (ceph-osd-dbg, 16.2.15): Entry is vptr, m_stamp 8 (log_time: a uint64_t nanosecond
// count since the epoch and a `coarse` flag, 16 bytes), m_thread 24, m_prio 32, m_subsys 34,
// sizeof 40; its vtable: 0-1 destructor, 2 strv, 3 size (MutableEntry's). Log::submit_entry
// copies the entry (ConcreteEntry(const Entry&) calls strv()), so an Entry may live on the
// caller's stack. Checked by qa/ceph/abi/check-abi.sh.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ceph::logging {

struct log_time {
  uint64_t count = 0;  // ns since the epoch
  bool coarse = false;
};

class Entry {
 public:
  Entry(short prio, short subsys) : m_thread(pthread_self()), m_prio(prio), m_subsys(subsys) {}
  Entry(const Entry&) = default;
  Entry& operator=(const Entry&) = default;
  virtual ~Entry() = default;
  virtual std::string_view strv() const = 0;
  virtual std::size_t size() const = 0;

  log_time m_stamp;
  pthread_t m_thread;
  short m_prio, m_subsys;
};

class Log {
 public:
  void submit_entry(Entry&& e);

 private:
  Log() = delete;
};

}  // namespace ceph::logging
