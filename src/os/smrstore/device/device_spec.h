// Device spec strings: how every tool and test names a zoned device.
//
//   emu:PATH[?key=value&...]   emulated drive in file PATH (emulated_zoned_device.h)
//   zbd:/dev/NODE              kernel zoned block device through libzbd
//
// Keys for emu: (sizes accept the _mib or _kib suffix form shown)
//   zones=N          number of zones     (default 64; derived on a hybrid drive: if given,
//                    it must equal conv + realms * (realm_cmr + realm_smr))
//   zone_mib=N | zone_kib=N   zone size                      (default 256 MiB)
//   cap_mib=N  | cap_kib=N    zone capacity, <= zone size    (default = zone size)
//   conv=N           conventional zones at the start  (default ~1 % of zones, >= 1; on a
//                    hybrid drive the permanent ones, default 2, at least 2)
//   max_open=N       max open zones, 0 = unlimited           (default 128)
//   max_active=N     max active zones, 0 = unlimited         (default 0)
//   lbs=N            logical block size: 512 or 4096         (default 4096)
//   mbps=N           timing model bandwidth, MB/s; 0 = off   (default 0)
//   seek_ms=N        timing model positioning time, ms       (default 0)
//   drop_kib=N       scale benches only: write pieces of >= N KiB are not stored, their
//                    reads return zeros (emulated_zoned_device.h "Dropped pieces")
//   direct=1|0       data writes with O_DIRECT, bypassing the host's page cache; reads
//                    stay buffered (emulated_zoned_device.h "Direct writes") (default 0)
//   direct_reads=1|0 data reads with O_DIRECT too; needs direct=1           (default 0)
// Hybrid drives (CMR<->SMR convertible realms, zoned_device.h "Hybrid drives"):
//   realms=N         number of realms; 0 = not hybrid        (default 0)
//   realm_cmr=N      CMR-domain zones per realm, >= 1        (default 4)
//   realm_smr=N      SMR-domain zones per realm, >= realm_cmr (default 5)
//   convert_ms=N     wall time of one realm's conversion, ms (default 50, <= 600000)
//   realm_init=cmr|smr  the domain of every realm at creation (default cmr)
//   realm_cmr, realm_smr, convert_ms and realm_init need realms=N > 0.
// Geometry keys (all but mbps, seek_ms, drop_kib, direct and direct_reads, the hybrid ones
// included)
// apply when the drive is created (mkdev); on open they must match the drive's stored
// geometry (else kInvalidArgument; realm_init is compared with the domain the drive was
// created with, not with the realms' current domains); mbps, seek_ms, drop_kib, direct and
// direct_reads apply on every open.
//
// Contract: Parse never touches the file system. OpenDevice never creates anything;
// CreateDevice never overwrites anything. Errors are one line naming the problem.
// Thread safety: free functions, no shared state.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "common/result.h"
#include "device/emulated_zoned_device.h"
#include "device/zoned_device.h"

namespace smr {

struct DeviceSpec {
  enum class Kind { kEmulated, kZbd };

  Kind kind = Kind::kEmulated;
  std::string path;
  EmulatedGeometry geometry;     // kEmulated only
  TimingModel timing;            // kEmulated only
  std::set<std::string> given;   // geometry keys present in the spec

  static Result<DeviceSpec> Parse(std::string_view spec);
  // Canonical form, e.g. "emu:/x?zones=64&zone_mib=256" (only given keys).
  std::string ToString() const;
};

// Opens an existing device named by `spec`.
Result<std::unique_ptr<ZonedDevice>> OpenDevice(std::string_view spec);
// Creates a new emulated drive (kNotSupported for zbd: specs, which already exist).
Result<std::unique_ptr<ZonedDevice>> CreateDevice(std::string_view spec);

// True when this build has the libzbd backend.
bool HaveLibzbd();

}  // namespace smr
