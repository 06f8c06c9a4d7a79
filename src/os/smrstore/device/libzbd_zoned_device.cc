// The only translation unit that includes libzbd (see libzbd_zoned_device.h).
#include "device/libzbd_zoned_device.h"

#include <fcntl.h>
#include <libzbd/zbd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

#include "common/thread_annotations.h"
#include "device/zone_state_machine.h"

namespace smr {

namespace {

// /sys/block/NAME/queue/rotational of the block device at `path` ("1": a head that seeks);
// false when it cannot be read (a partition, no sysfs).
bool ReadRotational(const std::string& path) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (real == nullptr) return false;
  std::string name(real);
  std::free(real);
  name = name.substr(name.find_last_of('/') + 1);
  std::ifstream f("/sys/block/" + name + "/queue/rotational");
  int v = 0;
  return static_cast<bool>(f >> v) && v == 1;
}

ZoneCondition ToCondition(unsigned int cond) {
  switch (cond) {
    case ZBD_ZONE_COND_NOT_WP:
      return ZoneCondition::kNotWritePointer;
    case ZBD_ZONE_COND_EMPTY:
      return ZoneCondition::kEmpty;
    case ZBD_ZONE_COND_IMP_OPEN:
      return ZoneCondition::kImplicitOpen;
    case ZBD_ZONE_COND_EXP_OPEN:
      return ZoneCondition::kExplicitOpen;
    case ZBD_ZONE_COND_CLOSED:
      return ZoneCondition::kClosed;
    case ZBD_ZONE_COND_FULL:
      return ZoneCondition::kFull;
    case ZBD_ZONE_COND_READONLY:
      return ZoneCondition::kReadOnly;
    default:
      return ZoneCondition::kOffline;
  }
}

ZoneInfo ToZoneInfo(const zbd_zone& z) {
  ZoneInfo zi;
  zi.start = z.start;
  zi.length = z.len;
  zi.capacity = z.capacity;
  zi.wp = z.wp;
  zi.cond = ToCondition(z.cond);
  zi.type = z.type == ZBD_ZONE_TYPE_CNV ? ZoneType::kConventional : ZoneType::kSequentialRequired;
  if (zi.type == ZoneType::kConventional) {
    zi.capacity = zi.length;
    zi.wp = zi.start + zi.length;  // no write pointer; same convention as the emulator
  } else if (zi.cond == ZoneCondition::kFull) {
    zi.wp = zi.start + zi.length;
  }
  return zi;
}

// Frees libzbd's zone arrays.
struct FreeDeleter {
  void operator()(zbd_zone* p) const { std::free(p); }
};

class LibzbdZonedDevice final : public ZonedDevice {
 public:
  LibzbdZonedDevice(int fd, DeviceInfo info) : fd_(fd), info_(std::move(info)) {}
  ~LibzbdZonedDevice() override { zbd_close(fd_); }

  Status Init(const std::vector<ZoneInfo>& zones) {
    MutexLock lock(&mu_);
    machine_ = std::make_unique<ZoneStateMachine>(info_);
    for (uint32_t z = 0; z < zones.size(); ++z) SMR_RETURN_IF_ERROR(RestoreLocked(z, zones[z]));
    return Status::OK();
  }

  const DeviceInfo& info() const override { return info_; }

  Result<std::vector<ZoneInfo>> ReportZones(uint32_t first, uint32_t count) override {
    if (first >= info_.nr_zones) {
      return Status::InvalidArgument("report zones: first zone " + std::to_string(first) +
                                     " beyond " + std::to_string(info_.nr_zones));
    }
    uint32_t n = info_.nr_zones - first;
    if (count != 0 && count < n) n = count;
    return ReportRaw(first, n);
  }

