// ZonedDevice: one zoned block device (HM-SMR disk, ZNS namespace, or an emulation of one).
//
// Contract
//   A device is an array of `nr_zones` zones of `zone_size` bytes each. A zone is either
//   conventional (random writes anywhere, like a CMR disk; condition kNotWritePointer) or
//   sequential-write-required (written only at its write pointer, reset to rewrite).
//   Every backend (emulated_zoned_device.h, libzbd_zoned_device.h, fault_injection_device.h)
//   follows the rules below exactly; device_conformance_test.cc checks them on each backend.
//
//   Rules, as the Linux zoned block layer and a host-managed drive apply them:
//   * Offsets and lengths of Read/Write are multiples of the logical block size, else
//     kInvalidArgument; I/O beyond the device's end is kInvalidArgument.
//   * A write to a sequential zone must start exactly at the zone's write pointer (else
//     kIOError, the kernel's EIO "unaligned write"), must not cross the zone's end (else
//     kIOError) and must fit in the zone's remaining *capacity* (else kNoSpace). A write
//     that reaches the capacity makes the zone kFull.
//   * A write to an empty or closed zone opens it implicitly. The number of open zones
//     (implicit + explicit) is bounded by max_open_zones; when the bound is reached, the
//     device first closes an implicitly opened zone (least recently written) to make room,
//     as null_blk and NVMe ZNS do. If all open zones were opened explicitly, the write or
//     the explicit open fails with kTooManyOpenZones.
//   * Active zones (open + closed) are bounded by max_active_zones (ZNS); a transition that
//     would exceed it fails with kTooManyActiveZones. 0 means "no limit" for both bounds.
//   * Reads may cross zone boundaries. Blocks past a zone's write pointer read as zeros, as
//     null_blk, NVMe ZNS (deallocated blocks) and SMR drives with URSWRZ do; no error.
//   * Conventional zones accept writes anywhere in them (also spanning several adjacent
//     conventional zones) and reject zone operations with kInvalidArgument.
//   * kReadOnly zones accept reads only (writes and zone operations: kIOError); kOffline
//     zones accept nothing (kIOError). Only fault injection produces them here.
//   * Zone operations: Open (-> kExplicitOpen), Close (open -> kClosed, or kEmpty when
//     nothing was written), Finish (-> kFull, write pointer = zone end), Reset (-> kEmpty,
//     write pointer = zone start). Reset/Finish of an already empty/full zone succeed.
//     A FULL zone reports write pointer = start + length (as the kernel does).
//   * Durability: a completed Write is visible to every later Read, also after the process
//     crashes. Only Flush() makes it survive a power cut (the fault-injection wrapper models
//     the loss of unflushed writes; see there).
//
//   Hybrid drives (CMR<->SMR convertible media; the model of T10 ZBC-2 zone domains and
//   realms). Neither the Linux kernel, QEMU nor Debian's libzbc models zone domains, so in
//   this project hybrid drives exist only in the emulator (emulated_zoned_device.h) and the
//   wrappers around it; the libzbd backend reports "not hybrid".
//   * A hybrid drive's zone index space holds, in order: nr_conventional permanent
//     conventional zones (never converted), the CMR domain (conventional zones) and the SMR
//     domain (sequential zones). The media under the two domains is the same: it is cut into
//     nr_realms realms; realm r owns cmr_zones_per_realm zones of the CMR domain and
//     smr_zones_per_realm zones of the SMR domain (SMR holds more: 5:4 = 1.25x by default),
//     and is *active* in exactly one domain at a time.
//   * Zones of a realm's inactive domain report condition kInactive; Read, Write and zone
//     operations touching them fail with kIOError and change nothing.
//   * ActivateRealms(first, count, domain) converts realms into `domain`. Every sequential
//     zone of a realm leaving the SMR domain must be empty, else kNotEmpty and nothing
//     changed (the drive cannot know what a CMR zone holds: leaving CMR destroys its data,
//     the host moves what it needs first). Zones of the newly active domain come up empty
//     (SMR: kEmpty; CMR: reading zeros). A realm already in `domain` is left as it is.
//     Each realm converted takes the drive's conversion time; I/O to other realms proceeds
//     meanwhile, while the converting realm's zones (both domains) report kInactive and
//     refuse I/O and zone operations with kIOError, as does a second ActivateRealms of it. Per realm the conversion is atomic at a crash or power cut: afterwards the
//     realm is either in its old domain with its data intact, or in the new one, empty.
//     Open/active zone limits count only active sequential zones.
//
// Thread safety: all methods may be called concurrently from any thread. Writes to one
// zone are serialized by the caller's ordering (two concurrent writes to the same zone race
// for the write pointer exactly as on a real device: one of them fails).
// Ownership: a device owns its file descriptors; destroying it closes them (no flush).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/status.h"
#include "device/head_model.h"

