#include "device/emulated_zoned_device.h"

#include <climits>
#include <sys/uio.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "device/emulated_format.h"

namespace smr {

namespace {

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

uint64_t RoundUp(uint64_t v, uint64_t align) { return (v + align - 1) / align * align; }

// cachestat(2) (Linux 6.5), not in every libc's headers yet: the same number on every
// architecture.
constexpr long kSysCachestat = 451;
struct CachestatRange {
  uint64_t off = 0;
  uint64_t len = 0;  // 0: to the end of the file
};
struct Cachestat {
  uint64_t nr_cache = 0;
  uint64_t nr_dirty = 0;
  uint64_t nr_writeback = 0;
  uint64_t nr_evicted = 0;
  uint64_t nr_recently_evicted = 0;
};

ZoneDomain Other(ZoneDomain d) {
  return d == ZoneDomain::kCmr ? ZoneDomain::kSmr : ZoneDomain::kCmr;
}

}  // namespace

Status EmulatedGeometry::NormalizeHybrid() {
  if (cmr_zones_per_realm == 0 || smr_zones_per_realm < cmr_zones_per_realm) {
    return Status::InvalidArgument(
        "hybrid drive: " + std::to_string(cmr_zones_per_realm) + " CMR and " +
        std::to_string(smr_zones_per_realm) +
        " SMR zones per realm; SMR must hold at least as many zones as CMR, CMR at least 1");
  }
  if (initial_domain != ZoneDomain::kCmr && initial_domain != ZoneDomain::kSmr) {
    return Status::InvalidArgument("hybrid drive: unknown initial domain");
  }
  if (conversion_ms > emufmt::kMaxConversionMs) {
    return Status::InvalidArgument("hybrid drive: conversion time " +
                                   std::to_string(conversion_ms) + " ms exceeds " +
                                   std::to_string(emufmt::kMaxConversionMs) + " ms");
  }
  if (nr_conventional == kDefaultConventional) nr_conventional = 2;
  if (nr_conventional < 2) {
    return Status::InvalidArgument("hybrid drive: " + std::to_string(nr_conventional) +
                                   " conventional zones; at least 2 are needed (the store "
                                   "keeps its superblock log there)");
  }
  const uint64_t derived =
      uint64_t{nr_conventional} +
      uint64_t{nr_realms} * (uint64_t{cmr_zones_per_realm} + smr_zones_per_realm);
  if (derived >= kDefaultZones) {
    return Status::InvalidArgument("hybrid drive: " + std::to_string(nr_realms) +
                                   " realms make too many zones");
  }
  if (nr_zones == kDefaultZones) {
    nr_zones = static_cast<uint32_t>(derived);
  } else if (nr_zones != derived) {
    return Status::InvalidArgument(
        "hybrid drive: " + std::to_string(nr_zones) + " zones given, but " +
        std::to_string(nr_conventional) + " conventional + " + std::to_string(nr_realms) +
        " realms x (" + std::to_string(cmr_zones_per_realm) + " CMR + " +
        std::to_string(smr_zones_per_realm) + " SMR) make " + std::to_string(derived) +
        " (leave the zone count out)");
  }
  return Status::OK();
}

Status EmulatedGeometry::Normalize() {
  if (logical_block_size != 512 && logical_block_size != 4096) {
    return Status::InvalidArgument("logical block size must be 512 or 4096, not " +
                                   std::to_string(logical_block_size));
  }
  if (hybrid()) {
    SMR_RETURN_IF_ERROR(NormalizeHybrid());
  } else if (nr_zones == kDefaultZones) {
    nr_zones = 64;
  }
  if (nr_zones == 0) return Status::InvalidArgument("a drive needs at least one zone");
  if (zone_size == 0 || zone_size % logical_block_size != 0 || !IsPowerOfTwo(zone_size)) {
    return Status::InvalidArgument("zone size " + std::to_string(zone_size) +
                                   " must be a power of two and a multiple of the block size");
  }
  if (zone_capacity == 0) zone_capacity = zone_size;
  if (zone_capacity > zone_size || zone_capacity % logical_block_size != 0) {
    return Status::InvalidArgument("zone capacity " + std::to_string(zone_capacity) +
                                   " must be block-aligned and at most the zone size " +
                                   std::to_string(zone_size));
  }
  if (nr_conventional == kDefaultConventional) nr_conventional = (nr_zones + 99) / 100;
  if (nr_conventional >= nr_zones) {
    return Status::InvalidArgument(std::to_string(nr_conventional) +
                                   " conventional zones leave no sequential zone among " +
                                   std::to_string(nr_zones));
  }
  if (max_active_zones != 0 && max_open_zones > max_active_zones) {
    return Status::InvalidArgument("max open zones " + std::to_string(max_open_zones) +
                                   " exceeds max active zones " +
                                   std::to_string(max_active_zones));
  }
  if (static_cast<uint64_t>(nr_zones) * zone_size / zone_size != nr_zones) {
    return Status::InvalidArgument("drive size overflows");
  }
  return Status::OK();
}

EmulatedZonedDevice::EmulatedZonedDevice(std::string path, int fd, EmulatedGeometry geometry,
                                         TimingModel timing)
    : path_(std::move(path)), fd_(fd), geometry_(geometry), timing_(timing) {
  info_.path = path_;
  info_.model_name = "smrstore-emulated";
  info_.rotational = timing_.enabled();
  info_.model = ZonedModel::kHostManaged;
  info_.nr_zones = geometry_.nr_zones;
  info_.zone_size = geometry_.zone_size;
  info_.zone_capacity = geometry_.zone_capacity;
  info_.nr_conventional = geometry_.nr_conventional;
  info_.logical_block_size = geometry_.logical_block_size;
  info_.physical_block_size = 4096;
  info_.max_open_zones = geometry_.max_open_zones;
  info_.max_active_zones = geometry_.max_active_zones;
  if (geometry_.hybrid()) {
    info_.nr_realms = geometry_.nr_realms;
    info_.cmr_zones_per_realm = geometry_.cmr_zones_per_realm;
    info_.smr_zones_per_realm = geometry_.smr_zones_per_realm;
    info_.cmr_first_zone = geometry_.nr_conventional;
    info_.smr_first_zone =
        geometry_.nr_conventional + geometry_.nr_realms * geometry_.cmr_zones_per_realm;
    info_.conversion_ms = geometry_.conversion_ms;
    realm_offset_ = emufmt::RealmTableOffsetFor(geometry_.nr_zones);
  }
  state_offset_ = emufmt::kSlotTableOffset;
  data_offset_ =
      emufmt::DataOffsetFor(geometry_.nr_zones, geometry_.hybrid() ? geometry_.nr_realms : 0);
  if (timing_.enabled()) head_ = std::make_unique<HeadModel>(timing_.seq_mbps, timing_.seek_ms);
}

EmulatedZonedDevice::~EmulatedZonedDevice() {
  if (dio_fd_ >= 0) ::close(dio_fd_);
  ::close(fd_);
}

Status EmulatedZonedDevice::OpenDirect() {
  struct statx stx {};
  dio_off_align_ = geometry_.logical_block_size;  // unknown alignment: the drive's own
  dio_mem_align_ = 4096;
  if (::statx(fd_, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
      (stx.stx_mask & STATX_DIOALIGN) != 0) {
    if (stx.stx_dio_offset_align == 0) {
      return Status::NotSupported(path_ + ": direct=1: the file system takes no O_DIRECT "
                                  "for this file (leave direct out)");
    }
    if (geometry_.logical_block_size % stx.stx_dio_offset_align != 0) {
      return Status::InvalidArgument(
          path_ + ": direct=1: the file system needs O_DIRECT offsets aligned to " +
          std::to_string(stx.stx_dio_offset_align) + " bytes, the drive's logical block is " +
          std::to_string(geometry_.logical_block_size));
    }
    dio_off_align_ = stx.stx_dio_offset_align;
    dio_mem_align_ = std::max<uint32_t>(stx.stx_dio_mem_align, 1);
  }
  const int fd = ::open(path_.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == EINVAL) {
      return Status::NotSupported(path_ + ": direct=1: the file system takes no O_DIRECT "
                                  "(leave direct out)");
    }
    return Status::FromErrno(err, path_ + ": cannot open for direct writes");
  }
  dio_fd_ = fd;
  return Status::OK();
}

std::optional<HeadModel::Stats> EmulatedZonedDevice::HeadStats() const {
  if (!head_) return std::nullopt;
  return head_->stats();
}

ZonedDevice::HostCacheUse EmulatedZonedDevice::HostCache() const {
  HostCacheUse use;
  use.mode = dio_fd_ >= 0 ? "direct" : "buffered";
  CachestatRange range;
  Cachestat cs;
  if (::syscall(kSysCachestat, fd_, &range, &cs, 0) == 0) {
    const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    use.measured = true;
    use.cached_bytes = cs.nr_cache * page;
    use.dirty_bytes = cs.nr_dirty * page;
    use.writeback_bytes = cs.nr_writeback * page;
  }
  return use;
}

Result<std::unique_ptr<EmulatedZonedDevice>> EmulatedZonedDevice::Create(
    const std::string& path, EmulatedGeometry geometry, TimingModel timing) {
  SMR_RETURN_IF_ERROR(geometry.Normalize());
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    return Status::AlreadyExists(path + ": already exists (not overwriting it)");
  }
  // Build the file under a temporary name, then link() it into place: link fails if the
  // name appeared meanwhile, and a crash leaves at most the temporary file.
  std::string tmp = path + ".creating.XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return Status::FromErrno(errno, path + ": cannot create");
  auto fail = [&](Status s) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  };
  emufmt::Superblock sb;
  sb.nr_zones = geometry.nr_zones;
  sb.zone_size = geometry.zone_size;
  sb.zone_capacity = geometry.zone_capacity;
  sb.nr_conventional = geometry.nr_conventional;
  sb.logical_block_size = geometry.logical_block_size;
  sb.max_open_zones = geometry.max_open_zones;
  sb.max_active_zones = geometry.max_active_zones;
  if (geometry.hybrid()) {
    sb.nr_realms = geometry.nr_realms;
    sb.cmr_zones_per_realm = geometry.cmr_zones_per_realm;
    sb.smr_zones_per_realm = geometry.smr_zones_per_realm;
    sb.conversion_ms = geometry.conversion_ms;
    sb.initial_domain = geometry.initial_domain;
    sb.realm_table_offset = emufmt::RealmTableOffsetFor(geometry.nr_zones);
  }
  sb.data_offset = emufmt::DataOffsetFor(geometry.nr_zones, sb.nr_realms);
  std::string block(emufmt::kSuperblockSize, '\0');
  emufmt::EncodeSuperblock(sb, block.data());
  const uint64_t file_size = sb.data_offset + uint64_t{sb.nr_zones} * sb.zone_size;
  if (::ftruncate(fd, static_cast<off_t>(file_size)) != 0) {
    return fail(Status::FromErrno(errno, path + ": cannot size the drive file"));
  }
  if (::pwrite(fd, block.data(), block.size(), 0) != static_cast<ssize_t>(block.size()) ||
      ::fsync(fd) != 0) {
    return fail(Status::FromErrno(errno, path + ": cannot write the superblock"));
  }
  if (::link(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    return fail(err == EEXIST ? Status::AlreadyExists(path + ": already exists")
                              : Status::FromErrno(err, path + ": cannot create"));
  }
  ::unlink(tmp.c_str());
  ::close(fd);
  return Open(path, timing);
}