  Status OpenZones(uint32_t first, uint32_t count) override {
    SMR_RETURN_IF_ERROR(CheckZoneRange(info_, first, count, "open zones"));
    MutexLock lock(&mu_);
    SMR_RETURN_IF_ERROR(machine_->CheckZoneOp(first, count, "open zones"));
    for (uint32_t z = first; z < first + count; ++z) {
      std::vector<uint32_t> changed, to_close;
      SMR_RETURN_IF_ERROR(machine_->Open(z, &changed, &to_close));
      SMR_RETURN_IF_ERROR(CloseVictims(to_close));
      if (zbd_open_zones(fd_, ZoneStart(z), info_.zone_size) != 0) {
        return Fail(errno, z, "open zone");
      }
    }
    return Status::OK();
  }

  Status CloseZones(uint32_t first, uint32_t count) override {
    return ZoneOp(first, count, "close zones", ZBD_OP_CLOSE, &ZoneStateMachine::Close);
  }
  Status FinishZones(uint32_t first, uint32_t count) override {
    return ZoneOp(first, count, "finish zones", ZBD_OP_FINISH, &ZoneStateMachine::Finish);
  }
  Status ResetZones(uint32_t first, uint32_t count) override {
    return ZoneOp(first, count, "reset zones", ZBD_OP_RESET, &ZoneStateMachine::Reset);
  }

  // Blocks past a sequential zone's write pointer are not read from the device: they are
  // zero-filled here. The kernel does not guarantee zeros there: zoned null_blk (Linux 6.1,
  // memory_backed) returns 0xff bytes past the write pointer (and past the capacity of a
  // full zone), NVMe ZNS returns zeros, ZBC drives without URSWRZ fail the read. The write
  // pointers are snapshotted before the transfer, so a concurrent write is either wholly
  // seen or not.
  Status Read(uint64_t offset, void* buf, size_t len) override {
    SMR_RETURN_IF_ERROR(CheckIoRange(info_, offset, len, "read"));
    std::unique_ptr<char, decltype(&std::free)> bounce(nullptr, &std::free);
    char* dst = static_cast<char*>(buf);
    if (!Aligned(buf)) {
      bounce.reset(AllocAligned(len));
      if (!bounce) return Status::IOError("read: out of memory for a bounce buffer");
      dst = bounce.get();
    }
    SMR_RETURN_IF_ERROR(ReadInto(offset, {{dst, len}}));
    if (bounce) std::memcpy(buf, bounce.get(), len);
    return Status::OK();
  }

  // One preadv straight into the pieces when O_DIRECT takes them as they are (every buffer
  // and length a multiple of the logical block size); else one read into an aligned buffer,
  // copied out.
  Status ReadV(uint64_t offset, const std::vector<ReadPiece>& pieces) override {
    size_t len = 0;
    bool direct = true;
    for (const ReadPiece& p : pieces) {
      len += p.len;
      direct = direct && Aligned(p.buf) && p.len % info_.logical_block_size == 0;
    }
    if (len == 0) return Status::OK();
    SMR_RETURN_IF_ERROR(CheckIoRange(info_, offset, len, "read"));
    if (direct) return ReadInto(offset, pieces);
    std::unique_ptr<char, decltype(&std::free)> bounce(AllocAligned(len), &std::free);
    if (!bounce) return Status::IOError("read: out of memory for a bounce buffer");
    SMR_RETURN_IF_ERROR(ReadInto(offset, {{bounce.get(), len}}));
    size_t at = 0;
    for (const ReadPiece& p : pieces) {
      std::memcpy(p.buf, bounce.get() + at, p.len);
      at += p.len;
    }
    return Status::OK();
  }

