// ceph_compat: common/WorkQueue.h — the OSD worker's heartbeat handle, passed to
// queue_transactions. A store that waits (GC throttling, a read waiting for a commit) calls
// reset_tp_timeout() while it waits, so the OSD's op-thread timeout does not fire, or
// suspend_tp_timeout() before an unbounded wait.
// ABI: Pacific's HBHandle vtable: 0 reset_tp_timeout, 1 suspend_tp_timeout, 2-3 destructor
// (ceph-osd's _ZTVN10ThreadPool8TPHandleE). TPHandle's overrides live in Ceph's common code
// (exported by ceph-osd and libceph-common); we only ever call them through the vtable.
#pragma once

class HBHandle {
 public:
  virtual void reset_tp_timeout() = 0;
  virtual void suspend_tp_timeout() = 0;
  virtual ~HBHandle() {}
};

class ThreadPool {
 public:
  class TPHandle;
};

class ThreadPool::TPHandle : public HBHandle {
 protected:
  TPHandle() = default;  // the OSD makes the real ones; tests derive counting ones
};
