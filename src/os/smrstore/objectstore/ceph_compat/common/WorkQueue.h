// ceph_compat: common/WorkQueue.h — ThreadPool::TPHandle is only named by
// queue_transactions (the OSD passes its worker's heartbeat handle; smrstore does not use it).
#pragma once

class ThreadPool {
 public:
  class TPHandle;
};
