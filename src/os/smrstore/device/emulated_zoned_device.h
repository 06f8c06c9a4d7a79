// EmulatedZonedDevice: a host-managed zoned drive emulated in one sparse file.
//
// Contract
//   Follows every rule of zoned_device.h. The drive lives in a single file (layout and
//   encoding in emulated_format.h, described in doc/format.md): a superblock with the
//   geometry, a table of zone state slots, then the data area (sparse: unwritten zones use
//   no disk space).
//
// Crash consistency (process killed at any instant, e.g. kill -9)
//   Each sequential zone has two 32-byte state slots (A, B), each with a sequence number and
//   a crc32c. A state change writes the *older* slot with sequence+1 via one pwrite; open
//   picks the valid slot with the higher sequence. A Write first pwrites the data, then the
//   state slot. So after a crash at any instant:
//     - before the slot pwrite: the old write pointer stands; the new bytes lie past it and
//       are invisible (a later write at that write pointer overwrites them);
//     - after it: the new write pointer stands and the data under it is complete;
//     - a torn slot write fails its crc and the other slot (the previous state) is used.
//   Conventional zones have no state; their writes are plain pwrites.
//   Flush() fdatasyncs the file, so everything written before it survives an OS crash or
//   power cut. Between flushes the emulator promises nothing for an OS crash (the kernel
//   may write back a state slot before the data under it); the loss of unflushed writes at a
//   power cut is modelled deterministically by FaultInjectionDevice instead.
//
// Hybrid drives (EmulatedGeometry::nr_realms > 0; the rules are in zoned_device.h):
//   Zone layout: [0, nr_conventional) permanent conventional zones, then the CMR domain
//   (nr_realms * cmr_zones_per_realm conventional zones), then the SMR domain
//   (nr_realms * smr_zones_per_realm sequential zones); realm r owns the r-th group of each.
//   The file keeps the data area of both domains (sparse: an inactive domain's area is
//   punched out) and, in version 2 of the format, a realm slot table: two 32-byte slots per
//   realm (seq + crc32c, written like the zone slots) holding the realm's active domain.
//   ActivateRealms converts one realm after the other; per realm:
//     the realm's zones of both domains turn inactive (new I/O to them fails with kIOError)
//     and the conversion waits for I/O already admitted to them to finish; then
//     step 1: the new domain's area of the file is punched out and, for SMR, its zones'
//             state slots are written empty; fdatasync;
//     the conversion time (conversion_ms of wall time) passes, without the device mutex:
//             I/O to other realms proceeds;
//     step 2: the realm slot is written with the new domain (the commit point); fdatasync;
//     step 3: the old domain's area is punched out (its data is destroyed).
//   A process killed at any instant therefore reopens the realm either in its old domain
//   with its data intact (before step 2) or in the new one, empty (after it); a torn realm
//   slot fails its crc and the other slot (the previous domain) is used. A completed
//   conversion has been fdatasync'ed: it survives a power cut too. An I/O error before
//   step 2 leaves the realm in its old domain; a failed fdatasync after it leaves the realm
//   in the new domain, the old area not punched yet, and ActivateRealms fails with kIOError.
//   SetConversionStopAfterStepForTest(k) makes ActivateRealms return kIOError right after
//   step k of its first conversion (k = 0: before step 1), leaving the rest undone, like a
//   kill -9 at that point; the object must then be discarded and the file reopened.
//
// Zone rules (write pointer, capacity, open/active limits) come from ZoneStateMachine, the
// same code the libzbd backend uses.
// The file is the drive and the process is the host: when the process exits or crashes,
// the drive stays powered, so Open() of an existing file restores every zone's condition,
// open zones included (implicitly open ones in zone order for the close-on-limit rule).
// Only a simulated power cut (FaultInjectionDevice::PowerCut) closes open zones.
//
// Timing model (optional, off by default; the rule is HeadModel's, device/head_model.h, the
// same code the VM's nbdkit filter charges with): when seq_mbps > 0, each I/O takes
//   len / seq_mbps, plus gap / seq_mbps if it starts up to kSkipWindow bytes after where
//   the previous I/O ended (the platter turns past the gap), else plus seek_ms if it does
//   not start exactly there,
// of device time; I/Os queue on one simulated head, and the caller sleeps until its I/O
// would have completed. A sequential read issued after the head went idle finds up to
// kReadAhead bytes already read ahead into the drive's cache (as HDDs do). Turn it on to make throughput experiments resemble a disk. With it
// on, buffered writes also start the file's writeback at once (sync_file_range), so Flush
// costs what a drive's cache flush after streaming writes costs: little (direct writes,
// below, leave nothing to write back). HeadStats() gives the model's counters (null
// without it); the stats document shows them per drive (`drives[].head`).
//
// Dropped pieces (TimingModel::drop_piece_bytes > 0; spec key drop_kib): a scale bench's
//   mode, never a drive's. Every rule above holds — write pointers advance, zones fill,
//   finish and reset as always — but a piece of a write that is at least drop_piece_bytes
//   long is not written to the file: the file stays sparse there and a read of those
//   bytes returns what the file holds (zeros in a zone never written or reset since).
//   With the store's records (a 4 KiB header block, the payload's whole blocks as one
//   piece, a 4 KiB tail block) and drop_kib=128, headers, tails, superblock slots (64 KiB)
//   and smaller records are kept and payloads of 128 KiB or more dropped: mount, metadata
//   and zone accounting behave as on a full drive of that size while the host's disk holds
//   a fraction of it. Reads of a dropped payload fail the
//   store's crc check (kCorruption): nothing that reads object data can run on it.
//
// Direct writes (TimingModel::direct_writes; spec key direct=1): a behaviour given at open,
//   not stored in the file. The data area's writes (sequential and conventional zones) go
//   through a second descriptor opened with O_DIRECT, as a real drive's libzbd path does:
//   no copy into the page cache, no dirty pages left for Flush to write back. A piece of a
//   WriteV whose memory address or length is not aligned for O_DIRECT (the file system's
//   alignment, statx STATX_DIOALIGN) is gathered, with the unaligned pieces next to it,
//   into an aligned buffer; aligned pieces go as they are, in one pwritev. A run whose file
//   offset or length the file system cannot take direct (only with dropped pieces) is
//   written buffered. State slots, the superblock and realm conversions stay buffered
//   (small writes; Flush's fdatasync makes them durable as before). Reads stay buffered
//   by default: the kernel keeps them coherent with completed direct writes (it drops the
//   cached pages of the range written), the store checks every record's crc, and the page
//   cache is the only cache of object data the store has. With direct_reads (spec key
//   direct_reads=1, given with direct=1) data reads go through the O_DIRECT descriptor as
//   well, as a zbd: drive's do: the enclosing aligned range into an aligned buffer, then
//   copied out (PreadDirect); nothing of the data area enters the page cache. Open fails with kNotSupported when the file
//   system takes no O_DIRECT (e.g. tmpfs on older kernels), kInvalidArgument when it needs
//   file offsets aligned coarser than the drive's logical block. Nothing else changes:
//   the crash rules above hold (data before its slot), and Flush is still what makes
//   writes survive a power cut (O_DIRECT leaves them in the disk's cache and the sparse
//   file's block allocations in the journal until fdatasync).
//
// Host page cache (HostCache): the mode of the data writes and the file's cached, dirty and
//   writeback bytes from cachestat(2) (Linux 6.5+; not measured where it is missing).
//
// Thread safety: all methods are thread-safe. A device-wide mutex guards zone state; it is
// held for the write-pointer check and for the update after the data pwrite, not during
// the data transfer, so I/O to different zones proceeds in parallel. A second Write to a
// zone whose previous Write has not completed fails with kIOError (not at the write
// pointer), as it would on a drive. The file is locked (flock, exclusive)
// while open: a second Open of the same file, from any process, fails with kBusy.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <sys/uio.h>