Result<std::unique_ptr<EmulatedZonedDevice>> EmulatedZonedDevice::Open(const std::string& path,
                                                                       TimingModel timing) {
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return Status::NotFound(path + ": no such emulated drive");
    return Status::FromErrno(err, path + ": cannot open");
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(path + ": an emulated drive is a regular file");
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) return Status::Busy(path + ": drive is in use by another opener");
    return Status::FromErrno(err, path + ": cannot lock");
  }
  std::string block(emufmt::kSuperblockSize, '\0');
  ssize_t n = ::pread(fd, block.data(), block.size(), 0);
  if (n != static_cast<ssize_t>(block.size())) {
    ::close(fd);
    return Status::Corruption(path + ": too short to be an smrstore emulated drive");
  }
  auto sb = emufmt::DecodeSuperblock(block.data());
  if (!sb.ok()) {
    ::close(fd);
    return sb.status().WithContext(path);
  }
  EmulatedGeometry g;
  g.nr_zones = sb->nr_zones;
  g.zone_size = sb->zone_size;
  g.zone_capacity = sb->zone_capacity;
  g.nr_conventional = sb->nr_conventional;
  g.logical_block_size = sb->logical_block_size;
  g.max_open_zones = sb->max_open_zones;
  g.max_active_zones = sb->max_active_zones;
  if (sb->nr_realms > 0) {
    g.nr_realms = sb->nr_realms;
    g.cmr_zones_per_realm = sb->cmr_zones_per_realm;
    g.smr_zones_per_realm = sb->smr_zones_per_realm;
    g.conversion_ms = sb->conversion_ms;
    g.initial_domain = sb->initial_domain;
  }
  if (static_cast<uint64_t>(st.st_size) < sb->data_offset + g.nr_zones * g.zone_size) {
    ::close(fd);
    return Status::Corruption(path + ": drive file is shorter than its geometry");
  }
  std::unique_ptr<EmulatedZonedDevice> dev(new EmulatedZonedDevice(path, fd, g, timing));
  if (timing.direct_writes) SMR_RETURN_IF_ERROR(dev->OpenDirect());
  SMR_RETURN_IF_ERROR(dev->LoadState());
  return dev;
}

