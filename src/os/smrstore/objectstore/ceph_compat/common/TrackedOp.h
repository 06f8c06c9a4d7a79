// ceph_compat: common/TrackedOp.h — the OSD's op-tracking handle, passed through
// queue_transactions. Standalone nothing creates one (callers pass a null TrackedOpRef);
// inside a Ceph tree the real header replaces this one.
#pragma once

#include <atomic>

#include <boost/intrusive_ptr.hpp>

class TrackedOp {
 public:
  virtual ~TrackedOp() = default;
  std::atomic<int> nref{0};
};
inline void intrusive_ptr_add_ref(TrackedOp* o) { ++o->nref; }
inline void intrusive_ptr_release(TrackedOp* o) {
  if (--o->nref == 0) delete o;
}
using TrackedOpRef = boost::intrusive_ptr<TrackedOp>;