#include "common/result.h"
#include "common/thread_annotations.h"
#include "device/head_model.h"
#include "device/zone_state_machine.h"
#include "device/zoned_device.h"

namespace smr {

struct EmulatedGeometry {
  static constexpr uint64_t kMiB = 1ull << 20;
  static constexpr uint32_t kDefaultConventional = UINT32_MAX;  // "about 1 % of the zones",
                                                                // 2 on a hybrid drive
  static constexpr uint32_t kDefaultZones = UINT32_MAX;  // 64, or derived on a hybrid drive

  uint32_t nr_zones = kDefaultZones;
  uint64_t zone_size = 256 * kMiB;
  uint64_t zone_capacity = 0;  // 0 = zone_size (HM-SMR); less for ZNS-like zones
  uint32_t nr_conventional = kDefaultConventional;  // the first zones of the device
  uint32_t logical_block_size = 4096;
  uint32_t max_open_zones = 128;  // 0 = no limit
  uint32_t max_active_zones = 0;  // 0 = no limit

  // Hybrid drives (zoned_device.h, "Hybrid drives"); nr_realms = 0: not hybrid (the other
  // hybrid fields are then ignored and not stored).
  uint32_t nr_realms = 0;
  uint32_t cmr_zones_per_realm = 4;  // the CMR : SMR ratio 4 : 5, i.e. SMR holds 1.25x
  uint32_t smr_zones_per_realm = 5;
  uint32_t conversion_ms = 50;  // wall time one realm's conversion takes
  ZoneDomain initial_domain = ZoneDomain::kCmr;  // the domain of every realm at creation

