#include "device/fault_injection_device.h"

#include <algorithm>
#include <random>

namespace smr {

FaultInjectionDevice::FaultInjectionDevice(std::unique_ptr<ZonedDevice> base)
    : base_(std::move(base)) {}

FaultInjectionDevice::~FaultInjectionDevice() = default;

bool FaultInjectionDevice::Tick(Trigger* t) {
  if (t->firing) return true;
  if (t->countdown == 0) return false;
  if (--t->countdown > 0) return false;
  if (t->sticky) t->firing = true;
  return true;
}

void FaultInjectionDevice::FailNthRead(uint64_t n, bool sticky) {
  MutexLock lock(&mu_);
  read_fail_ = Trigger{n, sticky, false};
}

void FaultInjectionDevice::FailNthWrite(uint64_t n, bool sticky) {
  MutexLock lock(&mu_);
  write_fail_ = Trigger{n, sticky, false};
}

void FaultInjectionDevice::FailNthActivate(uint64_t n, bool sticky) {
  MutexLock lock(&mu_);
  activate_fail_ = Trigger{n, sticky, false};
}

void FaultInjectionDevice::CorruptReads(uint64_t offset, uint64_t len) {
  MutexLock lock(&mu_);
  corrupt_.emplace_back(offset, len);
}

void FaultInjectionDevice::SetZoneFault(uint32_t zone, ZoneCondition cond) {
  MutexLock lock(&mu_);
  zone_faults_[zone] = cond;
}

void FaultInjectionDevice::ClearZoneFault(uint32_t zone) {
  MutexLock lock(&mu_);
  zone_faults_.erase(zone);
}

void FaultInjectionDevice::ClearFaults() {
  MutexLock lock(&mu_);
  read_fail_ = Trigger{};
  write_fail_ = Trigger{};
  activate_fail_ = Trigger{};
  corrupt_.clear();
  zone_faults_.clear();
  powered_off_ = false;
}

void FaultInjectionDevice::PowerOff() {
  MutexLock lock(&mu_);
  powered_off_ = true;
}

uint64_t FaultInjectionDevice::injected_errors() const {
  MutexLock lock(&mu_);
  return injected_errors_;
}

uint64_t FaultInjectionDevice::writes() const {
  MutexLock lock(&mu_);
  return writes_;
}

uint64_t FaultInjectionDevice::reads() const {
  MutexLock lock(&mu_);
  return reads_;
}

uint64_t FaultInjectionDevice::zones_reset() const {
  MutexLock lock(&mu_);
  return zones_reset_;
}

uint64_t FaultInjectionDevice::unflushed_bytes() const {
  MutexLock lock(&mu_);
  return unflushed_;
}

Status FaultInjectionDevice::CheckZoneFaults(uint64_t offset, size_t len, bool write) const {
  if (zone_faults_.empty()) return Status::OK();
  const uint64_t zs = info().zone_size;
  for (uint64_t z = offset / zs; z <= (offset + len - 1) / zs; ++z) {
    auto it = zone_faults_.find(static_cast<uint32_t>(z));
    if (it == zone_faults_.end()) continue;
    if (it->second == ZoneCondition::kOffline || write) {
      return Status::IOError(std::string(write ? "write" : "read") + ": zone " +
                             std::to_string(z) + " is " + ZoneConditionName(it->second));
    }
  }
  return Status::OK();
}

Result<std::vector<ZoneInfo>> FaultInjectionDevice::ReportZones(uint32_t first, uint32_t count) {
  auto zones = base_->ReportZones(first, count);
  if (!zones.ok()) return zones;
  MutexLock lock(&mu_);
  for (ZoneInfo& zi : *zones) {
    auto it = zone_faults_.find(static_cast<uint32_t>(zi.start / info().zone_size));
    if (it != zone_faults_.end()) zi.cond = it->second;
  }
  return zones;
}

Status FaultInjectionDevice::ZoneOp(uint32_t first, uint32_t count, const char* op,
                                    Status (ZonedDevice::*fn)(uint32_t, uint32_t)) {
  SMR_RETURN_IF_ERROR(CheckZoneRange(info(), first, count, op));
  MutexLock lock(&mu_);
  if (powered_off_) return Status::IOError(std::string(op) + ": the drive is off (power cut)");
  for (uint32_t z = first; z < first + count; ++z) {
    auto it = zone_faults_.find(z);
    if (it != zone_faults_.end()) {
      return Status::IOError(std::string(op) + ": zone " + std::to_string(z) + " is " +
                             ZoneConditionName(it->second));
    }
  }
  Status s = (base_.get()->*fn)(first, count);
  // Zone operations are durable once complete: the zone's current state is the new floor.
  for (uint32_t z = first; z < first + count; ++z) durable_wp_.erase(z);
  return s;
}

Status FaultInjectionDevice::OpenZones(uint32_t first, uint32_t count) {
  return ZoneOp(first, count, "open zones", &ZonedDevice::OpenZones);
}
Status FaultInjectionDevice::CloseZones(uint32_t first, uint32_t count) {
  return ZoneOp(first, count, "close zones", &ZonedDevice::CloseZones);
}
Status FaultInjectionDevice::FinishZones(uint32_t first, uint32_t count) {
  return ZoneOp(first, count, "finish zones", &ZonedDevice::FinishZones);
}
Status FaultInjectionDevice::ResetZones(uint32_t first, uint32_t count) {
  NoteReset(first, count);
  {
    MutexLock lock(&mu_);
    zones_reset_ += count;
  }
  return ZoneOp(first, count, "reset zones", &ZonedDevice::ResetZones);
}

void FaultInjectionDevice::PauseNextRead(uint64_t offset, uint64_t len) {
  MutexLock lock(&pause_mu_);
  pause_.armed = true;
  pause_.offset = offset;
  pause_.len = len;
}

uint64_t FaultInjectionDevice::WaitForPausedRead() {
  MutexUniqueLock lock(&pause_mu_);
  while (!pause_.holding) pause_cv_.Wait(&lock);
  return pause_.held_offset;
}

void FaultInjectionDevice::ResumePausedRead() {
  MutexLock lock(&pause_mu_);
  pause_.armed = false;
  pause_.holding = false;
  pause_cv_.NotifyAll();
}

uint64_t FaultInjectionDevice::resets_under_paused_read() const {
  MutexLock lock(&pause_mu_);
  return pause_.resets_under;
}

void FaultInjectionDevice::HoldIfPaused(uint64_t offset, size_t len) {
  MutexUniqueLock lock(&pause_mu_);
  if (!pause_.armed || offset >= pause_.offset + pause_.len || offset + len <= pause_.offset) {
    return;
  }
  pause_.armed = false;
  pause_.holding = true;
  pause_.held_offset = offset;
  pause_cv_.NotifyAll();
  while (pause_.holding) pause_cv_.Wait(&lock);
}

void FaultInjectionDevice::NoteReset(uint32_t first, uint32_t count) {
  MutexLock lock(&pause_mu_);
  if (!pause_.holding) return;
  const uint64_t zone = pause_.held_offset / info().zone_size;
  if (zone >= first && zone < uint64_t{first} + count) ++pause_.resets_under;
}

Status FaultInjectionDevice::Read(uint64_t offset, void* buf, size_t len) {
  SMR_RETURN_IF_ERROR(CheckIoRange(info(), offset, len, "read"));
  HoldIfPaused(offset, len);
  std::vector<std::pair<uint64_t, uint64_t>> corrupt;
  {
    MutexLock lock(&mu_);
    ++reads_;
    SMR_RETURN_IF_ERROR(CheckZoneFaults(offset, len, /*write=*/false));
    if (Tick(&read_fail_)) {
      ++injected_errors_;
      return Status::IOError("read at " + std::to_string(offset) + ": injected media error");
    }
    corrupt = corrupt_;
  }
  SMR_RETURN_IF_ERROR(base_->Read(offset, buf, len));
  const uint64_t lbs = info().logical_block_size;
  auto* p = static_cast<unsigned char*>(buf);
  for (const auto& [coff, clen] : corrupt) {
    const uint64_t lo = std::max(offset, coff);
    const uint64_t hi = std::min(offset + len, coff + clen);
    if (lo >= hi) continue;
    // One flipped bit in every logical block that overlaps the corrupt range.
    for (uint64_t b = lo / lbs * lbs; b < hi; b += lbs) {
      p[std::max(b, lo) - offset] ^= 0x10;
    }
  }
  return Status::OK();
}

Status FaultInjectionDevice::Write(uint64_t offset, const void* buf, size_t len) {
  SMR_RETURN_IF_ERROR(CheckIoRange(info(), offset, len, "write"));
  const uint32_t zone = ZoneIndexOf(offset);
  const bool conventional = IsConventional(zone);
  MutexLock lock(&mu_);
  ++writes_;
  if (powered_off_) {
    return Status::IOError("write at " + std::to_string(offset) + ": the drive is off (power cut)");
  }
  SMR_RETURN_IF_ERROR(CheckZoneFaults(offset, len, /*write=*/true));
  if (Tick(&write_fail_)) {
    ++injected_errors_;
    return Status::IOError("write at " + std::to_string(offset) + ": injected media error");
  }
  // Remember what a power cut would have to undo, before the write happens.
  std::vector<char> old;
  if (conventional) {
    old.resize(len);
    SMR_RETURN_IF_ERROR(base_->Read(offset, old.data(), len));
  }
  bool new_entry = false;
  if (!conventional && durable_wp_.count(zone) == 0) {
    auto zi = base_->ReportZones(zone, 1);
    if (!zi.ok()) return zi.status();
    durable_wp_[zone] = (*zi)[0].wp;
    new_entry = true;
  }
  Status s = base_->Write(offset, buf, len);
  if (!s.ok()) {
    if (new_entry) durable_wp_.erase(zone);
    return s;
  }
  if (conventional) conv_undo_.push_back(ConvUndo{offset, std::move(old)});
  unflushed_ += len;
  return Status::OK();
}

Status FaultInjectionDevice::Flush() {
  MutexLock lock(&mu_);
  if (powered_off_) return Status::IOError("flush: the drive is off (power cut)");
  SMR_RETURN_IF_ERROR(base_->Flush());
  durable_wp_.clear();
  conv_undo_.clear();
  unflushed_ = 0;
  return Status::OK();
}

bool FaultInjectionDevice::IsConventional(uint32_t zone) const {
  if (zone < info().nr_conventional) return true;
  auto realm = RealmOfZone(info(), zone);
  return realm && realm->domain == ZoneDomain::kCmr;
}

Result<std::vector<RealmInfo>> FaultInjectionDevice::ReportRealms(uint32_t first,
                                                                  uint32_t count) {
  return base_->ReportRealms(first, count);
}

Status FaultInjectionDevice::ActivateRealms(uint32_t first, uint32_t count, ZoneDomain domain) {
  SMR_RETURN_IF_ERROR(CheckRealmRange(info(), first, count, "activate realms"));
  SMR_ASSIGN_OR_RETURN(std::vector<RealmInfo> before, base_->ReportRealms(first, count));
  {
    MutexLock lock(&mu_);
    for (const RealmInfo& r : before) {
      if (r.domain == domain) continue;  // left as it is
      for (const auto& [zone, cond] : zone_faults_) {
        const bool in_cmr = zone >= r.cmr_first && zone < r.cmr_first + r.cmr_count;
        const bool in_smr = zone >= r.smr_first && zone < r.smr_first + r.smr_count;
        if (!in_cmr && !in_smr) continue;
        return Status::IOError(info().path + ": activate realms: realm " +
                               std::to_string(r.realm) + ": zone " + std::to_string(zone) +
                               " is " + ZoneConditionName(cond));
      }
    }
    if (powered_off_) {
      return Status::IOError(info().path + ": activate realms: the drive is off (power cut)");
    }
    if (Tick(&activate_fail_)) {
      ++injected_errors_;
      return Status::IOError(info().path + ": activate realms [" + std::to_string(first) +
                             ", +" + std::to_string(count) + "): injected failure");
    }
  }
  // Not under mu_: a conversion takes its time, and I/O to other realms goes on meanwhile.
  Status s = base_->ActivateRealms(first, count, domain);
  // Realms converted (all of them, or those before a failure part-way) lose their
  // unflushed-write log: the conversion is durable and destroyed the old domain's data.
  auto after = base_->ReportRealms(first, count);
  if (!after.ok()) return s.ok() ? after.status() : s;
  MutexLock lock(&mu_);
  for (size_t i = 0; i < before.size() && i < after->size(); ++i) {
    if (before[i].domain != (*after)[i].domain) DropUnflushedOfRealm(before[i].realm);
  }
  return s;
}

void FaultInjectionDevice::DropUnflushedOfRealm(uint32_t realm) {
  const RealmInfo g = RealmGeometry(info(), realm);
  for (uint32_t z = g.smr_first; z < g.smr_first + g.smr_count; ++z) durable_wp_.erase(z);
  // Cut the CMR zones' byte range out of the conventional undo log, keeping the rest of
  // each write (a write may span a permanent conventional zone or another realm too).
  const uint64_t lo = ZoneStart(g.cmr_first);
  const uint64_t hi = ZoneStart(g.cmr_first + g.cmr_count);
  std::vector<ConvUndo> kept;
  for (ConvUndo& u : conv_undo_) {
    const uint64_t end = u.offset + u.old_bytes.size();
    if (end <= lo || u.offset >= hi) {
      kept.push_back(std::move(u));
      continue;
    }
    if (u.offset < lo) {
      kept.push_back(ConvUndo{u.offset, std::vector<char>(u.old_bytes.begin(),
                                                          u.old_bytes.begin() + (lo - u.offset))});
    }
    if (end > hi) {
      kept.push_back(ConvUndo{hi, std::vector<char>(u.old_bytes.begin() + (hi - u.offset),
                                                    u.old_bytes.end())});
    }
    const uint64_t dropped = std::min(end, hi) - std::max(u.offset, lo);
    unflushed_ -= std::min(unflushed_, dropped);
  }
  conv_undo_ = std::move(kept);
}

Status FaultInjectionDevice::RollBackSequential(uint32_t zone, uint64_t keep_wp) {
  const uint64_t start = ZoneStart(zone);
  std::vector<char> keep(keep_wp - start);
  if (!keep.empty()) SMR_RETURN_IF_ERROR(base_->Read(start, keep.data(), keep.size()));
  SMR_RETURN_IF_ERROR(base_->ResetZones(zone, 1));
  if (!keep.empty()) SMR_RETURN_IF_ERROR(base_->Write(start, keep.data(), keep.size()));
  return Status::OK();
}

Status FaultInjectionDevice::PowerCut(PowerCutMode mode, uint64_t seed) {
  MutexLock lock(&mu_);
  std::mt19937_64 rng(seed);
  const uint64_t lbs = info().logical_block_size;
  // Conventional zones: undo newest first, so each range ends with its pre-flush bytes.
  for (auto it = conv_undo_.rbegin(); it != conv_undo_.rend(); ++it) {
    uint64_t keep_blocks = 0;
    if (mode == PowerCutMode::kTornUnflushed) {
      keep_blocks = rng() % (it->old_bytes.size() / lbs + 1);
    }
    const uint64_t skip = keep_blocks * lbs;
    if (skip == it->old_bytes.size()) continue;
    SMR_RETURN_IF_ERROR(base_->Write(it->offset + skip, it->old_bytes.data() + skip,
                                     it->old_bytes.size() - skip));
  }
  conv_undo_.clear();
  for (const auto& [zone, durable] : durable_wp_) {
    auto zi = base_->ReportZones(zone, 1);
    if (!zi.ok()) return zi.status();
    // A zone filled since the flush reports wp = end; what was written ends at capacity.
    const ZoneInfo& z = (*zi)[0];
    const uint64_t written_end = z.cond == ZoneCondition::kFull ? z.start + z.capacity : z.wp;
    if (written_end <= durable) continue;
    uint64_t keep = durable;
    if (mode == PowerCutMode::kTornUnflushed) {
      keep += rng() % ((written_end - durable) / lbs + 1) * lbs;
    }
    if (keep == written_end) continue;
    SMR_RETURN_IF_ERROR(RollBackSequential(zone, keep));
  }
  durable_wp_.clear();
  unflushed_ = 0;
  // A power cycle closes every open zone.
  auto zones = base_->ReportZones(0, 0);
  if (!zones.ok()) return zones.status();
  for (uint32_t z = 0; z < zones->size(); ++z) {
    if ((*zones)[z].is_open()) SMR_RETURN_IF_ERROR(base_->CloseZones(z, 1));
  }
  return base_->Flush();
}

}  // namespace smr