Status EmulatedZonedDevice::LoadState() {
  const uint32_t nz = geometry_.nr_zones;
  std::string table(nz * emufmt::kSlotsPerZone * emufmt::kSlotSize, '\0');
  SMR_RETURN_IF_ERROR(PreadFull(state_offset_, table.data(), table.size()));
  MutexLock lock(&mu_);
  zones_ = std::make_unique<ZoneStateMachine>(info_);
  slots_.assign(nz, SlotCursor{});
  if (info_.hybrid()) SMR_RETURN_IF_ERROR(LoadRealms());
  for (uint32_t z = geometry_.nr_conventional; z < nz; ++z) {
    if (zones_->is_conventional(z)) continue;  // the CMR domain of a hybrid drive
    std::optional<emufmt::Slot> best;
    uint8_t best_index = 0;
    for (uint8_t s = 0; s < emufmt::kSlotsPerZone; ++s) {
      const char* src = table.data() + (z * emufmt::kSlotsPerZone + s) * emufmt::kSlotSize;
      auto slot = emufmt::DecodeSlot(src, z);
      if (slot && (!best || slot->seq > best->seq)) {
        best = slot;
        best_index = s;
      }
    }
    if (!best) continue;  // never written: empty
    slots_[z].seq = best->seq;
    slots_[z].next_slot = static_cast<uint8_t>(1 - best_index);
    // An inactive zone is empty whatever its last slot says (the slots are rewritten empty
    // before its domain becomes active again).
    if (zones_->is_inactive(z)) continue;
    // The drive outlives the process that opened it: open zones stay open (only a power
    // cycle, FaultInjectionDevice::PowerCut, closes them).
    SMR_RETURN_IF_ERROR(zones_->Restore(z, best->wp, best->cond).WithContext(path_));
  }
  return Status::OK();
}

Status EmulatedZonedDevice::LoadRealms() {
  const uint32_t nr = geometry_.nr_realms;
  std::string table(nr * emufmt::kSlotsPerRealm * emufmt::kSlotSize, '\0');
  SMR_RETURN_IF_ERROR(PreadFull(realm_offset_, table.data(), table.size()));
  realms_.assign(nr, Realm{});
  for (uint32_t r = 0; r < nr; ++r) {
    Realm& realm = realms_[r];
    realm.domain = geometry_.initial_domain;
    std::optional<emufmt::RealmSlot> best;
    uint8_t best_index = 0;
    for (uint8_t s = 0; s < emufmt::kSlotsPerRealm; ++s) {
      const char* src = table.data() + (r * emufmt::kSlotsPerRealm + s) * emufmt::kSlotSize;
      auto slot = emufmt::DecodeRealmSlot(src, r);
      if (slot && (!best || slot->seq > best->seq)) {
        best = slot;
        best_index = s;
      }
    }
    if (best) {
      realm.domain = best->domain;
      realm.slot.seq = best->seq;
      realm.slot.next_slot = static_cast<uint8_t>(1 - best_index);
    }
    SetDomainInactive(r, Other(realm.domain), true);
  }
  return Status::OK();
}

void EmulatedZonedDevice::SetDomainInactive(uint32_t r, ZoneDomain domain, bool inactive) {
  const RealmInfo g = RealmGeometry(info_, r);
  const uint32_t first = domain == ZoneDomain::kCmr ? g.cmr_first : g.smr_first;
  const uint32_t count = domain == ZoneDomain::kCmr ? g.cmr_count : g.smr_count;
  for (uint32_t z = first; z < first + count; ++z) zones_->SetInactive(z, inactive);
}