  // The transfer of Read and ReadV (zeros past the write pointers, as above). REQUIRES: the
  // range was checked; every piece suits O_DIRECT.
  Status ReadInto(uint64_t offset, const std::vector<ReadPiece>& pieces) {
    size_t len = 0;
    for (const ReadPiece& p : pieces) len += p.len;
    // [from, to) device ranges that hold data; everything else in the request is zeros.
    std::vector<std::pair<uint64_t, uint64_t>> runs;
    {
      MutexLock lock(&mu_);
      const uint64_t end = offset + len;
      for (uint32_t z = ZoneIndexOf(offset), last = ZoneIndexOf(end - 1); z <= last; ++z) {
        const uint64_t zs = ZoneStart(z);
        const uint64_t from = std::max(offset, zs);
        const uint64_t to = std::min(end, zs + info_.zone_size);
        uint64_t valid = to;
        if (!machine_->is_conventional(z)) {
          const ZoneCondition c = machine_->condition(z);
          // Read-only and offline zones: the device decides (data or an error).
          if (c != ZoneCondition::kReadOnly && c != ZoneCondition::kOffline) {
            valid = std::min(to, std::max(from, zs + machine_->written(z)));
          }
        }
        if (valid > from) {
          if (!runs.empty() && runs.back().second == from) {
            runs.back().second = valid;
          } else {
            runs.emplace_back(from, valid);
          }
        }
        if (to > valid) {
          for (const auto& [p, n] : ReadPieceSlices(pieces, valid - offset, to - valid)) {
            std::memset(p, 0, n);
          }
        }
      }
    }
    for (const auto& [from, to] : runs) {
      SMR_RETURN_IF_ERROR(
          PreadvFull(fd_, from, ReadPieceSlices(pieces, from - offset, to - from), info_.path));
    }
    return Status::OK();
  }

  Status Write(uint64_t offset, const void* buf, size_t len) override {
    SMR_RETURN_IF_ERROR(CheckIoRange(info_, offset, len, "write"));
    std::unique_ptr<char, decltype(&std::free)> bounce(nullptr, &std::free);
    if (!Aligned(buf)) {
      bounce.reset(AllocAligned(len));
      if (!bounce) return Status::IOError("write: out of memory for a bounce buffer");
      std::memcpy(bounce.get(), buf, len);
      buf = bounce.get();
    }
    const uint32_t z = ZoneIndexOf(offset);
    {
      MutexLock lock(&mu_);
      if (machine_->is_conventional(z)) {
        for (uint32_t last = ZoneIndexOf(offset + len - 1), i = z; i <= last; ++i) {
          if (!machine_->is_conventional(i)) {
            return Status::IOError("write [" + std::to_string(offset) + ", +" +
                                   std::to_string(len) +
                                   ") crosses from a conventional into a sequential zone");
          }
        }
      } else {
        std::vector<uint32_t> changed, to_close;
        SMR_RETURN_IF_ERROR(machine_->BeginWrite(offset, len, &changed, &to_close));
        Status s = CloseVictims(to_close);
        if (!s.ok()) {
          machine_->EndWrite(z, len, false, &changed);
          return s;
        }
      }
    }
    Status io = Transfer(/*write=*/true, offset, const_cast<void*>(buf), len);
    MutexLock lock(&mu_);
    if (!machine_->is_conventional(z)) {
      std::vector<uint32_t> changed;
      machine_->EndWrite(z, len, io.ok(), &changed);
      if (!io.ok()) ResyncLocked(z);
    }
    return io;
  }

  // One device write: the pieces gathered into one aligned buffer (O_DIRECT).
  Status WriteV(uint64_t offset, const std::vector<std::string_view>& pieces) override {
    size_t len = 0;
    for (std::string_view piece : pieces) len += piece.size();
    if (len == 0) return Status::OK();
    if (pieces.size() == 1) return Write(offset, pieces[0].data(), len);
    std::unique_ptr<char, decltype(&std::free)> joined(AllocAligned(len), &std::free);
    if (!joined) return Status::IOError("write: out of memory for a gather buffer");
    size_t at = 0;
    for (std::string_view piece : pieces) {
      std::memcpy(joined.get() + at, piece.data(), piece.size());
      at += piece.size();
    }
    return Write(offset, joined.get(), len);
  }

  Status Flush() override {
    if (::fdatasync(fd_) != 0) return Status::FromErrno(errno, info_.path + ": flush");
    return Status::OK();
  }

  // The node is opened O_DIRECT: nothing goes through the page cache.
  HostCacheUse HostCache() const override {
    HostCacheUse use;
    use.mode = "direct";
    return use;
  }