namespace smr {

enum class ZoneType : uint8_t {
  kConventional = 1,    // random-write zone (CMR)
  kSequentialRequired,  // host-managed sequential zone
};

enum class ZoneCondition : uint8_t {
  kNotWritePointer = 0,  // conventional zones
  kEmpty,
  kImplicitOpen,
  kExplicitOpen,
  kClosed,
  kFull,
  kReadOnly,
  kOffline,
  kInactive,  // hybrid drives: the zone's realm is active in the other domain
};

// Hybrid drives: the two zone domains a realm can be active in.
enum class ZoneDomain : uint8_t {
  kCmr = 0,  // conventional zones: random writes, less capacity
  kSmr = 1,  // sequential-write-required zones: more capacity
};
const char* ZoneDomainName(ZoneDomain domain);  // "cmr" / "smr"

enum class ZonedModel : uint8_t {
  kHostManaged = 1,
  kHostAware,
};

const char* ZoneTypeName(ZoneType type);            // "conventional" / "seq-write-required"
const char* ZoneConditionName(ZoneCondition cond);  // "empty", "implicit-open", ...
const char* ZonedModelName(ZonedModel model);       // "host-managed" / "host-aware"

struct ZoneInfo {
  uint64_t start = 0;     // byte offset of the zone on the device
  uint64_t length = 0;    // zone size in bytes
  uint64_t capacity = 0;  // writable bytes from start (<= length)
  uint64_t wp = 0;        // write pointer (byte offset on the device)
  ZoneType type = ZoneType::kSequentialRequired;
  ZoneCondition cond = ZoneCondition::kEmpty;

  bool is_conventional() const { return type == ZoneType::kConventional; }
  // Bytes written from the zone start: its capacity when full, else wp - start.
  uint64_t written_bytes() const { return cond == ZoneCondition::kFull ? capacity : wp - start; }
  bool is_open() const {
    return cond == ZoneCondition::kImplicitOpen || cond == ZoneCondition::kExplicitOpen;
  }
  bool is_active() const { return is_open() || cond == ZoneCondition::kClosed; }
  // Bytes that can still be written at the write pointer (0 for conventional zones).
  uint64_t remaining() const;
  bool operator==(const ZoneInfo& o) const;
};

struct DeviceInfo {
  std::string path;   // what the device was opened from (spec or /dev node)
  std::string model_name;  // vendor/model string, "smrstore-emulated" for the emulator
  ZonedModel model = ZonedModel::kHostManaged;
  uint32_t nr_zones = 0;
  uint64_t zone_size = 0;
  uint64_t zone_capacity = 0;  // capacity of sequential zones (all equal here)
  uint32_t nr_conventional = 0;
  uint32_t logical_block_size = 4096;
  uint32_t physical_block_size = 4096;
  uint32_t max_open_zones = 0;    // 0 = no limit
  uint32_t max_active_zones = 0;  // 0 = no limit
  // A head that seeks (HDD, HM-SMR): the kernel's queue/rotational for a block device; the
  // emulator when its HDD timing model is on. Placement avoids seeks when it is set.
  bool rotational = false;

  // Hybrid drives only (nr_realms > 0); see the contract above. Zone index ranges:
  // CMR domain [cmr_first_zone, + nr_realms * cmr_zones_per_realm),
  // SMR domain [smr_first_zone, + nr_realms * smr_zones_per_realm).
  uint32_t nr_realms = 0;
  uint32_t cmr_zones_per_realm = 0;
  uint32_t smr_zones_per_realm = 0;
  uint32_t cmr_first_zone = 0;
  uint32_t smr_first_zone = 0;
  uint32_t conversion_ms = 0;  // time one realm's conversion takes

