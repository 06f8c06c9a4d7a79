// smrstore_settings: smrstore's own settings for a store inside a Ceph OSD.
//
// Pacific's option table takes no new options (ceph-osd rejects unknown `ceph config`
// names), so they live in a file in the OSD data directory, PATH/smrstore.conf, read at
// mkfs and at every mount (doc/ceph-integration.md, "Settings"). Format: one `key = value`
// per line; `#` starts a comment; blank lines are ignored. Keys:
//   on_transaction_error = abort | report      (mount; default abort)
//       abort: a transaction the engine refuses (other than the ENOENT/ENODATA cases Ceph
//       tolerates, which the engine skips as BlueStore does) or cannot commit (I/O error,
//       out of space) stops the OSD, as BlueStore does: Ceph ignores the result passed to
//       commit callbacks, so reporting it would acknowledge a write that did not happen;
//       the OSD's peers then recover its PGs. report: the callbacks get the negative errno
//       (for tests and tools only).
//   throttle_bytes = BYTES                     (mount; default 67108864) queued, uncommitted
//       transaction bytes before queue_transactions waits (keeping the OSD op thread's
//       heartbeat alive while it does)
//   device_class = NAME                        (mount; default hdd) — what the OSD reports
//       as its default device class (CRUSH rules by class; `ceph osd tree`).
//   gc_policy = greedy | cost-benefit | lifetime (mkfs; default lifetime)
//   gc_reserve_zones = N                       (mkfs; default 2) zones per drive for GC only
//   gc_start_free, gc_urgent_free, gc_stop_free = FRACTION
//                                              (mkfs; defaults StoreOptions') GC watermarks
//   gc_free_zones_max = N                      (mkfs; default 64; 0 = no cap) the
//       watermarks keep at most N zones free per drive (all three shrink by one factor)
//   gc_idle_slice = BYTES                      (mkfs; default 4194304; 0 = 1 MiB while
//       cleaning is ahead, 4 MiB behind) live bytes one idle GC slice moves: how long a
//       foreground arrival can wait behind idle cleaning
//   gc_idle_yield = true | false               (mkfs; default true) an idle GC slice
//       also ends at the next record once a foreground transaction is queued
//   gc_read_ahead = auto | true | false        (mkfs; default auto = true when a drive is
//       rotational) idle GC reads its slices' records ahead in 512 KiB reads, stopping
//       for a foreground arrival
//   journal_with_data = auto | true | false    (mkfs; default auto = true when a drive is
//       rotational) each commit's journal record after its data, not in a journal zone
//   inline_max = BYTES                         (mkfs; default 4096)
//   pack_max = BYTES                           (mkfs; default 32768; at most 1 MiB; 0 = off)
//   separate_streams = true | false            (mkfs; default true)
// A mkfs-time key in the file of an existing store must equal the store's value (else the
// mount is refused with the difference named), so the file never silently lies.
// Errors: kInvalidArgument naming the file, line and problem (unknown key, bad value).
// Thread safety: plain functions and a value type.
#pragma once

#include <map>
#include <string>

#include "common/result.h"
#include "store/store.h"

namespace smr::ceph_adapter {

struct AdapterSettings {
  bool abort_on_error = true;
  std::string device_class = "hdd";
  uint64_t throttle_bytes = 64ull << 20;
  StoreOptions store;                       // defaults + the mkfs keys given
  std::map<std::string, std::string> mkfs_keys;  // the mkfs-time keys present, as written
};

Result<AdapterSettings> ParseAdapterSettings(const std::string& text, const std::string& name);
// Reads `path`; a missing file gives the defaults.
Result<AdapterSettings> LoadAdapterSettings(const std::string& path);
// Whether the mkfs-time keys of `s` agree with the options the store was made with;
// kInvalidArgument naming the first key that differs.
Status CheckMkfsKeys(const AdapterSettings& s, const StoreOptions& actual, const std::string& name);

}  // namespace smr::ceph_adapter