Status EmulatedZonedDevice::PersistZones(const std::vector<uint32_t>& zones) {
  for (size_t i = 0; i < zones.size(); ++i) {
    const uint32_t zone = zones[i];
    bool seen = false;
    for (size_t j = 0; j < i && !seen; ++j) seen = zones[j] == zone;
    if (seen) continue;
    SlotCursor& cur = slots_[zone];
    emufmt::Slot slot;
    slot.seq = cur.seq + 1;
    slot.wp = zones_->written(zone);
    slot.cond = zones_->condition(zone);
    slot.zone = zone;
    char buf[emufmt::kSlotSize];
    emufmt::EncodeSlot(slot, buf);
    const uint64_t off =
        state_offset_ + (zone * emufmt::kSlotsPerZone + cur.next_slot) * emufmt::kSlotSize;
    SMR_RETURN_IF_ERROR(PwriteFull(off, buf, sizeof(buf)));
    cur.seq = slot.seq;
    cur.next_slot = static_cast<uint8_t>(1 - cur.next_slot);
  }
  return Status::OK();
}

void EmulatedZonedDevice::PunchZoneTail(uint32_t zone, uint64_t from) {
  if (from >= geometry_.zone_size) return;
  // Best effort: file systems without hole punching still read back what the state says,
  // because reads past the write pointer are zero-filled here, not read from the file.
  ::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
              static_cast<off_t>(data_offset_ + zone * geometry_.zone_size + from),
              static_cast<off_t>(geometry_.zone_size - from));
}

Result<std::vector<ZoneInfo>> EmulatedZonedDevice::ReportZones(uint32_t first, uint32_t count) {
  if (first >= geometry_.nr_zones) {
    return Status::InvalidArgument("report zones: first zone " + std::to_string(first) +
                                   " beyond " + std::to_string(geometry_.nr_zones));
  }
  uint32_t end = geometry_.nr_zones;
  if (count != 0 && count < end - first) end = first + count;
  std::vector<ZoneInfo> out;
  out.reserve(end - first);
  MutexLock lock(&mu_);
  for (uint32_t z = first; z < end; ++z) out.push_back(zones_->Info(z));
  return out;
}

Status EmulatedZonedDevice::OpenZones(uint32_t first, uint32_t count) {
  SMR_RETURN_IF_ERROR(CheckZoneRange(info_, first, count, "open zones"));
  MutexLock lock(&mu_);
  SMR_RETURN_IF_ERROR(zones_->CheckZoneOp(first, count, "open zones"));
  for (uint32_t z = first; z < first + count; ++z) {
    std::vector<uint32_t> changed, to_close;
    SMR_RETURN_IF_ERROR(zones_->Open(z, &changed, &to_close));
    SMR_RETURN_IF_ERROR(PersistZones(changed));
  }
  return Status::OK();
}

Status EmulatedZonedDevice::ApplyZoneOp(uint32_t first, uint32_t count, const char* op,
                                        ZoneOpFn fn) {
  SMR_RETURN_IF_ERROR(CheckZoneRange(info_, first, count, op));
  MutexLock lock(&mu_);
  SMR_RETURN_IF_ERROR(zones_->CheckZoneOp(first, count, op));
  for (uint32_t z = first; z < first + count; ++z) {
    const uint64_t written = zones_->written(z);
    std::vector<uint32_t> changed;
    (zones_.get()->*fn)(z, &changed);
    if (changed.empty()) continue;
    // Bytes past the write pointer must read as zeros once a zone is full or reset, even
    // if a crashed writer left some in the file: punch them out before persisting.
    if (zones_->condition(z) == ZoneCondition::kFull) PunchZoneTail(z, written);
    SMR_RETURN_IF_ERROR(PersistZones(changed));
    if (zones_->condition(z) == ZoneCondition::kEmpty) PunchZoneTail(z, 0);
  }
  return Status::OK();
}

Status EmulatedZonedDevice::CloseZones(uint32_t first, uint32_t count) {
  return ApplyZoneOp(first, count, "close zones", &ZoneStateMachine::Close);
}

Status EmulatedZonedDevice::FinishZones(uint32_t first, uint32_t count) {
  return ApplyZoneOp(first, count, "finish zones", &ZoneStateMachine::Finish);
}

Status EmulatedZonedDevice::ResetZones(uint32_t first, uint32_t count) {
  return ApplyZoneOp(first, count, "reset zones", &ZoneStateMachine::Reset);
}

Status EmulatedZonedDevice::Read(uint64_t offset, void* buf, size_t len) {
  SMR_RETURN_IF_ERROR(CheckIoRange(info_, offset, len, "read"));
  return ReadV(offset, {{static_cast<char*>(buf), len}});
}

