// ZoneStateMachine: the zone rules of zoned_device.h as one piece of pure logic, shared by
// the emulated and the libzbd backends so both admit and refuse exactly the same requests.
//
// Contract
//   Holds per-zone write pointer and condition plus open/active accounting and the
//   least-recently-written order of implicitly open zones. It performs no I/O: each call
//   says what changed through `changed` (zones whose state must be persisted by the
//   emulator) and `to_close` (zones the machine closed to make room — the libzbd backend
//   issues BLKCLOSEZONE for them before its own I/O). On error nothing changed.
//   Writes are two-phase: BeginWrite admits a write at the write pointer and marks the zone
//   busy; the caller transfers the data without holding its lock, then calls EndWrite.
//   Hybrid drives: the constructor also marks the CMR domain conventional; SetInactive
//   marks zones of an inactive domain (or a converting realm): Info reports kInactive
//   (wp = start), writes and zone operations fail with kIOError, and an inactive sequential
//   zone is empty, so it never counts against the open/active limits.
//
// Thread safety: not thread-safe; the owning backend guards it with its own mutex.
#pragma once

#include <cstdint>
#include <list>
#include <vector>

#include "common/status.h"
#include "device/zoned_device.h"

namespace smr {

class ZoneStateMachine {
 public:
  // All sequential zones start empty; call Restore to load persisted or reported state.
  explicit ZoneStateMachine(const DeviceInfo& info);
  ZoneStateMachine(const ZoneStateMachine&) = delete;
  ZoneStateMachine& operator=(const ZoneStateMachine&) = delete;

  // Sets a zone's state at load time. `wp` is relative to the zone start. Open conditions
  // are accepted as they are (the emulator passes kClosed for zones open before a crash);
  // kReadOnly and kOffline zones refuse writes and zone operations with kIOError.
  // Errors: kCorruption when the state is impossible (wp past capacity, misaligned, etc.).
  Status Restore(uint32_t zone, uint64_t wp, ZoneCondition cond);
  // Declares a zone conventional (real drives may have them anywhere; the constructor
  // marks the first info.nr_conventional zones and, on hybrid drives, the CMR domain).
  void MarkConventional(uint32_t zone);
  // Hybrid drives: makes a zone inactive or active again. A sequential zone comes out of
  // either change empty (write pointer at its start).
  // REQUIRES: a sequential zone is empty (kEmpty) or inactive, with no write in flight.
  void SetInactive(uint32_t zone, bool inactive);
  bool is_inactive(uint32_t zone) const { return inactive_[zone]; }

  ZoneInfo Info(uint32_t zone) const;
  uint32_t nr_open() const { return nr_open_; }
  uint32_t nr_active() const { return nr_active_; }

  // Admits a write of `len` bytes at device `offset` (alignment/range already checked)
  // to a sequential zone. On OK the zone is open and marked busy.
  Status BeginWrite(uint64_t offset, uint64_t len, std::vector<uint32_t>* changed,
                    std::vector<uint32_t>* to_close);
  // Completes an admitted write: advances the write pointer when `ok`. Adds the zone to
  // `changed`.
  void EndWrite(uint32_t zone, uint64_t len, bool ok, std::vector<uint32_t>* changed);

  // Checks a zone operation on [first, first+count) without changing anything: kIOError for
  // an inactive zone, kInvalidArgument for conventional zones, kIOError for a zone with a
  // write in flight or read-only/offline.
  Status CheckZoneOp(uint32_t first, uint32_t count, const char* op) const;
  // Apply one zone operation to one zone (after CheckZoneOp). Open may fail with
  // kTooManyOpenZones / kTooManyActiveZones.
  Status Open(uint32_t zone, std::vector<uint32_t>* changed, std::vector<uint32_t>* to_close);
  void Close(uint32_t zone, std::vector<uint32_t>* changed);
  void Finish(uint32_t zone, std::vector<uint32_t>* changed);
  void Reset(uint32_t zone, std::vector<uint32_t>* changed);

  // Persisted fields of a zone: wp relative to the zone start (for a full zone, the bytes
  // actually written before it filled or was finished) and the condition.
  uint64_t written(uint32_t zone) const { return zones_[zone].wp; }
  ZoneCondition condition(uint32_t zone) const { return zones_[zone].cond; }
  bool is_conventional(uint32_t zone) const { return conventional_[zone]; }

 private:
  struct Zone {
    uint64_t wp = 0;
    ZoneCondition cond = ZoneCondition::kEmpty;
    bool writing = false;
    std::list<uint32_t>::iterator lru_pos;  // valid when cond == kImplicitOpen
  };

  void SetCondition(uint32_t zone, ZoneCondition cond);
  Status ReserveOpen(uint32_t zone, std::vector<uint32_t>* changed,
                     std::vector<uint32_t>* to_close);

  const DeviceInfo info_;
  std::vector<Zone> zones_;
  std::vector<bool> conventional_;
  std::vector<bool> inactive_;
  std::list<uint32_t> implicit_lru_;  // front = least recently written
  uint32_t nr_open_ = 0;
  uint32_t nr_active_ = 0;
};

}  // namespace smr