  bool hybrid() const { return nr_realms > 0; }

  // Fills defaults (zone count, capacity, conventional count) and checks consistency:
  // zone_size a multiple of the block size, capacity <= size, conventional < nr_zones...
  // Hybrid drives: smr_zones_per_realm >= cmr_zones_per_realm >= 1, nr_conventional >= 2,
  // conversion_ms <= 600000, and nr_zones = nr_conventional + nr_realms * (cmr + smr) —
  // derived when left at kDefaultZones, else it must match (kInvalidArgument).
  Status Normalize();

 private:
  Status NormalizeHybrid();
};

struct TimingModel {
  // The rule itself is HeadModel's (device/head_model.h), shared with the VM's filter.
  static constexpr uint64_t kSkipWindow = HeadModel::kSkipWindow;
  static constexpr uint64_t kReadAhead = HeadModel::kReadAhead;
  double seq_mbps = 0;  // sequential bandwidth in MB/s (10^6 bytes); 0 = timing model off
  double seek_ms = 0;   // positioning time added to an I/O that is not sequential
  // Not timing, but like it a behaviour given at open and not stored in the file: pieces of
  // a write (WriteV's pieces; Write's one buffer) of at least this many bytes are not
  // stored (0 = off; see "Dropped pieces" above).
  uint64_t drop_piece_bytes = 0;
  // Likewise given at open: data writes with O_DIRECT (see "Direct writes" above).
  bool direct_writes = false;
  // And data reads with O_DIRECT too (needs direct_writes; see "Direct writes" above).
  bool direct_reads = false;
  bool enabled() const { return seq_mbps > 0; }
};

class EmulatedZonedDevice final : public ZonedDevice {
 public:
  // Creates a new drive file at `path`. Errors: kAlreadyExists if the path exists,
  // kInvalidArgument for a bad geometry, kIOError/kNotFound from the file system.
  // Nothing is left behind on failure.
  static Result<std::unique_ptr<EmulatedZonedDevice>> Create(const std::string& path,
                                                             EmulatedGeometry geometry,
                                                             TimingModel timing = {});
  // Opens an existing drive file. Errors: kNotFound (no file), kCorruption (not an
  // emulated drive, bad superblock, unknown version), kBusy (open elsewhere).
  static Result<std::unique_ptr<EmulatedZonedDevice>> Open(const std::string& path,
                                                           TimingModel timing = {});
  ~EmulatedZonedDevice() override;

  const DeviceInfo& info() const override { return info_; }
  Result<std::vector<ZoneInfo>> ReportZones(uint32_t first, uint32_t count) override;
  Status OpenZones(uint32_t first, uint32_t count) override;
  Status CloseZones(uint32_t first, uint32_t count) override;
  Status FinishZones(uint32_t first, uint32_t count) override;
  Status ResetZones(uint32_t first, uint32_t count) override;
  Status Read(uint64_t offset, void* buf, size_t len) override;
  Status ReadV(uint64_t offset, const std::vector<ReadPiece>& pieces) override;
  Status Write(uint64_t offset, const void* buf, size_t len) override;
  Status WriteV(uint64_t offset, const std::vector<std::string_view>& pieces) override;
  Status Flush() override;
  HostCacheUse HostCache() const override;
  std::optional<HeadModel::Stats> HeadStats() const override;
  Result<std::vector<RealmInfo>> ReportRealms(uint32_t first, uint32_t count) override;
  Status ActivateRealms(uint32_t first, uint32_t count, ZoneDomain domain) override;

  const EmulatedGeometry& geometry() const { return geometry_; }
  const TimingModel& timing() const { return timing_; }

  // Test hook (see "Hybrid drives" above): the next conversion stops right after step
  // `step` (0..3) and ActivateRealms returns kIOError (one-shot); -1 turns the hook off.
  void SetConversionStopAfterStepForTest(int step) { stop_after_step_ = step; }

 private:
  struct SlotCursor {
    uint64_t seq = 0;       // sequence of the newest valid slot
    uint8_t next_slot = 0;  // slot to write next (the older one)
  };
  struct Realm {
    ZoneDomain domain = ZoneDomain::kCmr;  // the committed active domain
    bool converting = false;               // all its zones refuse I/O meanwhile
    uint32_t inflight = 0;                 // admitted Reads/conventional Writes running
    SlotCursor slot;
  };