// One preadv per run of written blocks (a read within one zone's written part: one), zeros
// past the write pointers; the head is charged once for the whole range.
Status EmulatedZonedDevice::ReadV(uint64_t offset, const std::vector<ReadPiece>& targets) {
  size_t len = 0;
  for (const ReadPiece& t : targets) len += t.len;
  if (len == 0) return Status::OK();
  SMR_RETURN_IF_ERROR(CheckIoRange(info_, offset, len, "read"));
  // Work out, per zone, how much of the range lies below the write pointer.
  struct Piece {
    uint64_t off;
    size_t valid;
    size_t len;
  };
  std::vector<Piece> pieces;
  std::vector<uint32_t> realms;  // hybrid drives: realms the read is counted in flight in
  {
    MutexLock lock(&mu_);
    if (info_.hybrid()) {
      SMR_RETURN_IF_ERROR(BeginRealmIo(ZoneIndexOf(offset), ZoneIndexOf(offset + len - 1),
                                       "read", &realms));
    }
    uint64_t off = offset;
    const uint64_t end = offset + len;
    while (off < end) {
      const auto z = static_cast<uint32_t>(off / geometry_.zone_size);
      const uint64_t zstart = z * geometry_.zone_size;
      const uint64_t zend = std::min(end, zstart + geometry_.zone_size);
      const auto n = static_cast<size_t>(zend - off);
      size_t valid = n;
      if (!zones_->is_conventional(z)) {
        const uint64_t wp = zstart + zones_->written(z);
        valid = wp <= off ? 0 : static_cast<size_t>(std::min<uint64_t>(n, wp - off));
      }
      pieces.push_back({off, valid, n});
      off = zend;
    }
  }
  Status io;
  for (const Piece& piece : pieces) {
    const size_t rel = static_cast<size_t>(piece.off - offset);
    if (piece.valid > 0) {
      io = timing_.direct_reads && dio_fd_ >= 0
               ? PreadDirect(data_offset_ + piece.off, piece.valid,
                             ReadPieceSlices(targets, rel, piece.valid))
               : PreadvFull(fd_, data_offset_ + piece.off,
                            ReadPieceSlices(targets, rel, piece.valid), path_);
      if (!io.ok()) break;
    }
    if (piece.valid < piece.len) {
      for (const auto& [p, n] :
           ReadPieceSlices(targets, rel + piece.valid, piece.len - piece.valid)) {
        std::memset(p, 0, n);
      }
    }
  }
  EndRealmIo(realms);
  SMR_RETURN_IF_ERROR(io);
  ChargeTime(offset, len, /*read=*/true);
  return Status::OK();
}

Status EmulatedZonedDevice::WriteConventional(uint64_t offset,
                                              const std::vector<std::string_view>& pieces,
                                              size_t len) {
  const uint32_t first = ZoneIndexOf(offset);
  const uint32_t last = ZoneIndexOf(offset + len - 1);
  std::vector<uint32_t> realms;  // hybrid drives: realms the write is counted in flight in
  if (last >= geometry_.nr_conventional) {
    auto crossing = [&] {
      return Status::IOError(path_ + ": write [" + std::to_string(offset) + ", +" +
                             std::to_string(len) +
                             ") crosses from a conventional into a sequential zone");
    };
    if (!info_.hybrid()) return crossing();
    MutexLock lock(&mu_);
    for (uint32_t z = first; z <= last; ++z) {
      if (!zones_->is_conventional(z)) return crossing();
    }
    SMR_RETURN_IF_ERROR(BeginRealmIo(first, last, "write", &realms));
  }
  Status io = PwritevFull(data_offset_ + offset, pieces);
  EndRealmIo(realms);
  SMR_RETURN_IF_ERROR(io);
  ChargeTime(offset, len, /*read=*/false);
  return Status::OK();
}

Status EmulatedZonedDevice::Write(uint64_t offset, const void* buf, size_t len) {
  return WriteV(offset, {std::string_view(static_cast<const char*>(buf), len)});
}

Status EmulatedZonedDevice::WriteV(uint64_t offset, const std::vector<std::string_view>& pieces) {
  size_t len = 0;
  for (std::string_view piece : pieces) len += piece.size();
  if (pieces.empty()) return Status::OK();
  SMR_RETURN_IF_ERROR(CheckIoRange(info_, offset, len, "write"));
  const auto z = static_cast<uint32_t>(offset / geometry_.zone_size);
  if (z < geometry_.nr_conventional) return WriteConventional(offset, pieces, len);
  if (auto realm = RealmOfZone(info_, z); realm && realm->domain == ZoneDomain::kCmr) {
    return WriteConventional(offset, pieces, len);
  }
  {
    MutexLock lock(&mu_);
    std::vector<uint32_t> changed, to_close;
    SMR_RETURN_IF_ERROR(zones_->BeginWrite(offset, len, &changed, &to_close));
    // Zones closed to make room: persist now (the written zone is persisted after its data).
    Status s = PersistZones(changed);
    if (!s.ok()) {
      std::vector<uint32_t> ignored;
      zones_->EndWrite(z, len, /*ok=*/false, &ignored);
      return s;
    }
  }
  // Data first, then the state slot that makes it visible (crash-consistency rule above).
  Status io = PwritevFull(data_offset_ + offset, pieces);
  if (io.ok() && timing_.enabled() && dio_fd_ < 0) {
    // Start writing the file back now, while the simulated head "transfers": Flush then
    // finds little left to sync, as a drive's cache flush after streaming writes would.
    ::sync_file_range(fd_, static_cast<off_t>(data_offset_ + offset), static_cast<off_t>(len),
                      SYNC_FILE_RANGE_WRITE);
  }
  Status persisted;
  {
    MutexLock lock(&mu_);
    std::vector<uint32_t> changed;
    zones_->EndWrite(z, len, io.ok(), &changed);
    if (!io.ok()) return io;
    persisted = PersistZones(changed);
  }
  ChargeTime(offset, len, /*read=*/false);  // outside the state lock: the head may sleep
  return persisted;
}

Status EmulatedZonedDevice::BeginRealmIo(uint32_t first, uint32_t last, const char* op,
                                         std::vector<uint32_t>* realms) {
  for (uint32_t z = first; z <= last; ++z) {
    if (zones_->is_inactive(z)) return Status::IOError(InactiveZoneError(z, op));
  }
  for (uint32_t z = first; z <= last; ++z) {
    auto realm = RealmOfZone(info_, z);
    if (!realm) continue;
    if (std::find(realms->begin(), realms->end(), realm->realm) != realms->end()) continue;
    realms->push_back(realm->realm);
    ++realms_[realm->realm].inflight;
  }
  return Status::OK();
}

