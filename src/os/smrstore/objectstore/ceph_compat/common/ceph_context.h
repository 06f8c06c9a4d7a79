// ceph_compat: common/ceph_context.h — CephContext, used only through pointers.
//
// Ceph 16.2.15 defines CephContext in namespace ceph::common (exported from
// libceph-common). The adapter calls two of its exported members; nothing here
// allocates or lays out a CephContext (standalone tools obtain a real one from librados:
// rados_create2 + rados_cct, see doc/ceph-integration.md).
#pragma once

#include <cstddef>

class AdminSocket;

namespace ceph::common {
class PerfCountersCollection;

class CephContext {
 public:
  // Byte offset of CephContext::_log (ceph::logging::Log*), a public data member in Ceph:
  // read off ceph-osd-dbg for 16.2.15 (the same in libceph-common.so.2); checked by
  // qa/ceph/abi/check-abi.sh. Used only by objectstore/ceph_log.cc.
  static constexpr size_t kLogMemberOffset = 14344;
  PerfCountersCollection* get_perfcounters_collection();
  AdminSocket* get_admin_socket();
  void put();

 private:
  CephContext() = delete;
  ~CephContext() = delete;
};
}  // namespace ceph::common

using ceph::common::CephContext;
