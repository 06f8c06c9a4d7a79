// FaultInjectionDevice: wraps any ZonedDevice and injects the failures real drives have.
//
// Contract
//   With no fault armed it is transparent: every call is forwarded and the wrapper passes
//   the device conformance suite. Faults:
//   * FailNthRead(n) / FailNthWrite(n): the n-th Read/Write from now (1 = the next one)
//     fails with kIOError and has no effect (FailNthActivate: see hybrid drives below). With `sticky`, it and every later one fail
//     until ClearFaults().
//   * CorruptReads(offset, len): every Read overlapping [offset, offset+len) returns data
//     with one bit flipped in each overlapping logical block (the device itself is
//     unchanged), like a media error that escaped the drive's ECC.
//   * SetZoneFault(zone, kReadOnly | kOffline): the zone is reported in that condition;
//     writes and zone operations on it fail with kIOError; reads of an offline zone fail
//     with kIOError. ClearZoneFault(zone) undoes it.
//   * PowerCut(mode): simulates losing power. Writes completed since the last Flush() are
//     lost (kLoseUnflushed) or a random block-aligned prefix of each zone's unflushed bytes
//     survives (kTornUnflushed): sequential zones' write pointers roll back, conventional
//     zones get their previous bytes back. Zone operations (open/close/finish/reset) are
//     taken as durable when they complete. Afterwards every open zone is closed, as after
//     a power cycle. The wrapper stays usable: callers remount their upper layers on it.
//     PowerCut rewrites the surviving prefix of each affected zone (read, reset, rewrite),
//     so it is meant for test-sized zones.
//   * PowerOff(): the drive is off until ClearFaults(): every write, flush, zone operation
//     and activation fails with kIOError (reads still work). A test that cuts power under
//     a store that is still running calls it first, so that nothing the store does after
//     the cut — a flush of writes the cut lost, a reset — reaches the drive as a success.
//   * Hybrid drives: ReportRealms and ActivateRealms are forwarded. ActivateRealms fails
//     with kIOError and changes nothing when a zone (of either domain) of a realm it would
//     convert has a zone fault, and when FailNthActivate(n) fires: the n-th ActivateRealms
//     from now (1 = the next one; `sticky`: it and every later one until ClearFaults()).
//     A completed conversion is durable, like a zone operation: PowerCut neither undoes it
//     nor touches the realm's zones for writes made before it (their data is gone with the
//     old domain): the unflushed-write log of a converted realm's zones is dropped, and
//     unflushed_bytes() no longer counts its conventional writes.
//   * PauseNextRead(offset, len): the next Read overlapping [offset, offset+len) is held
//     before it reaches the base device until ResumePausedRead() (one-shot). WaitForPausedRead()
//     blocks until a read is held and returns its offset. A ResetZones of the zone a held read
//     targets is counted in resets_under_paused_read(): the window in which a reader that
//     found an extent races a zone reset (tests make that race deterministic with it).
//
// Thread safety: all methods are thread-safe (one mutex guards the fault state and the
// unflushed-write log; a second one the paused read, which is held without the first).
// PowerCut must not race with I/O on the same wrapper.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <vector>

#include "common/thread_annotations.h"
#include "device/zoned_device.h"

namespace smr {

class FaultInjectionDevice final : public ZonedDevice {
 public:
  enum class PowerCutMode { kLoseUnflushed, kTornUnflushed };

  explicit FaultInjectionDevice(std::unique_ptr<ZonedDevice> base);
  ~FaultInjectionDevice() override;

  const DeviceInfo& info() const override { return base_->info(); }
  Result<std::vector<ZoneInfo>> ReportZones(uint32_t first, uint32_t count) override;
  Status OpenZones(uint32_t first, uint32_t count) override;
  Status CloseZones(uint32_t first, uint32_t count) override;
  Status FinishZones(uint32_t first, uint32_t count) override;
  Status ResetZones(uint32_t first, uint32_t count) override;
  Status Read(uint64_t offset, void* buf, size_t len) override;
  Status Write(uint64_t offset, const void* buf, size_t len) override;
  Status Flush() override;
  HostCacheUse HostCache() const override { return base_->HostCache(); }
  std::optional<HeadModel::Stats> HeadStats() const override { return base_->HeadStats(); }
  Result<std::vector<RealmInfo>> ReportRealms(uint32_t first, uint32_t count) override;
  Status ActivateRealms(uint32_t first, uint32_t count, ZoneDomain domain) override;

