#include "device/zoned_device.h"

#include <string>

namespace smr {

const char* ZoneTypeName(ZoneType type) {
  switch (type) {
    case ZoneType::kConventional:
      return "conventional";
    case ZoneType::kSequentialRequired:
      return "seq-write-required";
  }
  return "unknown";
}

const char* ZoneConditionName(ZoneCondition cond) {
  switch (cond) {
    case ZoneCondition::kNotWritePointer:
      return "not-write-pointer";
    case ZoneCondition::kEmpty:
      return "empty";
    case ZoneCondition::kImplicitOpen:
      return "implicit-open";
    case ZoneCondition::kExplicitOpen:
      return "explicit-open";
    case ZoneCondition::kClosed:
      return "closed";
    case ZoneCondition::kFull:
      return "full";
    case ZoneCondition::kReadOnly:
      return "read-only";
    case ZoneCondition::kOffline:
      return "offline";
  }
  return "unknown";
}

const char* ZonedModelName(ZonedModel model) {
  switch (model) {
    case ZonedModel::kHostManaged:
      return "host-managed";
    case ZonedModel::kHostAware:
      return "host-aware";
  }
  return "unknown";
}

uint64_t ZoneInfo::remaining() const {
  if (is_conventional()) return 0;
  switch (cond) {
    case ZoneCondition::kEmpty:
    case ZoneCondition::kImplicitOpen:
    case ZoneCondition::kExplicitOpen:
    case ZoneCondition::kClosed:
      return start + capacity > wp ? start + capacity - wp : 0;
    default:
      return 0;
  }
}

bool ZoneInfo::operator==(const ZoneInfo& o) const {
  return start == o.start && length == o.length && capacity == o.capacity && wp == o.wp &&
         type == o.type && cond == o.cond;
}

Status CheckIoRange(const DeviceInfo& info, uint64_t offset, size_t len, const char* op) {
  const uint64_t lbs = info.logical_block_size;
  if (len == 0) return Status::InvalidArgument(std::string(op) + ": zero length");
  if (offset % lbs != 0 || len % lbs != 0) {
    return Status::InvalidArgument(std::string(op) + ": offset " + std::to_string(offset) +
                                   " or length " + std::to_string(len) +
                                   " not aligned to the logical block size " +
                                   std::to_string(lbs));
  }
  if (offset >= info.capacity_bytes() || len > info.capacity_bytes() - offset) {
    return Status::InvalidArgument(std::string(op) + ": range [" + std::to_string(offset) +
                                   ", +" + std::to_string(len) + ") beyond device end " +
                                   std::to_string(info.capacity_bytes()));
  }
  return Status::OK();
}

Status CheckZoneRange(const DeviceInfo& info, uint32_t first, uint32_t count, const char* op) {
  if (count == 0 || first >= info.nr_zones || count > info.nr_zones - first) {
    return Status::InvalidArgument(std::string(op) + ": zone range [" + std::to_string(first) +
                                   ", +" + std::to_string(count) + ") outside 0.." +
                                   std::to_string(info.nr_zones));
  }
  return Status::OK();
}

}  // namespace smr
