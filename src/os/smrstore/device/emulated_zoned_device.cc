#include "device/emulated_zoned_device.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "device/emulated_format.h"

namespace smr {

namespace {

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

Status EmulatedGeometry::Normalize() {
  if (logical_block_size != 512 && logical_block_size != 4096) {
    return Status::InvalidArgument("logical block size must be 512 or 4096, not " +
                                   std::to_string(logical_block_size));
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
  info_.model = ZonedModel::kHostManaged;
  info_.nr_zones = geometry_.nr_zones;
  info_.zone_size = geometry_.zone_size;
  info_.zone_capacity = geometry_.zone_capacity;
  info_.nr_conventional = geometry_.nr_conventional;
  info_.logical_block_size = geometry_.logical_block_size;
  info_.physical_block_size = 4096;
  info_.max_open_zones = geometry_.max_open_zones;
  info_.max_active_zones = geometry_.max_active_zones;
  state_offset_ = emufmt::kSlotTableOffset;
  data_offset_ = emufmt::DataOffsetFor(geometry_.nr_zones);
  head_free_ = std::chrono::steady_clock::now();
}

EmulatedZonedDevice::~EmulatedZonedDevice() { ::close(fd_); }

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
  sb.data_offset = emufmt::DataOffsetFor(geometry.nr_zones);
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
  if (static_cast<uint64_t>(st.st_size) < sb->data_offset + g.nr_zones * g.zone_size) {
    ::close(fd);
    return Status::Corruption(path + ": drive file is shorter than its geometry");
  }
  std::unique_ptr<EmulatedZonedDevice> dev(new EmulatedZonedDevice(path, fd, g, timing));
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
  for (uint32_t z = geometry_.nr_conventional; z < nz; ++z) {
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
    // The drive outlives the process that opened it: open zones stay open (only a power
    // cycle, FaultInjectionDevice::PowerCut, closes them).
    SMR_RETURN_IF_ERROR(zones_->Restore(z, best->wp, best->cond).WithContext(path_));
  }
  return Status::OK();
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
  // Work out, per zone, how much of the range lies below the write pointer.
  struct Piece {
    uint64_t off;
    size_t valid;
    size_t len;
  };
  std::vector<Piece> pieces;
  {
    MutexLock lock(&mu_);
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
  auto* p = static_cast<char*>(buf);
  for (const Piece& piece : pieces) {
    if (piece.valid > 0) {
      SMR_RETURN_IF_ERROR(PreadFull(data_offset_ + piece.off, p, piece.valid));
    }
    if (piece.valid < piece.len) std::memset(p + piece.valid, 0, piece.len - piece.valid);
    p += piece.len;
  }
  ChargeTime(offset, len, /*read=*/true);
  return Status::OK();
}

Status EmulatedZonedDevice::WriteConventional(uint64_t offset, const void* buf, size_t len) {
  const uint64_t last = offset + len - 1;
  if (last / geometry_.zone_size >= geometry_.nr_conventional) {
    return Status::IOError("write [" + std::to_string(offset) + ", +" + std::to_string(len) +
                           ") crosses from a conventional into a sequential zone");
  }
  SMR_RETURN_IF_ERROR(PwriteFull(data_offset_ + offset, buf, len));
  ChargeTime(offset, len, /*read=*/false);
  return Status::OK();
}

Status EmulatedZonedDevice::Write(uint64_t offset, const void* buf, size_t len) {
  SMR_RETURN_IF_ERROR(CheckIoRange(info_, offset, len, "write"));
  const auto z = static_cast<uint32_t>(offset / geometry_.zone_size);
  if (z < geometry_.nr_conventional) return WriteConventional(offset, buf, len);
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
  Status io = PwriteFull(data_offset_ + offset, buf, len);
  if (io.ok() && timing_.enabled()) {
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

Status EmulatedZonedDevice::Flush() {
  if (::fdatasync(fd_) != 0) return Status::FromErrno(errno, path_ + ": flush");
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
  if (!timing_.enabled()) return;
  using Clock = std::chrono::steady_clock;
  Clock::time_point done;
  {
    MutexLock lock(&head_mu_);
    const double bw = timing_.seq_mbps * 1e6;
    const bool forward_gap = offset > head_pos_ && offset - head_pos_ <= TimingModel::kSkipWindow;
    double seconds = static_cast<double>(len) / bw;
    if (forward_gap) {
      // A short forward gap: the platter turns past it; cheaper than a seek.
      seconds += static_cast<double>(offset - head_pos_) / bw;
    } else if (offset != head_pos_) {
      seconds += timing_.seek_ms / 1e3;
    }
    const Clock::time_point now = Clock::now();
    if (read && (forward_gap || offset == head_pos_) && now > head_free_) {
      // Read-ahead: while the host was busy, the drive went on reading sequentially into
      // its cache (up to kReadAhead bytes); that part of this read is already done.
      const double idle = std::chrono::duration<double>(now - head_free_).count();
      const double prefetched =
          std::min(idle * bw, static_cast<double>(TimingModel::kReadAhead)) / bw;
      seconds = std::max(0.0, seconds - prefetched);
    }
    const Clock::time_point start = head_free_ > now ? head_free_ : now;
    head_free_ = start + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(seconds));
    head_pos_ = offset + len;
    done = head_free_;
  }
  std::this_thread::sleep_until(done);
}

}  // namespace smr