  EmulatedZonedDevice(std::string path, int fd, EmulatedGeometry geometry, TimingModel timing);
  Status LoadState();
  // Opens dio_fd_ and learns the file system's O_DIRECT alignment (direct writes).
  Status OpenDirect();
  Status LoadRealms() SMR_REQUIRES(mu_);
  // kNotEmpty / kIOError when realm r cannot leave its domain for `domain` now.
  Status CheckConvertible(uint32_t r, ZoneDomain domain) const SMR_REQUIRES(mu_);
  Status ConvertRealm(uint32_t r, ZoneDomain domain);
  // Marks the zones of realm r's `domain` inactive (or active again).
  void SetDomainInactive(uint32_t r, ZoneDomain domain, bool inactive) SMR_REQUIRES(mu_);
  // Makes the file area of realm r's zones in `domain` read as zeros: punched out, or
  // zero-filled (CMR) where the file system cannot punch holes.
  Status ClearDomainArea(uint32_t r, ZoneDomain domain);
  // Writes an empty state slot for each of realm r's SMR zones.
  Status PersistEmptySmrZones(uint32_t r) SMR_REQUIRES(mu_);
  Status PersistRealm(uint32_t r, ZoneDomain domain) SMR_REQUIRES(mu_);
  // Admits I/O to zones [first, last]: kIOError for an inactive zone; counts it in flight in
  // the zones' realms (appended to `realms`, for EndRealmIo).
  Status BeginRealmIo(uint32_t first, uint32_t last, const char* op,
                      std::vector<uint32_t>* realms) SMR_REQUIRES(mu_);
  void EndRealmIo(const std::vector<uint32_t>& realms);
  std::string InactiveZoneError(uint32_t zone, const char* op) const SMR_REQUIRES(mu_);
  // Writes the state slots of `zones` (deduplicated), in order.
  Status PersistZones(const std::vector<uint32_t>& zones) SMR_REQUIRES(mu_);
  using ZoneOpFn = void (ZoneStateMachine::*)(uint32_t, std::vector<uint32_t>*);
  Status ApplyZoneOp(uint32_t first, uint32_t count, const char* op, ZoneOpFn fn);
  Status WriteConventional(uint64_t offset, const std::vector<std::string_view>& pieces,
                           size_t len);
  // Full-length pread/pwrite at a *file* offset (data_offset_ + device offset for data).
  Status PreadFull(uint64_t file_offset, void* buf, size_t len) const;
  // `len` bytes from `file_offset` into `slices` (their lengths sum to `len`) through
  // dio_fd_ (direct_reads).
  Status PreadDirect(uint64_t file_offset, size_t len,
                     const std::vector<std::pair<char*, size_t>>& slices) const;
  Status PwriteFull(uint64_t file_offset, const void* buf, size_t len);
  // The pieces back to back from `file_offset`: pwritev, IOV_MAX pieces at a time (pieces
  // the drop rule drops are skipped, their range left as it is).
  Status PwritevFull(uint64_t file_offset, const std::vector<std::string_view>& pieces);
  // One run of pieces back to back from `file_offset`: direct (PwritevDirect) when direct
  // writes are on and the run's offset and length suit O_DIRECT, else buffered.
  Status WriteRun(uint64_t file_offset, const std::vector<std::string_view>& run);
  // The run through dio_fd_ in one pwritev: pieces aligned in memory and length as they
  // are, the others gathered into aligned segments of a bounce buffer.
  Status PwritevDirect(uint64_t file_offset, const std::vector<std::string_view>& run);
  // One run of iovecs from `file_offset` through `fd`, short writes resumed (consumes
  // `iov`).
  Status PwritevRun(int fd, uint64_t file_offset, std::vector<struct iovec>* iov);
  // Makes [zone start + from, zone end) read as zeros and frees its space.
  void PunchZoneTail(uint32_t zone, uint64_t from);
  void ChargeTime(uint64_t offset, size_t len, bool read);

  const std::string path_;
  const int fd_;
  int dio_fd_ = -1;                // O_DIRECT descriptor of the file (direct=1 only)
  uint32_t dio_mem_align_ = 4096;  // O_DIRECT alignment of buffers' addresses
  uint32_t dio_off_align_ = 4096;  // ... of file offsets and lengths
  const EmulatedGeometry geometry_;
  DeviceInfo info_;
  TimingModel timing_;
  uint64_t data_offset_ = 0;   // file offset of device byte 0
  uint64_t state_offset_ = 0;  // file offset of zone slot table
  uint64_t realm_offset_ = 0;  // file offset of the realm slot table (hybrid drives)
  std::atomic<int> stop_after_step_{-1};

  mutable Mutex mu_;
  std::unique_ptr<ZoneStateMachine> zones_ SMR_PT_GUARDED_BY(mu_);
  std::vector<SlotCursor> slots_ SMR_GUARDED_BY(mu_);
  std::vector<Realm> realms_ SMR_GUARDED_BY(mu_);

  std::unique_ptr<HeadModel> head_;  // the timing model; null when it is off
};

}  // namespace smr
