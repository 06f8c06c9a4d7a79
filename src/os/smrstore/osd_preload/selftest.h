// osd_preload self-tests: in-process checks run INSTEAD of the host program's main() when
// SMRSTORE_PRELOAD_SELFTEST is set (qa/ceph/check-preload.sh runs them in Debian's
// ceph-osd and ceph-objectstore-tool). Modes:
//   state         the patch state (build-id, option, create); exit 0 when both are patched
//   transactions  Transactions built by the HOST's own Pacific code (its exported
//                 constructor, builders, generate_test_instances, destructor) are read back
//                 by smrstore's iterator: every op code, index and payload must match what
//                 was built; exit 0 when all do
//   store         an SMRStore on one small emulated drive: mkfs, mount (loads the kv plugin
//                 and RocksDB behind RTLD_DEEPBIND), a write read back, umount
//   create        ObjectStore::create (the host's patched entry) makes an SMRStore for
//                 "smrstore" and refuses an unknown type through Ceph's own code (nullptr)
// Output: one line per check on stdout, "selftest: PASS|FAIL ...".
#pragma once

#include <string>

#include "osd_preload/osd_preload.h"

namespace smr::osd_preload {

int RunSelfTest(const std::string& mode, const PreloadState& state);

}  // namespace smr::osd_preload