 private:
  using MachineOp = void (ZoneStateMachine::*)(uint32_t, std::vector<uint32_t>*);

  bool Aligned(const void* p) const {
    return reinterpret_cast<uintptr_t>(p) % info_.logical_block_size == 0;
  }
  char* AllocAligned(size_t len) const {
    void* p = nullptr;
    if (posix_memalign(&p, 4096, len) != 0) return nullptr;
    return static_cast<char*>(p);
  }

  Status Transfer(bool write, uint64_t offset, void* buf, size_t len) {
    auto* p = static_cast<char*>(buf);
    while (len > 0) {
      ssize_t n = write ? ::pwrite(fd_, p, len, static_cast<off_t>(offset))
                        : ::pread(fd_, p, len, static_cast<off_t>(offset));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Status::FromErrno(errno, info_.path + (write ? ": write" : ": read"));
      }
      if (n == 0) return Status::IOError(info_.path + ": short transfer at " +
                                         std::to_string(offset));
      p += n;
      offset += static_cast<uint64_t>(n);
      len -= static_cast<size_t>(n);
    }
    return Status::OK();
  }

  Result<std::vector<ZoneInfo>> ReportRaw(uint32_t first, uint32_t n) {
    std::unique_ptr<zbd_zone[]> zones(new zbd_zone[n]);
    unsigned int nr = n;
    if (zbd_report_zones(fd_, static_cast<off_t>(ZoneStart(first)),
                         static_cast<off_t>(uint64_t{n} * info_.zone_size), ZBD_RO_ALL,
                         zones.get(), &nr) != 0) {
      return Status::FromErrno(errno, info_.path + ": report zones");
    }
    std::vector<ZoneInfo> out;
    out.reserve(nr);
    for (unsigned int i = 0; i < nr; ++i) out.push_back(ToZoneInfo(zones[i]));
    return out;
  }

  Status RestoreLocked(uint32_t z, const ZoneInfo& zi) SMR_REQUIRES(mu_) {
    if (zi.is_conventional()) {
      machine_->MarkConventional(z);
      return Status::OK();
    }
    uint64_t written = zi.wp - zi.start;
    if (zi.cond == ZoneCondition::kFull) written = zi.capacity;
    if (zi.cond == ZoneCondition::kReadOnly || zi.cond == ZoneCondition::kOffline) written = 0;
    return machine_->Restore(z, written, zi.cond);
  }

  // After a kernel error, reload the zone's true state so the cache cannot drift.
  void ResyncLocked(uint32_t z) SMR_REQUIRES(mu_) {
    auto zi = ReportRaw(z, 1);
    if (zi.ok() && !zi->empty()) (void)RestoreLocked(z, (*zi)[0]);
  }

  Status Fail(int err, uint32_t z, const char* what) SMR_REQUIRES(mu_) {
    Status s = Status::FromErrno(err, info_.path + ": " + what + " " + std::to_string(z));
    ResyncLocked(z);
    return s;
  }

  Status CloseVictims(const std::vector<uint32_t>& zones) SMR_REQUIRES(mu_) {
    for (uint32_t v : zones) {
      if (zbd_close_zones(fd_, ZoneStart(v), info_.zone_size) != 0) {
        return Fail(errno, v, "close zone");
      }
      SMR_RETURN_IF_ERROR(EmptyIfUnwritten(v));
    }
    return Status::OK();
  }

  // The contract (and ZBC, and null_blk) turn an open zone closed with nothing written into
  // kEmpty. NVMe ZNS does not: Close moves it to CLOSED with wp == ZSLBA, still holding an
  // active-zone resource (seen on QEMU's ZNS namespace under Linux 6.1), so the device would
  // count one more active zone than the state machine. A reset of a zone without data
  // loses nothing and gives the zone back as EMPTY on every kind of device.
  Status EmptyIfUnwritten(uint32_t z) SMR_REQUIRES(mu_) {
    if (machine_->condition(z) != ZoneCondition::kEmpty) return Status::OK();
    if (zbd_reset_zones(fd_, ZoneStart(z), info_.zone_size) != 0) {
      return Fail(errno, z, "reset of an unwritten closed zone");
    }
    return Status::OK();
  }

