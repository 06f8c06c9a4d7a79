// osd_preload: runs SMRStore inside Debian's own, unmodified ceph-osd and
// ceph-objectstore-tool (Ceph 16.2.15), loaded with LD_PRELOAD=libsmrstore_osd.so.
//
// Contract
//   Before the program's main() runs (from a __libc_start_main wrapper: the executable's
//   static initializers have run, no thread exists yet), exactly two changes are made, and
//   only in a binary whose GNU build-id is in the table of known binaries (osd_preload.cc):
//   1. "smrstore" is appended to the permitted values of the `osd_objectstore` option (the
//      `enum_allowed` vector of its entry in Ceph's option table `ceph_options`), so that
//      `osd objectstore = smrstore` parses. Nothing else in the table changes.
//   2. The entry of `ObjectStore::create(CephContext*, type, data, journal, flags)` — called
//      directly from inside the executable, so symbol interposition cannot reach it — is
//      overwritten with a jump to smrstore's factory, after checking that the bytes there are
//      exactly the ones recorded for that build-id (the page is replaced by a patched copy
//      mapped from a memfd, never made writable+executable or re-protected executable, so it
//      works under systemd's MemoryDenyWriteExecute=). The factory returns a new SMRStore for
//      type "smrstore" and calls Ceph's own create, unchanged, for every other type (through
//      a trampoline holding the displaced prologue, its rip-relative operand relocated).
//   A binary that does not export ObjectStore::create is left alone silently (the preload may
//   be inherited by `ceph`, `rados`, a shell...). A binary that exports it but whose build-id
//   or bytes differ from the table (e.g. after a Ceph package update) is not patched: one
//   line on stderr says why, and the program runs as if the library were not there
//   (`osd objectstore = smrstore` then fails to parse, so no OSD starts on a store it
//   cannot open).
//
// Linking (CMakeLists.txt): the library exports __libc_start_main and the
// smrstore_osd_preload_* introspection entry points only (version script); every other
// symbol of ours is local, so none replaces Ceph's. References to Ceph's code (bufferlist,
// ghobject_t, coll_t, PerfCounters, AdminSocket...) bind to the host process's own copies
// (ceph-osd exports them); it has no DT_NEEDED on libceph-common or librados. RocksDB is
// behind a dlopen(RTLD_DEEPBIND) boundary (kv/: libsmrstore_kv_rocksdb.so, found next to
// this library), so none of its symbols binds to ceph-osd's embedded RocksDB.
//
// Thread safety: the patching runs once, single-threaded, before main(). The factory is
// called by Ceph at start-up (any thread is fine; it does not modify code).
#pragma once

#include <cstdint>
#include <string>

namespace smr::osd_preload {

// What happened at start-up, for the self-test entry point and for the OSD log.
struct PreloadState {
  std::string executable;        // /proc/self/exe
  std::string build_id;          // hex; empty when the executable has none
  bool known_binary = false;     // build-id found in the table
  bool option_patched = false;   // "smrstore" accepted by osd_objectstore
  bool create_patched = false;   // ObjectStore::create redirected
  std::string refusal;           // why nothing was patched (empty when patched or not Ceph)
};

const PreloadState& State();

}  // namespace smr::osd_preload