  // Reads, writes and activations failed by FailNthRead/FailNthWrite/FailNthActivate so
  // far (whether a fault fired).
  uint64_t injected_errors() const;
  void FailNthRead(uint64_t n, bool sticky = false);
  void FailNthWrite(uint64_t n, bool sticky = false);
  void FailNthActivate(uint64_t n, bool sticky = false);
  void CorruptReads(uint64_t offset, uint64_t len);
  // REQUIRES: cond is kReadOnly or kOffline.
  void SetZoneFault(uint32_t zone, ZoneCondition cond);
  void ClearZoneFault(uint32_t zone);
  // Clears read/write/activate failures, corruptions and zone faults (not the unflushed
  // log).
  void ClearFaults();
  void PowerOff();

  void PauseNextRead(uint64_t offset, uint64_t len);
  // REQUIRES: PauseNextRead was called. Returns the held read's offset.
  uint64_t WaitForPausedRead();
  void ResumePausedRead();
  uint64_t resets_under_paused_read() const;

  // `seed` picks the surviving prefixes in kTornUnflushed mode.
  Status PowerCut(PowerCutMode mode = PowerCutMode::kLoseUnflushed, uint64_t seed = 0);
  // Bytes written since the last Flush (what a PowerCut would put at risk).
  uint64_t unflushed_bytes() const;
  // Zones ResetZones was asked to reset so far (each zone of a range counts), whether or not
  // the reset succeeded: a reset costs a drive command even when the zone is empty.
  uint64_t zones_reset() const;
  // Read calls made so far (whether or not they failed): what a caller's reads cost.
  uint64_t reads() const;
  // Write calls made so far (whether or not they failed; a WriteV is one).
  uint64_t writes() const;

  ZonedDevice* base() { return base_.get(); }

 private:
  struct Trigger {
    uint64_t countdown = 0;  // 0 = disarmed
    bool sticky = false;
    bool firing = false;  // sticky trigger has fired
  };
  struct ConvUndo {
    uint64_t offset;
    std::vector<char> old_bytes;
  };
  // Returns true when this call must fail.
  static bool Tick(Trigger* t);
  Status CheckZoneFaults(uint64_t offset, size_t len, bool write) const SMR_REQUIRES(mu_);
  Status ZoneOp(uint32_t first, uint32_t count, const char* op,
                Status (ZonedDevice::*fn)(uint32_t, uint32_t));
  Status RollBackSequential(uint32_t zone, uint64_t keep_wp);
  bool IsConventional(uint32_t zone) const;
  // Forgets the unflushed-write log of realm `realm`'s zones (it was converted).
  void DropUnflushedOfRealm(uint32_t realm) SMR_REQUIRES(mu_);

  const std::unique_ptr<ZonedDevice> base_;
  mutable Mutex mu_;
  Trigger read_fail_ SMR_GUARDED_BY(mu_);
  Trigger write_fail_ SMR_GUARDED_BY(mu_);
  Trigger activate_fail_ SMR_GUARDED_BY(mu_);
  std::vector<std::pair<uint64_t, uint64_t>> corrupt_ SMR_GUARDED_BY(mu_);
  std::map<uint32_t, ZoneCondition> zone_faults_ SMR_GUARDED_BY(mu_);
  // Sequential zone -> its write pointer at the last flush (or zone op), for zones written
  // since then.
  std::map<uint32_t, uint64_t> durable_wp_ SMR_GUARDED_BY(mu_);
  std::vector<ConvUndo> conv_undo_ SMR_GUARDED_BY(mu_);  // in write order
  bool powered_off_ SMR_GUARDED_BY(mu_) = false;          // PowerOff until ClearFaults
  uint64_t unflushed_ SMR_GUARDED_BY(mu_) = 0;
  uint64_t injected_errors_ SMR_GUARDED_BY(mu_) = 0;
  uint64_t zones_reset_ SMR_GUARDED_BY(mu_) = 0;
  uint64_t reads_ SMR_GUARDED_BY(mu_) = 0;
  uint64_t writes_ SMR_GUARDED_BY(mu_) = 0;

  // The paused read (PauseNextRead); guarded by pause_mu_, never held with mu_.
  struct Pause {
    bool armed = false;    // the next overlapping read will be held
    bool holding = false;  // a read is held now
    uint64_t offset = 0, len = 0;
    uint64_t held_offset = 0;
    uint64_t resets_under = 0;
  };
  void HoldIfPaused(uint64_t offset, size_t len) SMR_EXCLUDES(pause_mu_);
  void NoteReset(uint32_t first, uint32_t count) SMR_EXCLUDES(pause_mu_);
  mutable Mutex pause_mu_;
  CondVar pause_cv_;
  Pause pause_ SMR_GUARDED_BY(pause_mu_);
};

}  // namespace smr
