// Superblock log: each drive keeps the store's superblock (format/record.h StoreSuperblock)
// in its reserved zones (zone/zone_manager.h), log-structured, so the newest copy is found
// after a crash at any instant and a torn write never destroys the previous copy.
//
// Layout: the reserved zones are cut into 64 KiB slots; each slot holds one kSuperblock
// record. In a conventional zone, copy number n goes to slot n % slots (n = sequence); in a
// sequential zone copies are appended at the write pointer and, when the zone is full, the
// next copy resets the other reserved zone and continues there. Read takes the valid copy
// with the highest sequence. With several drives every drive holds the superblock, so the
// store's identity survives the loss of one drive's log.
// Thread safety: not thread-safe; the store serializes superblock updates.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/result.h"
#include "device/zoned_device.h"
#include "format/record.h"

namespace smr {

constexpr uint64_t kSuperblockSlot = 64 * 1024;

// Appends `sb` to the drive's log. `reserved` are the drive's reserved zone indexes.
Status WriteSuperblock(ZonedDevice* dev, const std::vector<uint32_t>& reserved,
                       const StoreSuperblock& sb);
// The newest valid copy, or nullopt if the drive has none.
Result<std::optional<StoreSuperblock>> ReadSuperblock(ZonedDevice* dev,
                                                      const std::vector<uint32_t>& reserved);

}  // namespace smr
