#include "device/zoned_device.h"

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
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
    case ZoneCondition::kInactive:
      return "inactive";
  }
  return "unknown";
}

const char* ZoneDomainName(ZoneDomain domain) {
  switch (domain) {
    case ZoneDomain::kCmr:
      return "cmr";
    case ZoneDomain::kSmr:
      return "smr";
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

bool RealmInfo::operator==(const RealmInfo& o) const {
  return realm == o.realm && domain == o.domain && cmr_first == o.cmr_first &&
         cmr_count == o.cmr_count && smr_first == o.smr_first && smr_count == o.smr_count;
}

Result<std::vector<RealmInfo>> ZonedDevice::ReportRealms(uint32_t, uint32_t) {
  return Status::NotSupported(info().path + ": not a hybrid drive (no zone realms)");
}

Status ZonedDevice::WriteV(uint64_t offset, const std::vector<std::string_view>& pieces) {
  if (pieces.empty()) return Status::OK();
  if (pieces.size() == 1) return Write(offset, pieces[0].data(), pieces[0].size());
  std::string joined;
  size_t len = 0;
  for (std::string_view piece : pieces) len += piece.size();
  joined.reserve(len);
  for (std::string_view piece : pieces) joined.append(piece);
  return Write(offset, joined.data(), joined.size());
}

Status ZonedDevice::ReadV(uint64_t offset, const std::vector<ReadPiece>& pieces) {
  size_t len = 0;
  for (const ReadPiece& piece : pieces) len += piece.len;
  if (len == 0) return Status::OK();
  if (pieces.size() == 1) return Read(offset, pieces[0].buf, len);
  std::string joined(len, '\0');
  SMR_RETURN_IF_ERROR(Read(offset, joined.data(), len));
  size_t at = 0;
  for (const ReadPiece& piece : pieces) {
    std::memcpy(piece.buf, joined.data() + at, piece.len);
    at += piece.len;
  }
  return Status::OK();
}

Status ZonedDevice::ActivateRealms(uint32_t, uint32_t, ZoneDomain) {
  return Status::NotSupported(info().path + ": not a hybrid drive (no zone realms)");
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

Status CheckRealmRange(const DeviceInfo& info, uint32_t first, uint32_t count, const char* op) {
  if (!info.hybrid()) {
    return Status::NotSupported(std::string(op) + ": " + info.path +
                                " is not a hybrid drive (no zone realms)");
  }
  if (count == 0 || first >= info.nr_realms || count > info.nr_realms - first) {
    return Status::InvalidArgument(std::string(op) + ": realm range [" +
                                   std::to_string(first) + ", +" + std::to_string(count) +
                                   ") outside 0.." + std::to_string(info.nr_realms));
  }
  return Status::OK();
}

std::optional<ZoneRealm> RealmOfZone(const DeviceInfo& info, uint32_t zone) {
  if (!info.hybrid()) return std::nullopt;
  const uint64_t cmr_end =
      info.cmr_first_zone + uint64_t{info.nr_realms} * info.cmr_zones_per_realm;
  const uint64_t smr_end =
      info.smr_first_zone + uint64_t{info.nr_realms} * info.smr_zones_per_realm;
  if (zone >= info.cmr_first_zone && zone < cmr_end) {
    return ZoneRealm{(zone - info.cmr_first_zone) / info.cmr_zones_per_realm, ZoneDomain::kCmr};
  }
  if (zone >= info.smr_first_zone && zone < smr_end) {
    return ZoneRealm{(zone - info.smr_first_zone) / info.smr_zones_per_realm, ZoneDomain::kSmr};
  }
  return std::nullopt;
}

RealmInfo RealmGeometry(const DeviceInfo& info, uint32_t realm) {
  RealmInfo r;
  r.realm = realm;
  r.cmr_first = info.cmr_first_zone + realm * info.cmr_zones_per_realm;
  r.cmr_count = info.cmr_zones_per_realm;
  r.smr_first = info.smr_first_zone + realm * info.smr_zones_per_realm;
  r.smr_count = info.smr_zones_per_realm;
  return r;
}

std::vector<std::pair<char*, size_t>> ReadPieceSlices(
    const std::vector<ZonedDevice::ReadPiece>& pieces, size_t from, size_t len) {
  std::vector<std::pair<char*, size_t>> out;
  size_t at = 0;  // offset of the current piece in the gathered range
  for (const ZonedDevice::ReadPiece& piece : pieces) {
    if (len == 0) break;
    const size_t end = at + piece.len;
    if (end > from && piece.len > 0) {
      const size_t skip = from - at;  // from >= at here
      const size_t n = std::min(len, piece.len - skip);
      out.emplace_back(piece.buf + skip, n);
      from += n;
      len -= n;
    }
    at = end;
  }
  return out;
}

Status PreadvFull(int fd, uint64_t offset, const std::vector<std::pair<char*, size_t>>& slices,
                  const std::string& what) {
  std::vector<struct iovec> iov;
  iov.reserve(slices.size());
  for (const auto& [buf, n] : slices) {
    if (n > 0) iov.push_back({buf, n});
  }
  size_t at = 0;  // first iovec not fully read
  while (at < iov.size()) {
    const int n_iov = static_cast<int>(std::min<size_t>(iov.size() - at, IOV_MAX));
    const ssize_t n = ::preadv(fd, iov.data() + at, n_iov, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, what + ": read");
    }
    if (n == 0) return Status::IOError(what + ": short read at " + std::to_string(offset));
    offset += static_cast<uint64_t>(n);
    auto left = static_cast<size_t>(n);
    while (at < iov.size() && left >= iov[at].iov_len) left -= iov[at++].iov_len;
    if (left > 0) {  // a short read inside iov[at]
      iov[at].iov_base = static_cast<char*>(iov[at].iov_base) + left;
      iov[at].iov_len -= left;
    }
  }
  return Status::OK();
}

}  // namespace smr