  bool hybrid() const { return nr_realms > 0; }
  // Index space of all zones (both domains); the media holds less on a hybrid drive.
  uint64_t capacity_bytes() const { return static_cast<uint64_t>(nr_zones) * zone_size; }
};

// One realm of a hybrid drive (ReportRealms).
struct RealmInfo {
  uint32_t realm = 0;
  ZoneDomain domain = ZoneDomain::kCmr;  // the active domain
  uint32_t cmr_first = 0;                // its zones in the CMR domain
  uint32_t cmr_count = 0;
  uint32_t smr_first = 0;                // its zones in the SMR domain
  uint32_t smr_count = 0;

  uint32_t active_first() const { return domain == ZoneDomain::kCmr ? cmr_first : smr_first; }
  uint32_t active_count() const { return domain == ZoneDomain::kCmr ? cmr_count : smr_count; }
  bool operator==(const RealmInfo& o) const;
};

class ZonedDevice {
 public:
  ZonedDevice() = default;
  ZonedDevice(const ZonedDevice&) = delete;
  ZonedDevice& operator=(const ZonedDevice&) = delete;
  virtual ~ZonedDevice() = default;

  virtual const DeviceInfo& info() const = 0;

  // Zones [first, first + count) clipped to the device; count 0 means "to the end".
  // Errors: kInvalidArgument if first >= nr_zones; kIOError if the report fails.
  virtual Result<std::vector<ZoneInfo>> ReportZones(uint32_t first = 0, uint32_t count = 0) = 0;

  // Zone operations on zones [first, first + count). Each zone must be sequential
  // (kInvalidArgument otherwise; nothing changed). Errors: kInvalidArgument (range),
  // kIOError (zone offline/read-only, device failure), kTooManyOpenZones /
  // kTooManyActiveZones (Open only). A failure part-way leaves earlier zones changed, as
  // the kernel's zone-management ioctl does.
  virtual Status OpenZones(uint32_t first, uint32_t count = 1) = 0;
  virtual Status CloseZones(uint32_t first, uint32_t count = 1) = 0;
  virtual Status FinishZones(uint32_t first, uint32_t count = 1) = 0;
  virtual Status ResetZones(uint32_t first, uint32_t count = 1) = 0;

  // Reads `len` bytes at byte `offset` into `buf` (any alignment of `buf` works; a buffer
  // aligned to the logical block size avoids a copy on O_DIRECT backends).
  // Errors: kInvalidArgument (alignment, range), kIOError (media error, offline zone).
  virtual Status Read(uint64_t offset, void* buf, size_t len) = 0;

  // Reads the device bytes [offset, offset + the pieces' total length) into `pieces`, in
  // order (a gather of one contiguous range, e.g. several records and the headers between
  // them): one device read where the backend can — the emulator one preadv, libzbd one
  // preadv when every piece's buffer and length are aligned to the logical block size (else
  // one read through an aligned buffer). The default reads into one buffer with Read and
  // copies out, so wrappers that override Read (the fault injector) see one Read. Same
  // rules and errors as Read; on an error the pieces' contents are unspecified. Empty
  // `pieces` (or all of length 0): nothing.
  struct ReadPiece {
    char* buf = nullptr;
    size_t len = 0;
  };
  virtual Status ReadV(uint64_t offset, const std::vector<ReadPiece>& pieces);

  // Writes `len` bytes from `buf` at byte `offset`, following the rules above.
  // Errors: kInvalidArgument, kIOError, kNoSpace, kTooManyOpenZones, kTooManyActiveZones.
  // On any error nothing was written and no zone state changed.
  virtual Status Write(uint64_t offset, const void* buf, size_t len) = 0;

  // Writes `pieces` (any lengths) back to back from byte `offset`: exactly one Write of
  // their concatenation (same rules and errors; on an error nothing was written). The
  // emulator issues it as one pwritev without copying, libzbd as one write through an
  // aligned buffer; the default concatenates and calls Write once (so wrappers that
  // override Write, like the fault injector, see one write). Empty `pieces`: nothing.
  virtual Status WriteV(uint64_t offset, const std::vector<std::string_view>& pieces);

