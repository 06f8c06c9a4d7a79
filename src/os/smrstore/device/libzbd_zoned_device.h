// LibzbdZonedDevice: a kernel zoned block device (/dev/sdX HM-SMR, /dev/nullbN zoned,
// /dev/nvmeXnY ZNS) driven through libzbd. The only code that includes libzbd.
//
// Contract: follows zoned_device.h. Data I/O uses O_DIRECT pread/pwrite on the fd libzbd
// opened; callers' buffers that are not aligned to the logical block size go through an
// aligned bounce buffer. Rules that the kernel enforces (write pointer, capacity, zone
// resources) are checked here first against a zone-state cache, so every backend reports
// the same Status codes: the kernel would give EIO for most of them, and some drives
// silently close zones. The cache is loaded at Open and updated by every operation made
// through this object; do not write the device through another handle at the same time.
// The device's max open / max active limits (from sysfs via libzbd) are honoured exactly
// like the emulator honours its own: least recently written implicitly open zone closed
// explicitly (BLKCLOSEZONE) when a new zone must open at the limit.
// Errors: kNotFound (no such node), kInvalidArgument (not a zoned block device),
// kBusy (opened O_EXCL by someone else), kIOError from the kernel.
//
// Thread safety: all methods are thread-safe; one mutex guards the zone-state cache and is
// released during data transfers (as in the emulator).
#pragma once

#include <memory>
#include <string>

#include "common/result.h"
#include "device/zoned_device.h"

namespace smr {

Result<std::unique_ptr<ZonedDevice>> OpenLibzbdDevice(const std::string& path);

}  // namespace smr
