#include "zone/zone_manager.h"

#include <algorithm>

#include "format/record_format.h"

namespace smr {

namespace {
// Records are aligned to the record format's block (format/record_format.h).
constexpr uint64_t kBlock = recfmt::kBlockSize;
}  // namespace

const char* ZoneStateName(ZoneState s) {
  switch (s) {
    case ZoneState::kReserved:
      return "reserved";
    case ZoneState::kFree:
      return "free";
    case ZoneState::kOpen:
      return "open";
    case ZoneState::kSealed:
      return "sealed";
    case ZoneState::kInactive:
      return "inactive";
  }
  return "unknown";
}

ZoneManager::ZoneManager(std::vector<ZonedDevice*> drives) : drives_(std::move(drives)) {}

Status ZoneManager::Attach() {
  MutexLock lock(&mu_);
  state_.clear();
  state_.resize(drives_.size());
  for (uint16_t d = 0; d < drives_.size(); ++d) {
    Drive& drive = state_[d];
    drive.dev = drives_[d];
    const DeviceInfo& info = drive.dev->info();
    if (info.logical_block_size > kBlock || kBlock % info.logical_block_size != 0) {
      return Status::InvalidArgument(info.path + ": logical block size " +
                                     std::to_string(info.logical_block_size) +
                                     " does not divide the 4096-byte record alignment");
    }
    if (info.zone_capacity % kBlock != 0) {
      return Status::InvalidArgument(info.path + ": zone capacity is not 4 KiB-aligned");
    }
    auto zones = drive.dev->ReportZones(0, 0);
    if (!zones.ok()) return zones.status();
    drive.zones.resize(zones->size());
    // The superblock log takes the first conventional zones (up to kReservedZones) or, on a
    // drive without any, its first kReservedZones sequential zones.
    const bool has_conventional = info.nr_conventional > 0;
    for (uint32_t z = 0; z < zones->size(); ++z) {
      Zone& zone = drive.zones[z];
      const ZoneInfo& zi = (*zones)[z];
      zone.capacity = zi.capacity;
      zone.device_cond = zi.cond;
      if (drive.reserved.size() < kReservedZones && zi.is_conventional() == has_conventional) {
        drive.reserved.push_back(z);
        zone.state = ZoneState::kReserved;
        continue;
      }
      if (auto r = RealmOfZone(info, z)) {
        // A hybrid drive's realm zone: a data zone while its domain is active (CMR ones
        // written with a software write pointer), else inactive.
        zone.cmr = r->domain == ZoneDomain::kCmr;
        zone.state = zi.cond == ZoneCondition::kInactive ? ZoneState::kInactive : ZoneState::kFree;
        continue;
      }
      // Other (permanent) conventional zones are not data zones.
      zone.state = zi.is_conventional() ? ZoneState::kReserved : ZoneState::kFree;
    }
    if (info.hybrid()) {
      auto realms = drive.dev->ReportRealms(0, 0);
      if (!realms.ok()) return realms.status();
      drive.realms.assign(realms->size(), Realm{});
      for (const RealmInfo& r : *realms) drive.realms[r.realm].domain = r.domain;
    }
    uint32_t data_zones = 0;
    for (const Zone& z : drive.zones) data_zones += z.state == ZoneState::kFree;
    if (data_zones < 2) {
      return Status::InvalidArgument(info.path + ": needs at least " +
                                     std::to_string(kReservedZones + 2) + " zones");
    }
    // One open zone per stream, plus one for the superblock log when it is sequential.
    const uint32_t limit = std::min(info.max_open_zones ? info.max_open_zones : UINT32_MAX,
                                    info.max_active_zones ? info.max_active_zones : UINT32_MAX);
    drive.shared_open = limit < static_cast<uint32_t>(kNumStreams) + 1;
  }
  return Status::OK();
}

Status ZoneManager::Format() {
  SMR_RETURN_IF_ERROR(Attach());
  MutexLock lock(&mu_);
  for (uint16_t d = 0; d < state_.size(); ++d) {
    Drive& drive = state_[d];
    for (uint32_t z = 0; z < drive.zones.size(); ++z) {
      Zone& zone = drive.zones[z];
      if (zone.state != ZoneState::kFree) continue;
      if (zone.cmr) {
        SMR_RETURN_IF_ERROR(ClearCmrHead(drive.dev, z));  // an earlier store's records
        continue;
      }
      if (zone.device_cond != ZoneCondition::kEmpty) {
        SMR_RETURN_IF_ERROR(drive.dev->ResetZones(z, 1));
        zone.device_cond = ZoneCondition::kEmpty;
      }
    }
  }
  return Status::OK();
}

// Load, one zone a commit last left holding data (`m`, stream set, not free): its state,
// counters and open slot from `m` and the drive's report `zi` (CMR: with the committed
// write pointer). A zone GC cleaned is freed (reset unless !modify); a zone that cannot be
// resumed exactly where committed data ends is sealed (finished if `modify`). kCorruption:
// an unknown stream, a write pointer behind committed data.
Status ZoneManager::LoadCommittedZone(uint16_t d, uint32_t z, const ZoneInfo& zi,
                                      const ZoneMeta& m, bool modify) {
  Drive& drive = state_[d];
  Zone& zone = drive.zones[z];
  const uint64_t device_written = zi.written_bytes();
  if (!ValidStream(m.stream)) {
    return Status::Corruption(drive.dev->info().path + ": zone " + std::to_string(z) +
                              " belongs to unknown stream " + std::to_string(m.stream) +
                              " (written by a newer smrstore?)");
  }
  if (m.sealed && m.live_bytes == 0 && m.stream != static_cast<uint8_t>(StreamId::kJournal) &&
      journal_pins_.count({d, z}) == 0) {
    // Cleaned by GC (its relocations committed), maybe not yet reset when the process
    // died: nothing references it, so it is free (reset now unless read-only).
    if (modify && zi.cond != ZoneCondition::kEmpty && !zone.cmr) {
      SMR_RETURN_IF_ERROR(drive.dev->ResetZones(z, 1));
    }
    if (modify && zone.cmr) SMR_RETURN_IF_ERROR(ClearCmrHead(drive.dev, z));
    zone.state = ZoneState::kFree;
    zone.device_cond = zone.cmr ? ZoneCondition::kNotWritePointer : ZoneCondition::kEmpty;
    if (modify) MarkDirty(d, z);
    return Status::OK();
  }
  if (device_written < m.committed_wp) {
    return Status::Corruption(drive.dev->info().path + ": zone " + std::to_string(z) +
                              " write pointer " + std::to_string(device_written) +
                              " is behind committed data ending at " +
                              std::to_string(m.committed_wp));
  }
  // Dead on mount = bytes written after the last commit. A zone sealed as of the last
  // commit received nothing after it: when the drive reports it full, "written" is the
  // whole capacity, but the part past committed_wp is the unused tail the store
  // finished it with, never written, not dead data (issue 15 part 4, item 8).
  if (!(m.sealed && zi.cond == ZoneCondition::kFull)) {
    dead_on_mount_ += device_written - m.committed_wp;
  }
  zone.stream = static_cast<StreamId>(m.stream);
  zone.live = m.live_bytes;
  zone.committed_wp = m.committed_wp;
  zone.opened_seq = m.opened_seq;
  zone.footer_at = m.sealed ? m.footer_at : 0;
  zone.written = device_written;
  zone.device_cond = zone.cmr ? ZoneCondition::kNotWritePointer : zi.cond;
  zone.footer_ok = false;
  zone.payload_known = false;
  std::optional<uint32_t>& slot = OpenSlot(drive, zone.stream);
  // Resume only a zone whose device write pointer is exactly where committed data ends:
  // bytes of a transaction that never committed may be torn, and records appended after
  // them could not be found again by walking the zone (GC, fsck). Such a zone is
  // finished instead; its tail stays dead space.
  const bool can_resume = !m.sealed && zi.cond != ZoneCondition::kFull &&
                          device_written == m.committed_wp &&
                          zone.capacity - zone.written >= 2 * kBlock && !slot.has_value();
  if (can_resume) {
    zone.state = ZoneState::kOpen;
    slot = z;
  } else {
    zone.state = ZoneState::kSealed;
    if (zi.cond != ZoneCondition::kFull && modify && !zone.cmr) {
      SMR_RETURN_IF_ERROR(drive.dev->FinishZones(z, 1));
      zone.device_cond = ZoneCondition::kFull;
    }
    if (!m.sealed) MarkDirty(d, z);
  }
  return Status::OK();
}

// Load, one zone of drive `d` that is not reserved: reconciles the metadata's record of it
// (`m`, null if none) with the drive's `report`. An inactive zone must hold nothing live
// (kCorruption); an offline or read-only one is kept as known, sealed; one no commit left
// data in is free (what was written counts as dead on mount; reset if `modify`); the rest
// is LoadCommittedZone's.
Status ZoneManager::LoadZone(uint16_t d, uint32_t z, const std::vector<ZoneInfo>& report,
                             const ZoneMeta* m, bool modify) {
  Drive& drive = state_[d];
  Zone& zone = drive.zones[z];
  if (zone.state == ZoneState::kInactive) {
    // Its realm is active in the other domain: nothing of it may be referenced. A
    // conversion commits the zones free before the drive converts the realm.
    if (m != nullptr && m->stream != 0) {
      if (m->live_bytes != 0) {
        return Status::Corruption(drive.dev->info().path + ": zone " + std::to_string(z) +
                                  " holds " + std::to_string(m->live_bytes) +
                                  " live bytes per the metadata, but its realm is active "
                                  "in the other domain (converted under live data)");
      }
      if (modify) MarkDirty(d, z);  // stale: persist it free
    }
    return Status::OK();
  }
  ZoneInfo zi = report[z];
  if (zone.cmr) {
    // No write pointer on the drive: the committed one is where writing resumes (bytes
    // a crash left past it are overwritten, never referenced).
    const uint64_t wp =
        m != nullptr && m->stream != 0 ? std::min(m->committed_wp, zi.capacity) : 0;
    zi.wp = zi.start + wp;
    zi.cond = wp == 0 ? ZoneCondition::kEmpty : ZoneCondition::kClosed;
  }
  const uint64_t device_written = zi.written_bytes();
  if (zi.cond == ZoneCondition::kOffline || zi.cond == ZoneCondition::kReadOnly) {
    // Keep what we know; GC/repair decides. Never allocate in it.
    zone.state = ZoneState::kSealed;
    if (m != nullptr) {
      zone.live = m->live_bytes;
      zone.committed_wp = m->committed_wp;
      zone.stream = static_cast<StreamId>(m->stream ? m->stream : 1);
    }
    return Status::OK();
  }
  if (m == nullptr || m->stream == 0) {
    if (device_written > 0 || zi.cond != ZoneCondition::kEmpty) {
      // Only data of transactions that never committed: reclaim it.
      dead_on_mount_ += device_written;
      if (modify && !zone.cmr) SMR_RETURN_IF_ERROR(drive.dev->ResetZones(z, 1));
    }
    zone.state = ZoneState::kFree;
    zone.device_cond = zone.cmr ? ZoneCondition::kNotWritePointer : ZoneCondition::kEmpty;
    return Status::OK();
  }
  return LoadCommittedZone(d, z, zi, *m, modify);
}

Status ZoneManager::Load(const std::map<std::pair<uint16_t, uint32_t>, ZoneMeta>& persisted,
                         bool modify) {
  SMR_RETURN_IF_ERROR(Attach());
  MutexLock lock(&mu_);
  dead_on_mount_ = 0;
  for (uint16_t d = 0; d < state_.size(); ++d) {
    Drive& drive = state_[d];
    auto report = drive.dev->ReportZones(0, 0);
    if (!report.ok()) return report.status();
    for (uint32_t z = 0; z < drive.zones.size(); ++z) {
      if (drive.zones[z].state == ZoneState::kReserved) continue;
      auto it = persisted.find({d, z});
      SMR_RETURN_IF_ERROR(
          LoadZone(d, z, *report, it != persisted.end() ? &it->second : nullptr, modify));
    }
  }
  return Status::OK();
}

std::optional<uint32_t>& ZoneManager::OpenSlot(Drive& d, StreamId s) {
  // The journal keeps zones of its own even with shared placement: GC would take a shared
  // zone's journal records for dead bytes.
  if (s == StreamId::kJournal) return d.open[StreamIndex(s)];
  return d.open[d.shared_open || shared_ ? 0 : StreamIndex(s)];
}

void ZoneManager::Configure(bool shared, uint32_t reserve, uint32_t journal_reserve) {
  MutexLock lock(&mu_);
  shared_ = shared;
  reserve_ = reserve;
  journal_reserve_ = journal_reserve;
}

void ZoneManager::SetJournalReserve(uint32_t zones) {
  MutexLock lock(&mu_);
  journal_reserve_ = zones;
}

bool ZoneManager::JournalInReserve() const {
  MutexLock lock(&mu_);
  if (journal_reserve_ == 0) return false;
  for (const Drive& drive : state_) {
    if (FreeCount(drive) < journal_reserve_) return true;
  }
  return false;
}

void ZoneManager::SetDomainPlacement(bool on) {
  MutexLock lock(&mu_);
  domain_placement_ = on;
}

std::pair<uint32_t, uint32_t> ZoneManager::FreeZonesByDomain() const {
  MutexLock lock(&mu_);
  uint32_t cmr = 0, smr = 0;
  for (const Drive& drive : state_) {
    for (uint32_t z = 0; z < drive.zones.size(); ++z) {
      const Zone& zone = drive.zones[z];
      if (zone.state != ZoneState::kFree || InDrainingRealm(drive, z)) continue;
      ++(zone.cmr ? cmr : smr);
    }
  }
  return {cmr, smr};
}

void ZoneManager::ReleaseZone(uint16_t drive, uint32_t zone) {
  MutexLock lock(&mu_);
  Zone& z = state_[drive].zones[zone];
  const uint64_t capacity = z.capacity;
  const bool cmr = z.cmr;
  z = Zone{};
  z.capacity = capacity;
  z.cmr = cmr;
  z.state = ZoneState::kFree;
  z.device_cond = cmr ? ZoneCondition::kNotWritePointer : ZoneCondition::kEmpty;
  for (auto& slot : state_[drive].open) {
    if (slot == zone) slot.reset();
  }
  MarkDirty(drive, zone);
}

double ZoneManager::free_fraction() const {
  const FreeZones z = free_zones();
  return z.total ? static_cast<double>(z.free) / static_cast<double>(z.total) : 0.0;
}

ZoneManager::FreeZones ZoneManager::free_zones() const {
  MutexLock lock(&mu_);
  // Zones kept for GC and the journal do not count: they are not free for users.
  uint64_t free = 0, total = 0;
  for (const Drive& drive : state_) {
    uint64_t drive_free = 0, drive_total = 0;
    for (uint32_t z = 0; z < drive.zones.size(); ++z) {
      const Zone& zone = drive.zones[z];
      if (zone.state == ZoneState::kReserved || zone.state == ZoneState::kInactive) continue;
      ++drive_total;
      // A draining realm's free zones take no data: not free for anyone.
      if (zone.state == ZoneState::kFree && !InDrainingRealm(drive, z)) ++drive_free;
    }
    const uint64_t keep = reserve_ + journal_reserve_;  // GC's and the journal's
    free += drive_free > keep ? drive_free - keep : 0;
    total += drive_total > keep ? drive_total - keep : 0;
  }
  return FreeZones{free, total};
}

uint64_t ZoneManager::FooterReserve(const Zone& z) const {
  if (!z.footer_ok) return 0;
  return ZoneFooterRecordBytes(z.footer.size() + 1);
}

void ZoneManager::MarkDirty(uint16_t drive, uint32_t zone) { dirty_[{drive, zone}] = true; }

uint32_t ZoneManager::FreeCount(const Drive& drive) const {
  uint32_t free = 0;
  for (uint32_t z = 0; z < drive.zones.size(); ++z) {
    free += drive.zones[z].state == ZoneState::kFree && !InDrainingRealm(drive, z);
  }
  return free;
}

bool ZoneManager::InReserve(const Drive& drive) const {
  if (reserve_ == 0 && journal_reserve_ == 0) return false;
  return FreeCount(drive) <= reserve_ + journal_reserve_;
}

std::optional<uint32_t> ZoneManager::OpenNewZone(uint16_t d, StreamId stream, uint64_t seq) {
  Drive& drive = state_[d];
  // Users leave the GC reserve and the journal's; GC leaves the journal's; the journal may
  // take every free zone.
  if (!MayUseReserve(stream) && InReserve(drive)) return std::nullopt;
  // The journal's own zones are the last: GC, whose every slice commits a journal record,
  // must leave them (a full drive would otherwise end with no zone for the next journal
  // record, and the store read-only and unmountable).
  if (stream != StreamId::kJournal && journal_reserve_ > 0 && FreeCount(drive) <= journal_reserve_) {
    return std::nullopt;
  }
  // Hybrid drives: small, hot and metadata streams take CMR zones first (the CMR space is
  // their buffer: rewritten in place, cheap to clean), large and cold ones SMR zones first;
  // either falls back to the other domain. Without CMR data zones this is one pass.
  auto first_free = [&](bool cmr) SMR_REQUIRES(mu_) -> std::optional<uint32_t> {
    for (uint32_t z = 0; z < drive.zones.size(); ++z) {
      const Zone& zone = drive.zones[z];
      if (zone.state == ZoneState::kFree && zone.cmr == cmr && !InDrainingRealm(drive, z)) {
        return z;
      }
    }
    return std::nullopt;
  };
  const bool prefer_cmr = PrefersCmr(stream);
  std::optional<uint32_t> found = first_free(prefer_cmr);
  if (!found) {
    found = first_free(!prefer_cmr);
  } else if (!domain_placement_) {
    // No preference: the first free zone of either domain.
    const std::optional<uint32_t> other = first_free(!prefer_cmr);
    if (other && *other < *found) found = other;
  }
  if (!found) return std::nullopt;
  const uint32_t z = *found;
  Zone& zone = drive.zones[z];
  const uint64_t capacity = zone.capacity;
  const bool cmr = zone.cmr;
  zone = Zone{};
  zone.capacity = capacity;
  zone.cmr = cmr;
  zone.device_cond = cmr ? ZoneCondition::kNotWritePointer : ZoneCondition::kEmpty;
  zone.state = ZoneState::kOpen;
  zone.stream = stream;
  zone.opened_seq = seq;
  OpenSlot(drive, stream) = z;
  MarkDirty(d, z);
  opened_.push_back({d, z, stream, seq});
  return z;
}

void ZoneManager::Seal(uint16_t d, uint32_t z, std::vector<SealWrite>* out) {
  Drive& drive = state_[d];
  Zone& zone = drive.zones[z];
  SealWrite w;
  w.drive = d;
  w.zone = z;
  const uint64_t start = uint64_t{z} * drive.dev->info().zone_size;
  if (zone.footer_ok && !zone.footer.empty()) {
    const uint64_t need = ZoneFooterRecordBytes(zone.footer.size());
    if (zone.written + need <= zone.capacity) {
      RecordHeader h;
      h.type = RecordType::kZoneFooter;
      AppendRecord(h, EncodeZoneFooter(zone.footer), &w.bytes);
      w.offset = start + zone.written;
      zone.footer_at = zone.written;
      zone.written += w.bytes.size();
    }
  }
  zone.footer.clear();
  zone.footer.shrink_to_fit();
  zone.state = ZoneState::kSealed;
  for (auto& slot : drive.open) {
    if (slot == z) slot.reset();
  }
  MarkDirty(d, z);
  out->push_back(std::move(w));
}

Result<Allocation> ZoneManager::Allocate(StreamId stream, uint64_t bytes,
                                         const ZoneFooterEntry& entry, uint64_t seq,
                                         std::vector<SealWrite>* seals) {
  MutexLock lock(&mu_);
  if (bytes == 0 || bytes % kBlock != 0) {
    return Status::InvalidArgument("allocation of " + std::to_string(bytes) +
                                   " bytes is not a positive multiple of 4096");
  }
  const size_t n = state_.size();
  uint16_t& rr = next_drive_[StreamIndex(stream)];
  auto take = [&](uint16_t d, uint32_t z) SMR_REQUIRES(mu_) {
    Drive& drive = state_[d];
    Zone& zone = drive.zones[z];
    Allocation a;
    a.drive = d;
    a.zone = z;
    a.offset = uint64_t{z} * drive.dev->info().zone_size + zone.written;
    ZoneFooterEntry e = entry;
    e.block = static_cast<uint32_t>(zone.written / kBlock);
    if (zone.footer_ok && zone.written + bytes + FooterReserve(zone) > zone.capacity) {
      // The record took the footer's room (fits): the zone goes without a footer.
      zone.footer_ok = false;
      zone.footer.clear();
      zone.footer.shrink_to_fit();
    }
    if (zone.footer_ok) zone.footer.push_back(e);
    zone.written += bytes;
    zone.payload += entry.payload_len;
    MarkDirty(d, z);
    return a;
  };
  // Room for the record with the footer's room kept; or, on a sequential zone, for a record
  // larger than the footer in place of it when that room is worth more than the footer:
  // the footer only saves reads (GC walks the zone's headers without it), the record's room
  // would stay unused for good. On a drive that seeks those reads cost positioning time,
  // so there the record must also be at least 1/64 of the zone (about 8 % of the spare
  // room of a store 80 % full; a 1 MiB record in a 256 MiB zone is not). A CMR zone keeps
  // its footer: a walk needs it to tell the zone's records from an earlier use's.
  auto fits = [&](const Zone& zone, const Drive& drive) {
    const uint64_t footer = FooterReserve(zone);
    if (zone.written + bytes + footer <= zone.capacity) return true;
    return !zone.cmr && bytes > footer && zone.written + bytes <= zone.capacity &&
           (!drive.dev->info().rotational || bytes * 64 >= zone.capacity);
  };
  for (size_t attempt = 0; attempt < n; ++attempt) {
    const auto d = static_cast<uint16_t>((rr + attempt) % n);
    Drive& drive = state_[d];
    if (bytes + ZoneFooterRecordBytes(1) > drive.dev->info().zone_capacity) {
      return Status::InvalidArgument("a record of " + std::to_string(bytes) +
                                     " bytes does not fit in a zone");
    }
    for (int tries = 0; tries < 2; ++tries) {
      std::optional<uint32_t>& slot = OpenSlot(drive, stream);
      if (!slot && IsGcStream(stream) && InReserve(drive)) {
        // With only the reserve left, a GC stream that opened a zone of its own while the
        // other GC stream's open zone has room would spend the very zone GC is winning
        // back (hot and cold relocations in two zones: cleaning two victims frees none).
        // Separating them is a hint; the room is not.
        for (const std::optional<uint32_t>& other : drive.open) {
          if (other && IsGcStream(drive.zones[*other].stream) &&
              fits(drive.zones[*other], drive)) {
            ++borrowed_;
            return take(d, *other);
          }
        }
      }
      if (!slot) {
        auto z = OpenNewZone(d, stream, seq);
        if (!z) break;  // this drive is full; try the next one
      }
      if (fits(drive.zones[*slot], drive)) {
        rr = static_cast<uint16_t>((d + 1) % n);
        return take(d, *slot);
      }
      Seal(d, *slot, seals);
    }
  }
  // Placement is a hint: rather than fail a user write while another user stream's open
  // zone has room (its stream had no free zone beyond the GC reserve), put it there.
  if (IsUserStream(stream)) {
    for (uint16_t d = 0; d < n; ++d) {
      for (const std::optional<uint32_t>& slot : state_[d].open) {
        if (slot && IsUserStream(state_[d].zones[*slot].stream) &&
            fits(state_[d].zones[*slot], state_[d])) {
          ++borrowed_;
          return take(d, *slot);
        }
      }
    }
  }
  uint64_t faulted = 0;
  for (const Drive& drive : state_) {
    for (const Zone& zone : drive.zones) {
      if (zone.state != ZoneState::kReserved && zone.state != ZoneState::kInactive &&
          (zone.device_cond == ZoneCondition::kOffline ||
           zone.device_cond == ZoneCondition::kReadOnly)) {
        ++faulted;
      }
    }
  }
  return Status::NoSpace("no free zone left for a " + std::to_string(bytes) + "-byte " +
                         StreamName(stream) + " record on any of " + std::to_string(n) +
                         " drive(s)" +
                         (faulted == 0 ? std::string()
                                       : " (" + std::to_string(faulted) +
                                             " zones retired: the drives report them "
                                             "offline or read-only)"));
}

std::optional<Allocation> ZoneManager::AllocateIn(ZoneAddress at, uint64_t bytes,
                                                  const ZoneFooterEntry& entry) {
  MutexLock lock(&mu_);
  if (bytes == 0 || bytes % kBlock != 0 || at.drive >= state_.size()) return std::nullopt;
  Drive& drive = state_[at.drive];
  if (at.zone >= drive.zones.size()) return std::nullopt;
  Zone& zone = drive.zones[at.zone];
  if (zone.state != ZoneState::kOpen) return std::nullopt;
  if (zone.written + bytes + FooterReserve(zone) > zone.capacity) return std::nullopt;
  Allocation a;
  a.drive = at.drive;
  a.zone = at.zone;
  a.offset = uint64_t{at.zone} * drive.dev->info().zone_size + zone.written;
  ZoneFooterEntry e = entry;
  e.block = static_cast<uint32_t>(zone.written / kBlock);
  if (zone.footer_ok) zone.footer.push_back(e);
  zone.written += bytes;
  zone.payload += entry.payload_len;
  MarkDirty(at.drive, at.zone);
  return a;
}

void ZoneManager::SetJournalPins(const std::vector<ZoneAddress>& pins) {
  MutexLock lock(&mu_);
  journal_pins_ = std::set<ZoneAddress>(pins.begin(), pins.end());
}

bool ZoneManager::PinJournal(ZoneAddress zone) {
  MutexLock lock(&mu_);
  return journal_pins_.insert(zone).second;
}

void ZoneManager::ClearJournalPins() {
  MutexLock lock(&mu_);
  journal_pins_.clear();
}

std::vector<ZoneAddress> ZoneManager::JournalPins() const {
  MutexLock lock(&mu_);
  return std::vector<ZoneAddress>(journal_pins_.begin(), journal_pins_.end());
}

bool ZoneManager::TryExtend(const Allocation& a, uint64_t old_bytes, uint64_t extra,
                            const ZoneFooterEntry& entry) {
  MutexLock lock(&mu_);
  if (a.drive >= state_.size() || extra % kBlock != 0) return false;
  Drive& drive = state_[a.drive];
  if (a.zone >= drive.zones.size()) return false;
  Zone& zone = drive.zones[a.zone];
  const uint64_t start = uint64_t{a.zone} * drive.dev->info().zone_size;
  if (zone.state != ZoneState::kOpen || a.offset < start ||
      a.offset - start + old_bytes != zone.written) {
    return false;  // sealed, or something was allocated after the record
  }
  const uint64_t reserve = zone.footer_ok ? ZoneFooterRecordBytes(zone.footer.size()) : 0;
  if (zone.written + extra + reserve > zone.capacity) return false;
  if (zone.footer_ok && !zone.footer.empty() &&
      uint64_t{zone.footer.back().block} * kBlock == a.offset - start) {
    const uint32_t block = zone.footer.back().block;
    zone.footer.back() = entry;
    zone.footer.back().block = block;
  }
  zone.written += extra;
  MarkDirty(a.drive, a.zone);
  return true;
}

ZoneState ZoneManager::StateOf(uint16_t drive, uint32_t zone) const {
  MutexLock lock(&mu_);
  if (drive >= state_.size() || zone >= state_[drive].zones.size()) return ZoneState::kReserved;
  return state_[drive].zones[zone].state;
}

void ZoneManager::AddLive(uint16_t drive, uint32_t zone, int64_t delta) {
  MutexLock lock(&mu_);
  Zone& z = state_[drive].zones[zone];
  z.live = static_cast<uint64_t>(static_cast<int64_t>(z.live) + delta);
  MarkDirty(drive, zone);
}

void ZoneManager::MarkCommitted(uint16_t drive, uint32_t zone, uint64_t committed_wp) {
  MutexLock lock(&mu_);
  Zone& z = state_[drive].zones[zone];
  if (committed_wp > z.committed_wp) z.committed_wp = committed_wp;
  MarkDirty(drive, zone);
}

std::vector<std::pair<ZoneAddress, ZoneMeta>> ZoneManager::TakeDirtyZones() {
  MutexLock lock(&mu_);
  std::vector<std::pair<ZoneAddress, ZoneMeta>> out;
  for (const auto& [addr, unused] : dirty_) {
    const Zone& z = state_[addr.drive].zones[addr.zone];
    ZoneMeta m;
    if (z.state == ZoneState::kOpen || z.state == ZoneState::kSealed) {
      m.stream = static_cast<uint8_t>(z.stream);
      m.live_bytes = z.live;
      m.committed_wp = z.committed_wp;
      m.opened_seq = z.opened_seq;
      m.sealed = z.state == ZoneState::kSealed;
      if (m.sealed) m.footer_at = z.footer_at;
    }
    out.emplace_back(addr, m);
  }
  dirty_.clear();
  return out;
}

struct ZoneManager::AllocationMark::State {
  std::vector<Drive> drives;
  std::array<uint16_t, kNumStreams> next_drive;
  std::map<ZoneAddress, bool> dirty;
  uint64_t borrowed = 0;
  std::vector<OpenedZone> opened;
};

ZoneManager::AllocationMark ZoneManager::MarkAllocations() const {
  MutexLock lock(&mu_);
  auto st = std::make_shared<AllocationMark::State>();
  st->drives = state_;
  st->next_drive = next_drive_;
  st->dirty = dirty_;
  st->borrowed = borrowed_;
  st->opened = opened_;
  AllocationMark m;
  m.state_ = std::move(st);
  return m;
}

Status ZoneManager::RollBack(const AllocationMark& mark) {
  MutexLock lock(&mu_);
  const AllocationMark::State& st = *mark.state_;
  // Zones allocated since the mark were dirty (MarkDirty); they stay dirty, so their
  // restored ZoneMeta is what the next commit persists.
  std::map<ZoneAddress, bool> touched = dirty_;
  state_ = st.drives;
  next_drive_ = st.next_drive;
  borrowed_ = st.borrowed;
  opened_ = st.opened;
  for (const auto& [addr, unused] : st.dirty) touched[addr] = true;
  dirty_ = touched;
  Status first;
  for (uint16_t d = 0; d < state_.size(); ++d) {
    Drive& drive = state_[d];
    auto report = drive.dev->ReportZones(0, 0);
    if (!report.ok()) return report.status();
    for (uint32_t z = 0; z < drive.zones.size(); ++z) {
      Zone& zone = drive.zones[z];
      // CMR zones: the restored software write pointer is where writing resumes; whatever
      // a failed write left past it is overwritten (or, in a zone free again, its head is
      // zeroed so that a walk never finds the failed work's records).
      if (zone.cmr && zone.state == ZoneState::kFree && touched.count({d, z})) {
        Status s = ClearCmrHead(drive.dev, z);
        if (!s.ok() && first.ok()) first = s;
        continue;
      }
      if (zone.state == ZoneState::kReserved || zone.state == ZoneState::kInactive || zone.cmr) {
        continue;
      }
      const ZoneInfo& zi = (*report)[z];
      if (zi.cond == ZoneCondition::kOffline || zi.cond == ZoneCondition::kReadOnly) continue;
      const uint64_t device_written = zi.written_bytes();
      if (zone.state == ZoneState::kFree) {
        if (device_written > 0 || zi.cond != ZoneCondition::kEmpty) {
          Status s = drive.dev->ResetZones(z, 1);  // bytes of the failed work only
          if (!s.ok() && first.ok()) first = s;
          zone.device_cond = ZoneCondition::kEmpty;
        }
        continue;
      }
      // Sealed zones were finished before the mark: nothing was written to them since.
      if (zone.state != ZoneState::kOpen || device_written <= zone.written) continue;
      // A failed write left bytes past the pointer the store will write at: records
      // appended after them could not be found by walking the zone. Seal it there.
      zone.written = device_written;
      zone.footer_ok = false;
      zone.footer.clear();
      zone.state = ZoneState::kSealed;
      for (auto& slot : drive.open) {
        if (slot == z) slot.reset();
      }
      if (zi.cond != ZoneCondition::kFull) {
        Status s = drive.dev->FinishZones(z, 1);
        if (!s.ok() && first.ok()) first = s;
        zone.device_cond = ZoneCondition::kFull;
      }
      MarkDirty(d, z);
    }
  }
  return first;
}

bool ZoneManager::RetireIfFaulted(uint16_t d, uint32_t z, ZoneCondition cond) {
  Zone& zone = state_[d].zones[z];
  const bool faulted = cond == ZoneCondition::kOffline || cond == ZoneCondition::kReadOnly;
  const bool was_faulted = zone.device_cond == ZoneCondition::kOffline ||
                           zone.device_cond == ZoneCondition::kReadOnly;
  if (!faulted || zone.state == ZoneState::kReserved || zone.state == ZoneState::kInactive) {
    return false;
  }
  zone.device_cond = cond;  // read-only may turn offline: stats and fsck follow the drive
  if (was_faulted) return false;
  for (auto& slot : state_[d].open) {
    if (slot == z) slot.reset();
  }
  if (zone.state == ZoneState::kFree) {
    zone.stream = StreamId::kUser;
    zone.live = 0;
    zone.written = 0;
    zone.committed_wp = 0;
  }
  zone.state = ZoneState::kSealed;
  zone.footer_ok = false;
  zone.footer.clear();
  zone.footer_at = 0;
  MarkDirty(d, z);
  return true;
}

Result<std::vector<ZoneAddress>> ZoneManager::RefreshConditions() {
  MutexLock lock(&mu_);
  std::vector<ZoneAddress> retired;
  for (uint16_t d = 0; d < state_.size(); ++d) {
    auto report = state_[d].dev->ReportZones(0, 0);
    if (!report.ok()) return report.status();
    for (uint32_t z = 0; z < state_[d].zones.size(); ++z) {
      if (RetireIfFaulted(d, z, (*report)[z].cond)) retired.push_back({d, z});
    }
  }
  return retired;
}

std::vector<OpenedZone> ZoneManager::TakeOpenedZones() {
  MutexLock lock(&mu_);
  std::vector<OpenedZone> out;
  out.swap(opened_);
  return out;
}

void ZoneManager::SetZoneStream(uint16_t drive, uint32_t zone, StreamId stream,
                                uint64_t opened_seq) {
  MutexLock lock(&mu_);
  Zone& z = state_[drive].zones[zone];
  if (z.state != ZoneState::kOpen && z.state != ZoneState::kSealed) return;
  Drive& d = state_[drive];
  if (z.state == ZoneState::kOpen && z.stream != stream) {
    for (auto& slot : d.open) {
      if (slot == zone) slot.reset();
    }
    z.stream = stream;
    std::optional<uint32_t>& slot = OpenSlot(d, stream);
    if (slot.has_value()) {
      z.state = ZoneState::kSealed;  // the stream has an open zone already
    } else {
      slot = zone;
    }
  }
  z.stream = stream;
  z.opened_seq = opened_seq;
  MarkDirty(drive, zone);
}

std::vector<uint32_t> ZoneManager::ReservedZones(uint16_t drive) const {
  MutexLock lock(&mu_);
  return state_[drive].reserved;
}

std::vector<ZoneStatus> ZoneManager::Snapshot() const {
  MutexLock lock(&mu_);
  return SnapshotLocked();
}

std::vector<ZoneStatus> ZoneManager::Snapshot(uint64_t max_record_bytes,
                                              uint64_t* user_free) const {
  MutexLock lock(&mu_);
  *user_free = UserFreeBytesLocked(max_record_bytes);
  return SnapshotLocked();
}

std::vector<ZoneStatus> ZoneManager::SnapshotLocked() const {
  std::vector<ZoneStatus> out;
  for (uint16_t d = 0; d < state_.size(); ++d) {
    const Drive& drive = state_[d];
    for (uint32_t z = 0; z < drive.zones.size(); ++z) {
      const Zone& zone = drive.zones[z];
      ZoneStatus s;
      s.addr = {d, z};
      s.state = zone.state;
      s.stream = zone.stream;
      s.start = uint64_t{z} * drive.dev->info().zone_size;
      s.capacity = zone.capacity;
      s.written = zone.written;
      s.live_bytes = zone.live;
      s.committed_wp = zone.committed_wp;
      s.opened_seq = zone.opened_seq;
      s.device_cond = zone.device_cond;
      s.cmr = zone.cmr;
      s.journal_pinned = journal_pins_.count({d, z}) != 0;
      s.footer_at = zone.footer_at;
      if (zone.payload_known) s.payload_written = zone.payload;
      if (auto r = RealmOfZone(drive.dev->info(), z)) s.realm = r->realm;
      out.push_back(s);
    }
  }
  return out;
}

std::array<uint64_t, kNumStreams + 1> ZoneManager::LiveBytesByStream() const {
  MutexLock lock(&mu_);
  std::array<uint64_t, kNumStreams + 1> live{};
  for (const Drive& drive : state_) {
    for (const Zone& zone : drive.zones) {
      if (zone.state == ZoneState::kOpen || zone.state == ZoneState::kSealed) {
        live[static_cast<size_t>(zone.stream)] += zone.live;
      }
    }
  }
  return live;
}

std::optional<StreamId> ZoneManager::StreamOf(ZoneAddress addr) const {
  MutexLock lock(&mu_);
  if (addr.drive >= state_.size() || addr.zone >= state_[addr.drive].zones.size()) {
    return std::nullopt;
  }
  const Zone& zone = state_[addr.drive].zones[addr.zone];
  if (zone.state != ZoneState::kOpen && zone.state != ZoneState::kSealed) return std::nullopt;
  return zone.stream;
}

uint64_t ZoneManager::free_bytes() const {
  MutexLock lock(&mu_);
  uint64_t free = 0;
  for (const Drive& drive : state_) {
    for (uint32_t z = 0; z < drive.zones.size(); ++z) {
      const Zone& zone = drive.zones[z];
      if (zone.state == ZoneState::kFree && !InDrainingRealm(drive, z)) free += zone.capacity;
      if (zone.state == ZoneState::kOpen) free += zone.capacity - zone.written;
    }
  }
  return free;
}

uint64_t ZoneManager::user_free_bytes(uint64_t max_record_bytes) const {
  MutexLock lock(&mu_);
  return UserFreeBytesLocked(max_record_bytes);
}

uint64_t ZoneManager::UserFreeBytesLocked(uint64_t max_record_bytes) const {
  uint64_t bytes = 0;
  for (const Drive& drive : state_) {
    uint64_t free_zones = 0;
    for (uint32_t z = 0; z < drive.zones.size(); ++z) {
      const Zone& zone = drive.zones[z];
      if (zone.state == ZoneState::kFree && !InDrainingRealm(drive, z)) ++free_zones;
      if (zone.state == ZoneState::kOpen && IsUserStream(zone.stream)) {
        const uint64_t room = zone.capacity - std::min(zone.capacity, zone.written);
        bytes += room > max_record_bytes ? room - max_record_bytes : 0;
      }
    }
    const uint64_t cap = drive.dev->info().zone_capacity;
    const uint64_t usable = cap > max_record_bytes ? cap - max_record_bytes : 0;
    const uint64_t keep = reserve_ + journal_reserve_;
    if (free_zones > keep) bytes += (free_zones - keep) * usable;
  }
  return bytes;
}

uint64_t ZoneManager::borrowed_allocations() const {
  MutexLock lock(&mu_);
  return borrowed_;
}

uint64_t ZoneManager::data_capacity() const {
  MutexLock lock(&mu_);
  uint64_t total = 0;
  for (const Drive& drive : state_) {
    for (const Zone& zone : drive.zones) {
      if (zone.state != ZoneState::kReserved && zone.state != ZoneState::kInactive) {
        total += zone.capacity;
      }
    }
  }
  return total;
}

uint64_t ZoneManager::dead_on_mount_bytes() const {
  MutexLock lock(&mu_);
  return dead_on_mount_;
}

// ---------------------------------------------------------------------------------------
// Hybrid drives

bool ZoneManager::InDrainingRealm(const Drive& drive, uint32_t z) const {
  if (drive.realms.empty()) return false;
  auto r = RealmOfZone(drive.dev->info(), z);
  if (!r) return false;
  const Realm& realm = drive.realms[r->realm];
  return realm.draining || realm.taken;
}

std::vector<RealmStatus> ZoneManager::Realms() const {
  MutexLock lock(&mu_);
  std::vector<RealmStatus> out;
  for (uint16_t d = 0; d < state_.size(); ++d) {
    const Drive& drive = state_[d];
    const DeviceInfo& info = drive.dev->info();
    for (uint32_t r = 0; r < drive.realms.size(); ++r) {
      RealmStatus rs;
      rs.drive = d;
      rs.realm = r;
      rs.domain = drive.realms[r].domain;
      rs.draining = drive.realms[r].draining;
      rs.taken = drive.realms[r].taken;
      RealmInfo geo = RealmGeometry(info, r);
      geo.domain = rs.domain;
      for (uint32_t z = geo.active_first(); z < geo.active_first() + geo.active_count(); ++z) {
        const Zone& zone = drive.zones[z];
        if (zone.state == ZoneState::kInactive) continue;
        ++rs.zones;
        rs.free_zones += zone.state == ZoneState::kFree;
        rs.capacity += zone.capacity;
        if (zone.state == ZoneState::kOpen || zone.state == ZoneState::kSealed) {
          rs.written += zone.written;
          rs.live_bytes += zone.live;
          rs.has_journal |= zone.stream == StreamId::kJournal || journal_pins_.count({d, z}) != 0;
        }
        rs.faulted |= zone.device_cond == ZoneCondition::kOffline ||
                      zone.device_cond == ZoneCondition::kReadOnly;
      }
      out.push_back(rs);
    }
  }
  return out;
}

Status ZoneManager::BeginDrain(uint16_t d, uint32_t realm, std::vector<SealWrite>* seals) {
  MutexLock lock(&mu_);
  if (d >= state_.size() || realm >= state_[d].realms.size()) {
    return Status::InvalidArgument("drive " + std::to_string(d) + " has no realm " +
                                   std::to_string(realm));
  }
  Drive& drive = state_[d];
  Realm& r = drive.realms[realm];
  if (r.taken) {
    return Status::InvalidArgument("realm " + std::to_string(realm) + " of drive " +
                                   std::to_string(d) + " is being converted");
  }
  r.draining = true;
  for (auto& slot : drive.open) {
    if (slot && InDrainingRealm(drive, *slot)) Seal(d, *slot, seals);
  }
  return Status::OK();
}

void ZoneManager::CancelDrain(uint16_t d, uint32_t realm) {
  MutexLock lock(&mu_);
  if (d < state_.size() && realm < state_[d].realms.size()) state_[d].realms[realm].draining = false;
}

Status ZoneManager::TakeRealm(uint16_t d, uint32_t realm) {
  MutexLock lock(&mu_);
  if (d >= state_.size() || realm >= state_[d].realms.size() ||
      !state_[d].realms[realm].draining) {
    return Status::InvalidArgument("realm " + std::to_string(realm) + " of drive " +
                                   std::to_string(d) + " is not draining");
  }
  Drive& drive = state_[d];
  RealmInfo geo = RealmGeometry(drive.dev->info(), realm);
  geo.domain = drive.realms[realm].domain;
  const uint32_t first = geo.active_first(), end = first + geo.active_count();
  for (uint32_t z = first; z < end; ++z) {
    if (drive.zones[z].state != ZoneState::kFree) {
      return Status::Busy("realm " + std::to_string(realm) + " of drive " + std::to_string(d) +
                          ": zone " + std::to_string(z) + " is " +
                          ZoneStateName(drive.zones[z].state) + ", not free");
    }
  }
  for (uint32_t z = first; z < end; ++z) {
    Zone& zone = drive.zones[z];
    const bool cmr = zone.cmr;
    zone = Zone{};
    zone.cmr = cmr;
    zone.state = ZoneState::kInactive;
    zone.device_cond = ZoneCondition::kInactive;
    MarkDirty(d, z);
  }
  drive.realms[realm].draining = false;
  drive.realms[realm].taken = true;
  return Status::OK();
}

void ZoneManager::ApplyRealm(Drive& drive, uint32_t realm, const std::vector<ZoneInfo>& report) {
  const RealmInfo geo = RealmGeometry(drive.dev->info(), realm);
  auto apply = [&](uint32_t first, uint32_t count, bool cmr) SMR_REQUIRES(mu_) {
    for (uint32_t z = first; z < first + count; ++z) {
      const ZoneInfo& zi = report[z];
      Zone& zone = drive.zones[z];
      zone = Zone{};
      zone.cmr = cmr;
      zone.capacity = zi.capacity;
      zone.device_cond = zi.cond;
      zone.state = zi.cond == ZoneCondition::kInactive ? ZoneState::kInactive : ZoneState::kFree;
    }
  };
  apply(geo.cmr_first, geo.cmr_count, true);
  apply(geo.smr_first, geo.smr_count, false);
}

Status ZoneManager::RefreshRealm(uint16_t d, uint32_t realm) {
  MutexLock lock(&mu_);
  if (d >= state_.size() || realm >= state_[d].realms.size() || !state_[d].realms[realm].taken) {
    return Status::Busy("realm " + std::to_string(realm) + " of drive " + std::to_string(d) +
                        " was not taken for conversion");
  }
  Drive& drive = state_[d];
  SMR_ASSIGN_OR_RETURN(auto realms, drive.dev->ReportRealms(realm, 1));
  SMR_ASSIGN_OR_RETURN(auto report, drive.dev->ReportZones(0, 0));
  ApplyRealm(drive, realm, report);
  drive.realms[realm] = Realm{};
  drive.realms[realm].domain = realms.at(0).domain;
  const RealmInfo geo = RealmGeometry(drive.dev->info(), realm);
  for (uint32_t z = geo.cmr_first; z < geo.cmr_first + geo.cmr_count; ++z) MarkDirty(d, z);
  for (uint32_t z = geo.smr_first; z < geo.smr_first + geo.smr_count; ++z) MarkDirty(d, z);
  return Status::OK();
}

Status ZoneManager::ResetZone(uint16_t d, uint32_t zone) {
  bool cmr;
  {
    MutexLock lock(&mu_);
    cmr = state_[d].zones[zone].cmr;
  }
  return cmr ? ClearCmrHead(drives_[d], zone) : drives_[d]->ResetZones(zone, 1);
}

Status ZoneManager::ClearCmrHead(ZonedDevice* dev, uint32_t zone) {
  static const std::string kZeros(kBlock, '\0');
  const uint64_t start = uint64_t{zone} * dev->info().zone_size;
  return dev->Write(start, kZeros.data(), kZeros.size())
      .WithContext("zeroing the first block of CMR zone " + std::to_string(zone));
}

Status ZoneManager::FinishZone(uint16_t d, uint32_t zone) {
  {
    MutexLock lock(&mu_);
    if (state_[d].zones[zone].cmr) return Status::OK();
  }
  return drives_[d]->FinishZones(zone, 1);
}

}  // namespace smr