void EmulatedZonedDevice::EndRealmIo(const std::vector<uint32_t>& realms) {
  if (realms.empty()) return;
  MutexLock lock(&mu_);
  for (uint32_t r : realms) --realms_[r].inflight;
}

std::string EmulatedZonedDevice::InactiveZoneError(uint32_t zone, const char* op) const {
  auto realm = RealmOfZone(info_, zone);
  std::string why = "inactive";
  if (realm) {
    const Realm& rs = realms_[realm->realm];
    why = rs.converting ? "inactive: realm " + std::to_string(realm->realm) + " is converting"
                        : std::string("inactive: realm ") + std::to_string(realm->realm) +
                              " is active in the " + ZoneDomainName(rs.domain) + " domain";
  }
  return path_ + ": " + op + ": zone " + std::to_string(zone) + " is " + why;
}

Result<std::vector<RealmInfo>> EmulatedZonedDevice::ReportRealms(uint32_t first, uint32_t count) {
  SMR_RETURN_IF_ERROR(CheckRealmRange(info_, first, 1, "report realms"));
  uint32_t end = info_.nr_realms;
  if (count != 0 && count < end - first) end = first + count;
  std::vector<RealmInfo> out;
  out.reserve(end - first);
  MutexLock lock(&mu_);
  for (uint32_t r = first; r < end; ++r) {
    RealmInfo ri = RealmGeometry(info_, r);
    ri.domain = realms_[r].domain;
    out.push_back(ri);
  }
  return out;
}

Status EmulatedZonedDevice::CheckConvertible(uint32_t r, ZoneDomain domain) const {
  const Realm& realm = realms_[r];
  const std::string what = path_ + ": activate realms: realm " + std::to_string(r);
  if (realm.converting) return Status::IOError(what + " is already converting");
  if (realm.domain == domain || realm.domain != ZoneDomain::kSmr) return Status::OK();
  // Leaving SMR: every sequential zone of the realm must be empty.
  const RealmInfo g = RealmGeometry(info_, r);
  for (uint32_t z = g.smr_first; z < g.smr_first + g.smr_count; ++z) {
    const ZoneInfo zi = zones_->Info(z);
    if (zi.cond == ZoneCondition::kReadOnly || zi.cond == ZoneCondition::kOffline) {
      return Status::IOError(what + ": zone " + std::to_string(z) + " is " +
                             ZoneConditionName(zi.cond));
    }
    if (zi.cond != ZoneCondition::kEmpty) {
      return Status::NotEmpty(what + " cannot leave the smr domain: zone " +
                              std::to_string(z) + " is " + ZoneConditionName(zi.cond) +
                              " (reset it first)");
    }
  }
  return Status::OK();
}

Status EmulatedZonedDevice::ActivateRealms(uint32_t first, uint32_t count, ZoneDomain domain) {
  SMR_RETURN_IF_ERROR(CheckRealmRange(info_, first, count, "activate realms"));
  if (domain != ZoneDomain::kCmr && domain != ZoneDomain::kSmr) {
    return Status::InvalidArgument(path_ + ": activate realms: unknown domain " +
                                   std::to_string(static_cast<int>(domain)));
  }
  {
    // Every realm of the range first, so a refusal changes nothing.
    MutexLock lock(&mu_);
    for (uint32_t r = first; r < first + count; ++r) {
      SMR_RETURN_IF_ERROR(CheckConvertible(r, domain));
    }
  }
  for (uint32_t r = first; r < first + count; ++r) SMR_RETURN_IF_ERROR(ConvertRealm(r, domain));
  return Status::OK();
}

