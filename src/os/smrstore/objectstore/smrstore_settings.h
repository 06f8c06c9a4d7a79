// smrstore_settings: smrstore's own settings for a store inside a Ceph OSD.
//
// Pacific's option table takes no new options (ceph-osd rejects unknown `ceph config`
// names), so they live in a file in the OSD data directory, PATH/smrstore.conf, read at
// mkfs and at every mount (doc/ceph-integration.md, "Settings"). Format: one `key = value`
// per line; `#` starts a comment; blank lines are ignored. Keys (doc/options.md, generated
// from the two tables): the adapter's own mount settings (AdapterSettingSpecs:
// on_transaction_error, throttle_bytes, device_class) and every store option of
// store/options.def (all mkfs-time: the store keeps them). on_transaction_error:
//   abort: a transaction the engine refuses (other than the ENOENT/ENODATA cases Ceph
//   tolerates, which the engine skips as BlueStore does) or cannot commit (I/O error,
//   out of space) stops the OSD, as BlueStore does: Ceph ignores the result passed to
//   commit callbacks, so reporting it would acknowledge a write that did not happen;
//   the OSD's peers then recover its PGs. report: the callbacks get the negative errno
//   (for tests and tools only).
// A mkfs-time key in the file of an existing store must equal the store's value (else the
// mount is refused with the difference named), so the file never silently lies.
// Errors: kInvalidArgument naming the file, line and problem (unknown key with the nearest
// valid ones, bad type or range); nothing of a file with an error is used.
// Thread safety: plain functions and a value type.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/result.h"
#include "store/options_table.h"
#include "store/store.h"

namespace smr::ceph_adapter {

struct AdapterSettings {
  bool abort_on_error = true;
  std::string device_class = "hdd";
  uint64_t throttle_bytes = 64ull << 20;
  StoreOptions store;                       // defaults + the mkfs keys given
  std::map<std::string, std::string> mkfs_keys;  // the mkfs-time keys present, as written
};

// The adapter's mount settings as option-table rows (scope mount).
const std::vector<OptionSpec>& AdapterSettingSpecs();
// doc/options.md: both tables.
std::string RenderSettingsMarkdown();

Result<AdapterSettings> ParseAdapterSettings(const std::string& text, const std::string& name);
// Reads `path`; a missing file gives the defaults.
Result<AdapterSettings> LoadAdapterSettings(const std::string& path);
// Whether the mkfs-time keys of `s` agree with the options the store was made with;
// kInvalidArgument naming the first key that differs.
Status CheckMkfsKeys(const AdapterSettings& s, const StoreOptions& actual, const std::string& name);

}  // namespace smr::ceph_adapter
