#include "device/zone_state_machine.h"

#include <string>

namespace smr {

namespace {

std::string ZoneName(uint32_t zone) { return "zone " + std::to_string(zone); }

bool IsOpen(ZoneCondition c) {
  return c == ZoneCondition::kImplicitOpen || c == ZoneCondition::kExplicitOpen;
}
bool IsActive(ZoneCondition c) { return IsOpen(c) || c == ZoneCondition::kClosed; }

}  // namespace

ZoneStateMachine::ZoneStateMachine(const DeviceInfo& info)
    : info_(info),
      zones_(info.nr_zones),
      conventional_(info.nr_zones, false),
      inactive_(info.nr_zones, false) {
  for (uint32_t z = 0; z < info_.nr_conventional && z < info_.nr_zones; ++z) MarkConventional(z);
  if (info_.hybrid()) {
    const uint64_t cmr_end =
        info_.cmr_first_zone + uint64_t{info_.nr_realms} * info_.cmr_zones_per_realm;
    for (uint64_t z = info_.cmr_first_zone; z < cmr_end && z < info_.nr_zones; ++z) {
      MarkConventional(static_cast<uint32_t>(z));
    }
  }
}

void ZoneStateMachine::SetInactive(uint32_t zone, bool inactive) {
  inactive_[zone] = inactive;
  if (is_conventional(zone)) return;
  zones_[zone].wp = 0;
  SetCondition(zone, ZoneCondition::kEmpty);
}

void ZoneStateMachine::MarkConventional(uint32_t zone) {
  conventional_[zone] = true;
  zones_[zone].cond = ZoneCondition::kNotWritePointer;
}

Status ZoneStateMachine::Restore(uint32_t zone, uint64_t wp, ZoneCondition cond) {
  if (zone >= info_.nr_zones || is_conventional(zone)) {
    return Status::Corruption(ZoneName(zone) + ": no sequential zone to restore");
  }
  if (wp > info_.zone_capacity || wp % info_.logical_block_size != 0) {
    return Status::Corruption(ZoneName(zone) + ": impossible write pointer " +
                              std::to_string(wp));
  }
  switch (cond) {
    case ZoneCondition::kEmpty:
      if (wp != 0) return Status::Corruption(ZoneName(zone) + ": empty zone with data");
      break;
    case ZoneCondition::kImplicitOpen:
    case ZoneCondition::kExplicitOpen:
    case ZoneCondition::kClosed:
      if (wp == info_.zone_capacity) {
        return Status::Corruption(ZoneName(zone) + ": zone at capacity is not full");
      }
      break;
    case ZoneCondition::kFull:
    case ZoneCondition::kReadOnly:
    case ZoneCondition::kOffline:
      break;
    default:
      return Status::Corruption(ZoneName(zone) + ": impossible condition " +
                                ZoneConditionName(cond));
  }
  zones_[zone].wp = wp;
  SetCondition(zone, cond);
  return Status::OK();
}

ZoneInfo ZoneStateMachine::Info(uint32_t zone) const {
  const Zone& zs = zones_[zone];
  ZoneInfo zi;
  zi.start = zone * info_.zone_size;
  zi.length = info_.zone_size;
  if (inactive_[zone]) {
    zi.type = is_conventional(zone) ? ZoneType::kConventional : ZoneType::kSequentialRequired;
    zi.capacity = is_conventional(zone) ? info_.zone_size : info_.zone_capacity;
    zi.cond = ZoneCondition::kInactive;
    zi.wp = zi.start;
    return zi;
  }
  if (is_conventional(zone)) {
    zi.type = ZoneType::kConventional;
    zi.capacity = info_.zone_size;
    zi.cond = ZoneCondition::kNotWritePointer;
    zi.wp = zi.start + zi.length;  // conventional zones have no write pointer
    return zi;
  }
  zi.type = ZoneType::kSequentialRequired;
  zi.capacity = info_.zone_capacity;
  zi.cond = zs.cond;
  zi.wp = zi.start + (zs.cond == ZoneCondition::kFull ? zi.length : zs.wp);
  return zi;
}

void ZoneStateMachine::SetCondition(uint32_t zone, ZoneCondition cond) {
  Zone& zs = zones_[zone];
  if (zs.cond == ZoneCondition::kImplicitOpen) implicit_lru_.erase(zs.lru_pos);
  nr_open_ = nr_open_ + IsOpen(cond) - IsOpen(zs.cond);
  nr_active_ = nr_active_ + IsActive(cond) - IsActive(zs.cond);
  zs.cond = cond;
  if (cond == ZoneCondition::kImplicitOpen) {
    zs.lru_pos = implicit_lru_.insert(implicit_lru_.end(), zone);
  }
}

Status ZoneStateMachine::ReserveOpen(uint32_t zone, std::vector<uint32_t>* changed,
                                     std::vector<uint32_t>* to_close) {
  const bool active = IsActive(zones_[zone].cond);
  if (!active && info_.max_active_zones != 0 && nr_active_ >= info_.max_active_zones) {
    return Status::TooManyActiveZones(ZoneName(zone) + ": " + std::to_string(nr_active_) +
                                      " zones active, the device limit is " +
                                      std::to_string(info_.max_active_zones));
  }
  if (info_.max_open_zones == 0 || nr_open_ < info_.max_open_zones) return Status::OK();
  // Make room by closing the least recently written implicitly open zone that has no
  // write in flight.
  for (uint32_t victim : implicit_lru_) {
    if (zones_[victim].writing) continue;
    SetCondition(victim, zones_[victim].wp == 0 ? ZoneCondition::kEmpty : ZoneCondition::kClosed);
    changed->push_back(victim);
    to_close->push_back(victim);
    return Status::OK();
  }
  return Status::TooManyOpenZones(ZoneName(zone) + ": " + std::to_string(nr_open_) +
                                  " zones explicitly open, the device limit is " +
                                  std::to_string(info_.max_open_zones));
}

Status ZoneStateMachine::BeginWrite(uint64_t offset, uint64_t len, std::vector<uint32_t>* changed,
                                    std::vector<uint32_t>* to_close) {
  const auto z = static_cast<uint32_t>(offset / info_.zone_size);
  const uint64_t zstart = z * info_.zone_size;
  Zone& zs = zones_[z];
  if (inactive_[z]) {
    return Status::IOError("write at " + std::to_string(offset) + ": " + ZoneName(z) +
                           " is inactive (its realm is active in the other domain)");
  }
  if (zs.cond == ZoneCondition::kReadOnly || zs.cond == ZoneCondition::kOffline) {
    return Status::IOError("write at " + std::to_string(offset) + ": " + ZoneName(z) + " is " +
                           ZoneConditionName(zs.cond));
  }
  if (zs.writing || zs.cond == ZoneCondition::kFull || offset != zstart + zs.wp) {
    return Status::IOError("write at " + std::to_string(offset) +
                           " is not at the write pointer " + std::to_string(Info(z).wp) +
                           " of " + ZoneName(z) + (zs.writing ? " (a write is in flight)" : ""));
  }
  if (offset + len > zstart + info_.zone_size) {
    return Status::IOError("write [" + std::to_string(offset) + ", +" + std::to_string(len) +
                           ") crosses the end of " + ZoneName(z));
  }
  if (zs.wp + len > info_.zone_capacity) {
    return Status::NoSpace("write of " + std::to_string(len) + " bytes exceeds the " +
                           std::to_string(info_.zone_capacity - zs.wp) + " bytes left in " +
                           ZoneName(z));
  }
  if (zs.cond == ZoneCondition::kEmpty || zs.cond == ZoneCondition::kClosed) {
    SMR_RETURN_IF_ERROR(ReserveOpen(z, changed, to_close));
    SetCondition(z, ZoneCondition::kImplicitOpen);
  }
  zs.writing = true;
  return Status::OK();
}

void ZoneStateMachine::EndWrite(uint32_t zone, uint64_t len, bool ok,
                                std::vector<uint32_t>* changed) {
  Zone& zs = zones_[zone];
  zs.writing = false;
  changed->push_back(zone);
  if (!ok) return;
  zs.wp += len;
  if (zs.wp == info_.zone_capacity) {
    SetCondition(zone, ZoneCondition::kFull);
  } else if (zs.cond == ZoneCondition::kImplicitOpen) {
    implicit_lru_.splice(implicit_lru_.end(), implicit_lru_, zs.lru_pos);
  }
}

Status ZoneStateMachine::CheckZoneOp(uint32_t first, uint32_t count, const char* op) const {
  for (uint32_t z = first; z < first + count; ++z) {
    if (inactive_[z]) {
      return Status::IOError(std::string(op) + ": " + ZoneName(z) +
                             " is inactive (its realm is active in the other domain)");
    }
    if (is_conventional(z)) {
      return Status::InvalidArgument(std::string(op) + ": " + ZoneName(z) + " is conventional");
    }
    if (zones_[z].writing) {
      return Status::IOError(std::string(op) + ": " + ZoneName(z) + " has a write in flight");
    }
    if (zones_[z].cond == ZoneCondition::kReadOnly || zones_[z].cond == ZoneCondition::kOffline) {
      return Status::IOError(std::string(op) + ": " + ZoneName(z) + " is " +
                             ZoneConditionName(zones_[z].cond));
    }
  }
  return Status::OK();
}

Status ZoneStateMachine::Open(uint32_t zone, std::vector<uint32_t>* changed,
                              std::vector<uint32_t>* to_close) {
  switch (zones_[zone].cond) {
    case ZoneCondition::kExplicitOpen:
    case ZoneCondition::kFull:  // opening a full zone is a no-op on ZBC and ZNS
      return Status::OK();
    case ZoneCondition::kImplicitOpen:
      break;
    default:
      SMR_RETURN_IF_ERROR(ReserveOpen(zone, changed, to_close));
      break;
  }
  SetCondition(zone, ZoneCondition::kExplicitOpen);
  changed->push_back(zone);
  return Status::OK();
}

void ZoneStateMachine::Close(uint32_t zone, std::vector<uint32_t>* changed) {
  if (!IsOpen(zones_[zone].cond)) return;  // closing a closed/empty/full zone: no change
  SetCondition(zone, zones_[zone].wp == 0 ? ZoneCondition::kEmpty : ZoneCondition::kClosed);
  changed->push_back(zone);
}

void ZoneStateMachine::Finish(uint32_t zone, std::vector<uint32_t>* changed) {
  if (zones_[zone].cond == ZoneCondition::kFull) return;
  SetCondition(zone, ZoneCondition::kFull);
  changed->push_back(zone);
}

void ZoneStateMachine::Reset(uint32_t zone, std::vector<uint32_t>* changed) {
  if (zones_[zone].cond == ZoneCondition::kEmpty) return;
  zones_[zone].wp = 0;
  SetCondition(zone, ZoneCondition::kEmpty);
  changed->push_back(zone);
}

}  // namespace smr