Status EmulatedZonedDevice::ConvertRealm(uint32_t r, ZoneDomain domain) {
  ZoneDomain old;
  {
    MutexLock lock(&mu_);
    // Checked again: the host may have written to the realm since ActivateRealms checked.
    SMR_RETURN_IF_ERROR(CheckConvertible(r, domain));
    old = realms_[r].domain;
    if (old == domain) return Status::OK();
    realms_[r].converting = true;
    SetDomainInactive(r, old, true);  // its SMR zones, if any, are empty (checked)
  }
  // I/O admitted before the realm turned inactive finishes before its area changes.
  for (;;) {
    {
      MutexLock lock(&mu_);
      if (realms_[r].inflight == 0) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  auto stop_after = [&](int step) {
    int want = step;  // one-shot: the hook turns itself off when it fires
    return stop_after_step_.compare_exchange_strong(want, -1);
  };
  auto stopped = [&](int step) {
    return Status::IOError(path_ + ": activate realms: realm " + std::to_string(r) +
                           " conversion stopped after step " + std::to_string(step) +
                           " (test hook; discard this device object)");
  };
  auto undo = [&](Status s) {
    // Before the commit point: the realm stays in its old domain, data intact.
    MutexLock lock(&mu_);
    realms_[r].converting = false;
    SetDomainInactive(r, old, false);
    return s;
  };
  if (stop_after(0)) return stopped(0);

  // Step 1: the new domain's area reads as zeros, its zones' slots say empty.
  if (Status s = ClearDomainArea(r, domain); !s.ok()) return undo(s);
  if (domain == ZoneDomain::kSmr) {
    MutexLock lock(&mu_);
    if (Status s = PersistEmptySmrZones(r); !s.ok()) return undo(s);
  }
  if (::fdatasync(fd_) != 0) return undo(Status::FromErrno(errno, path_ + ": activate realms"));
  if (stop_after(1)) return stopped(1);

  // The conversion time, without the device mutex: other realms' I/O proceeds.
  std::this_thread::sleep_for(std::chrono::milliseconds(geometry_.conversion_ms));

  // Step 2, the commit point.
  {
    MutexLock lock(&mu_);
    if (Status s = PersistRealm(r, domain); !s.ok()) return undo(s);
  }
  auto finish = [&] {
    MutexLock lock(&mu_);
    realms_[r].domain = domain;
    realms_[r].converting = false;
    SetDomainInactive(r, domain, false);  // SMR zones come up empty, CMR zones read zeros
  };
  if (::fdatasync(fd_) != 0) {
    // The slot is written (a crash of this process keeps the new domain) but may not be
    // durable: keep the old domain's data (not punched) for a power cut that loses it.
    Status s = Status::FromErrno(errno, path_ + ": activate realms");
    finish();
    return s;
  }
  if (stop_after(2)) return stopped(2);

  // Step 3: the old domain's data is destroyed. A failure leaves bytes in an inactive
  // area only: step 1 clears it again before it becomes active.
  (void)ClearDomainArea(r, old);
  if (stop_after(3)) return stopped(3);

  finish();
  return Status::OK();
}

Status EmulatedZonedDevice::ClearDomainArea(uint32_t r, ZoneDomain domain) {
  const RealmInfo g = RealmGeometry(info_, r);
  const uint32_t first = domain == ZoneDomain::kCmr ? g.cmr_first : g.smr_first;
  const uint32_t count = domain == ZoneDomain::kCmr ? g.cmr_count : g.smr_count;
  const uint64_t off = data_offset_ + uint64_t{first} * geometry_.zone_size;
  const uint64_t len = uint64_t{count} * geometry_.zone_size;
  if (::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(off),
                  static_cast<off_t>(len)) == 0) {
    return Status::OK();
  }
  // No hole punching here. Sequential zones read zeros past their write pointer anyway;
  // conventional zones are read from the file, so write the zeros.
  if (domain == ZoneDomain::kSmr) return Status::OK();
  const std::vector<char> zeros(std::min<uint64_t>(len, 1 << 20), '\0');
  for (uint64_t done = 0; done < len; done += zeros.size()) {
    SMR_RETURN_IF_ERROR(PwriteFull(off + done, zeros.data(), zeros.size()));
  }
  return Status::OK();
}

Status EmulatedZonedDevice::PersistEmptySmrZones(uint32_t r) {
  const RealmInfo g = RealmGeometry(info_, r);
  for (uint32_t z = g.smr_first; z < g.smr_first + g.smr_count; ++z) {
    SlotCursor& cur = slots_[z];
    emufmt::Slot slot;
    slot.seq = cur.seq + 1;
    slot.wp = 0;
    slot.cond = ZoneCondition::kEmpty;
    slot.zone = z;
    char buf[emufmt::kSlotSize];
    emufmt::EncodeSlot(slot, buf);
    const uint64_t off =
        state_offset_ + (uint64_t{z} * emufmt::kSlotsPerZone + cur.next_slot) * emufmt::kSlotSize;
    SMR_RETURN_IF_ERROR(PwriteFull(off, buf, sizeof(buf)));
    cur.seq = slot.seq;
    cur.next_slot = static_cast<uint8_t>(1 - cur.next_slot);
  }
  return Status::OK();
}

Status EmulatedZonedDevice::PersistRealm(uint32_t r, ZoneDomain domain) {
  SlotCursor& cur = realms_[r].slot;
  emufmt::RealmSlot slot;
  slot.seq = cur.seq + 1;
  slot.domain = domain;
  slot.realm = r;
  char buf[emufmt::kSlotSize];
  emufmt::EncodeRealmSlot(slot, buf);
  const uint64_t off = realm_offset_ +
                       (uint64_t{r} * emufmt::kSlotsPerRealm + cur.next_slot) * emufmt::kSlotSize;
  SMR_RETURN_IF_ERROR(PwriteFull(off, buf, sizeof(buf)));
  cur.seq = slot.seq;
  cur.next_slot = static_cast<uint8_t>(1 - cur.next_slot);
  return Status::OK();
}

Status EmulatedZonedDevice::Flush() {
  if (::fdatasync(fd_) != 0) return Status::FromErrno(errno, path_ + ": flush");
  return Status::OK();
}

Status EmulatedZonedDevice::PreadDirect(
    uint64_t file_offset, size_t len, const std::vector<std::pair<char*, size_t>>& slices) const {
  const uint64_t align = dio_off_align_;
  const uint64_t start = file_offset / align * align;
  const uint64_t end = (file_offset + len + align - 1) / align * align;
  const auto span = static_cast<size_t>(end - start);
  void* p = nullptr;
  if (::posix_memalign(&p, std::max<size_t>(dio_mem_align_, sizeof(void*)), span) != 0) {
    return Status::IOError(path_ + ": no memory for a direct read of " + std::to_string(span) +
                           " bytes");
  }
  std::unique_ptr<char, decltype(&std::free)> bounce(static_cast<char*>(p), &std::free);
  const auto need = static_cast<size_t>(file_offset - start) + len;
  size_t got = 0;
  while (got < need) {
    const ssize_t r =
        ::pread(dio_fd_, bounce.get() + got, span - got, static_cast<off_t>(start + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Status::FromErrno(errno, path_ + ": direct read");
    if (r == 0) {
      return Status::IOError(path_ + ": direct read at " + std::to_string(start + got) +
                             " ends at the end of the file");
    }
    got += static_cast<size_t>(r);
  }
  const char* from = bounce.get() + (file_offset - start);
  for (const auto& [to, n] : slices) {
    std::memcpy(to, from, n);
    from += n;
  }
  return Status::OK();
}

Status EmulatedZonedDevice::PreadFull(uint64_t file_offset, void* buf, size_t len) const {
  auto* p = static_cast<char*>(buf);
  uint64_t off = file_offset;
  while (len > 0) {
    ssize_t n = ::pread(fd_, p, len, static_cast<off_t>(off));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, path_ + ": read");
    }
    if (n == 0) return Status::IOError(path_ + ": read past the end of the drive file");
    p += n;
    off += static_cast<uint64_t>(n);
    len -= static_cast<size_t>(n);
  }
  return Status::OK();
}

Status EmulatedZonedDevice::PwritevFull(uint64_t file_offset,
                                        const std::vector<std::string_view>& pieces) {
  // Runs of kept pieces, each written at its own offset (dropped pieces: the contract's
  // "Dropped pieces"; with dropping off, one run).
  const uint64_t drop = timing_.drop_piece_bytes;
  std::vector<std::string_view> run;
  run.reserve(pieces.size());
  uint64_t run_offset = file_offset, off = file_offset;
  for (std::string_view piece : pieces) {
    if (drop > 0 && piece.size() >= drop) {
      SMR_RETURN_IF_ERROR(WriteRun(run_offset, run));
      run.clear();
      off += piece.size();
      run_offset = off;
      continue;
    }
    if (!piece.empty()) run.push_back(piece);
    off += piece.size();
  }
  return WriteRun(run_offset, run);
}

Status EmulatedZonedDevice::WriteRun(uint64_t file_offset,
                                     const std::vector<std::string_view>& run) {
  size_t len = 0;
  for (std::string_view piece : run) len += piece.size();
  if (len == 0) return Status::OK();
  if (dio_fd_ >= 0 && file_offset % dio_off_align_ == 0 && len % dio_off_align_ == 0) {
    return PwritevDirect(file_offset, run);
  }
  std::vector<struct iovec> iov;
  iov.reserve(run.size());
  for (std::string_view piece : run) iov.push_back({const_cast<char*>(piece.data()), piece.size()});
  return PwritevRun(fd_, file_offset, &iov);
}

Status EmulatedZonedDevice::PwritevDirect(uint64_t file_offset,
                                          const std::vector<std::string_view>& run) {
  const uint64_t mem = dio_mem_align_, blk = dio_off_align_;
  auto aligned = [&](std::string_view p) {
    return reinterpret_cast<uintptr_t>(p.data()) % mem == 0 && p.size() % blk == 0;
  };
  // Pass 1: which pieces are copied. A copied segment starts at a piece that is not aligned
  // and takes the pieces after it until its length is a multiple of the block again; each
  // segment starts memory-aligned in the bounce buffer.
  std::vector<bool> copy(run.size(), false);
  uint64_t bounce_len = 0, seg = 0;
  for (size_t i = 0; i < run.size(); ++i) {
    if (seg == 0 && aligned(run[i])) continue;
    copy[i] = true;
    if (seg == 0) bounce_len = RoundUp(bounce_len, mem);
    bounce_len += run[i].size();
    seg = (seg + run[i].size()) % blk;
  }
  std::unique_ptr<char, decltype(&std::free)> bounce(nullptr, &std::free);
  if (bounce_len > 0) {
    void* p = nullptr;
    if (::posix_memalign(&p, std::max<uint64_t>(mem, sizeof(void*)), bounce_len) != 0) {
      return Status::IOError(path_ + ": write: out of memory for an O_DIRECT gather buffer");
    }
    bounce.reset(static_cast<char*>(p));
  }
  // Pass 2: the iovecs, copying the gathered pieces.
  std::vector<struct iovec> iov;
  iov.reserve(run.size());
  uint64_t at = 0;
  seg = 0;
  for (size_t i = 0; i < run.size(); ++i) {
    if (!copy[i]) {
      iov.push_back({const_cast<char*>(run[i].data()), run[i].size()});
      continue;
    }
    if (seg == 0) {
      at = RoundUp(at, mem);
      iov.push_back({bounce.get() + at, 0});
    }
    std::memcpy(bounce.get() + at, run[i].data(), run[i].size());
    at += run[i].size();
    iov.back().iov_len += run[i].size();
    seg = (seg + run[i].size()) % blk;
  }
  return PwritevRun(dio_fd_, file_offset, &iov);
}

Status EmulatedZonedDevice::PwritevRun(int fd, uint64_t file_offset,
                                       std::vector<struct iovec>* iov_in) {
  std::vector<struct iovec>& iov = *iov_in;
  size_t at = 0;  // first iovec not fully written
  uint64_t off = file_offset;
  while (at < iov.size()) {
    const int n_iov = static_cast<int>(std::min<size_t>(iov.size() - at, IOV_MAX));
    ssize_t n = ::pwritev(fd, iov.data() + at, n_iov, static_cast<off_t>(off));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, path_ + ": write");
    }
    off += static_cast<uint64_t>(n);
    auto left = static_cast<size_t>(n);
    while (at < iov.size() && left >= iov[at].iov_len) left -= iov[at++].iov_len;
    if (left > 0) {  // a short write inside iov[at]
      iov[at].iov_base = static_cast<char*>(iov[at].iov_base) + left;
      iov[at].iov_len -= left;
    }
  }
  return Status::OK();
}

Status EmulatedZonedDevice::PwriteFull(uint64_t file_offset, const void* buf, size_t len) {
  const auto* p = static_cast<const char*>(buf);
  uint64_t off = file_offset;
  while (len > 0) {
    ssize_t n = ::pwrite(fd_, p, len, static_cast<off_t>(off));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, path_ + ": write");
    }
    p += n;
    off += static_cast<uint64_t>(n);
    len -= static_cast<size_t>(n);
  }
  return Status::OK();
}

void EmulatedZonedDevice::ChargeTime(uint64_t offset, size_t len, bool read) {
  if (head_) head_->ChargeAndWait(offset, len, read);
}

}  // namespace smr