  // Makes every completed write durable (survives a power cut). Errors: kIOError.
  // Flushes of different devices may run at the same time (the store flushes the drives a
  // commit group touched in parallel).
  virtual Status Flush() = 0;

  // What the host's page cache holds for this device, for stats: how data writes reach the
  // device (`mode`: "direct" — O_DIRECT, no page cache; "buffered" — through the page
  // cache; "" — the backend does not say) and, when `measured`, the backing file's bytes in
  // the page cache now (cached, of which dirty and under writeback). Emulated drives
  // measure with cachestat(2) where the kernel has it; libzbd reports "direct", unmeasured;
  // wrappers report their base's. The default: "", unmeasured. Never fails; any thread.
  struct HostCacheUse {
    std::string mode;
    bool measured = false;
    uint64_t cached_bytes = 0;
    uint64_t dirty_bytes = 0;
    uint64_t writeback_bytes = 0;
  };
  virtual HostCacheUse HostCache() const { return {}; }

  // The drive's timing model's counters (HeadModel::Stats: I/Os, bytes, reads, sequential /
  // skip / seek classification, device time) when the drive runs one (an emulated drive
  // with `mbps=`), else nullopt (the default; wrappers report their base's). Any thread.
  virtual std::optional<HeadModel::Stats> HeadStats() const { return std::nullopt; }

  // Hybrid drives (see the contract). Realms [first, first + count) clipped to the drive;
  // count 0 means "to the end". Errors: kNotSupported (not a hybrid drive; the default),
  // kInvalidArgument (first >= nr_realms), kIOError.
  virtual Result<std::vector<RealmInfo>> ReportRealms(uint32_t first = 0, uint32_t count = 0);
  // Converts realms [first, first + count) into `domain`. Errors: kNotSupported (the
  // default), kInvalidArgument (range), kNotEmpty (a sequential zone leaving SMR is not
  // empty; nothing changed), kIOError (a zone of the realm offline/read-only, device
  // failure, the realm is converting already). Realms are converted in order; a failure
  // part-way leaves earlier realms converted.
  virtual Status ActivateRealms(uint32_t first, uint32_t count, ZoneDomain domain);

  // Convenience: the zone that holds byte `offset` (REQUIRES: offset < capacity_bytes()).
  uint32_t ZoneIndexOf(uint64_t offset) const {
    return static_cast<uint32_t>(offset / info().zone_size);
  }
  uint64_t ZoneStart(uint32_t zone) const { return zone * info().zone_size; }
};

// Shared argument checks, so every backend rejects bad input with the same code and text.
// Checks logical-block alignment of offset and len, len > 0 and the device range.
Status CheckIoRange(const DeviceInfo& info, uint64_t offset, size_t len, const char* op);

// For backends' ReadV: the buffers of `pieces` that hold bytes [from, from + len) of the
// range they gather (from + len must not pass their total length).
std::vector<std::pair<char*, size_t>> ReadPieceSlices(
    const std::vector<ZonedDevice::ReadPiece>& pieces, size_t from, size_t len);

// preadv(2) of `slices` at byte `offset` of `fd`, whole (EINTR and short reads resumed;
// reaching the end of the file is kIOError). `what` names the file in errors.
Status PreadvFull(int fd, uint64_t offset, const std::vector<std::pair<char*, size_t>>& slices,
                  const std::string& what);
// Checks first < nr_zones and first + count <= nr_zones (count 0 is invalid).
Status CheckZoneRange(const DeviceInfo& info, uint32_t first, uint32_t count, const char* op);
// Hybrid drives: kNotSupported unless info.hybrid(); then first < nr_realms and
// first + count <= nr_realms (count 0 is invalid), else kInvalidArgument.
Status CheckRealmRange(const DeviceInfo& info, uint32_t first, uint32_t count, const char* op);
// The realm zone `zone` belongs to and its domain; nullopt for permanent conventional
// zones and on drives that are not hybrid.
struct ZoneRealm {
  uint32_t realm = 0;
  ZoneDomain domain = ZoneDomain::kCmr;
};
std::optional<ZoneRealm> RealmOfZone(const DeviceInfo& info, uint32_t zone);
// RealmInfo of realm `realm` from the geometry (its domain left kCmr).
RealmInfo RealmGeometry(const DeviceInfo& info, uint32_t realm);

}  // namespace smr
