// ceph_compat: common/TrackedOp.h — the OSD's op-tracking handle, passed through
// queue_transactions. Opaque on purpose: Pacific's TrackedOp is a 192-byte class whose put()
// unregisters from the OSD's op tracker, so smrstore never takes or drops a reference (the
// OSD keeps the op alive until the commit callback). Taking or dropping a reference to a
// real op aborts with a message: only null TrackedOpRefs may be made or destroyed here.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <boost/intrusive_ptr.hpp>

class TrackedOp;
[[noreturn]] inline void smr_trackedop_ref_misuse(const char* what) {
  std::fprintf(stderr, "smrstore: %s of a TrackedOp reference: the adapter must not copy or "
               "keep the OSD's TrackedOpRef\n", what);
  std::abort();
}
inline void intrusive_ptr_add_ref(TrackedOp*) { smr_trackedop_ref_misuse("acquire"); }
inline void intrusive_ptr_release(TrackedOp*) { smr_trackedop_ref_misuse("release"); }
using TrackedOpRef = boost::intrusive_ptr<TrackedOp>;