  Status ZoneOp(uint32_t first, uint32_t count, const char* op, zbd_zone_op kop, MachineOp fn) {
    SMR_RETURN_IF_ERROR(CheckZoneRange(info_, first, count, op));
    MutexLock lock(&mu_);
    SMR_RETURN_IF_ERROR(machine_->CheckZoneOp(first, count, op));
    for (uint32_t z = first; z < first + count; ++z) {
      if (zbd_zones_operation(fd_, kop, ZoneStart(z), info_.zone_size) != 0) {
        return Fail(errno, z, op);
      }
      const bool was_open = machine_->Info(z).is_open();
      std::vector<uint32_t> changed;
      (machine_.get()->*fn)(z, &changed);
      if (kop == ZBD_OP_CLOSE && was_open) SMR_RETURN_IF_ERROR(EmptyIfUnwritten(z));
    }
    return Status::OK();
  }

  const int fd_;
  const DeviceInfo info_;
  Mutex mu_;
  std::unique_ptr<ZoneStateMachine> machine_ SMR_PT_GUARDED_BY(mu_);
};

}  // namespace

Result<std::unique_ptr<ZonedDevice>> OpenLibzbdDevice(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::FromErrno(errno, path);
  if (!S_ISBLK(st.st_mode)) {
    return Status::InvalidArgument(path + ": not a block device (zbd: needs a zoned block "
                                   "device; use emu: for an emulated drive)");
  }
  if (zbd_device_is_zoned(path.c_str()) != 1) {
    return Status::InvalidArgument(path + ": not a zoned block device");
  }
  zbd_set_log_level(ZBD_LOG_NONE);
  zbd_info zi{};
  int fd = zbd_open(path.c_str(), O_RDWR | O_DIRECT | O_EXCL, &zi);
  if (fd < 0) return Status::FromErrno(errno, path + ": open");
  DeviceInfo info;
  info.path = path;
  info.model_name = std::string(zi.vendor_id, strnlen(zi.vendor_id, sizeof(zi.vendor_id)));
  info.model = zi.model == ZBD_DM_HOST_AWARE ? ZonedModel::kHostAware : ZonedModel::kHostManaged;
  info.nr_zones = zi.nr_zones;
  info.zone_size = zi.zone_size;
  info.logical_block_size = zi.lblock_size;
  info.physical_block_size = zi.pblock_size;
  // libzbd reports -1 for "unknown": treat as no known limit.
  info.max_open_zones = zi.max_nr_open_zones == UINT32_MAX ? 0 : zi.max_nr_open_zones;
  info.max_active_zones = zi.max_nr_active_zones == UINT32_MAX ? 0 : zi.max_nr_active_zones;
  info.rotational = ReadRotational(path);

  zbd_zone* raw = nullptr;
  unsigned int nr = 0;
  if (zbd_list_zones(fd, 0, 0, ZBD_RO_ALL, &raw, &nr) != 0) {
    int err = errno;
    zbd_close(fd);
    return Status::FromErrno(err, path + ": report zones");
  }
  std::unique_ptr<zbd_zone, FreeDeleter> owned(raw);
  std::vector<ZoneInfo> zones;
  for (unsigned int i = 0; i < nr; ++i) {
    zones.push_back(ToZoneInfo(raw[i]));
    if (zones.back().is_conventional()) {
      ++info.nr_conventional;
    } else if (info.zone_capacity == 0) {
      info.zone_capacity = zones.back().capacity;
    }
  }
  auto dev = std::make_unique<LibzbdZonedDevice>(fd, info);
  SMR_RETURN_IF_ERROR(dev->Init(zones).WithContext(path));
  return std::unique_ptr<ZonedDevice>(std::move(dev));
}

}  // namespace smr
