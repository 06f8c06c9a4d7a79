// ceph_log: one line into the Ceph daemon's own log (the OSD log file), for errors the
// operator must see next to the OSD's own messages — a failed transaction with the object,
// a checksum error with the zone, a mount refused with the reason.
//
// Contract: CephLog(cct, level, text) submits one entry to cct's log at `level` (-1 = error,
// as Ceph's derr; 0 = always shown; higher = debug), subsystem "osd"; with a null cct
// (standalone tools, tests) the text goes to stderr instead; errors (level < 0) go to
// stderr as well (a foreground daemon or ceph-objectstore-tool shows them). Never throws, never blocks
// longer than Ceph's own logging does.
// Thread safety: any thread (Ceph's Log is thread-safe).
#pragma once

#include <string>

#include "common/ceph_context.h"

namespace smr::ceph_adapter {

void CephLog(CephContext* cct, int level, const std::string& text);
inline void CephLogError(CephContext* cct, const std::string& text) { CephLog(cct, -1, text); }

}  // namespace smr::ceph_adapter
