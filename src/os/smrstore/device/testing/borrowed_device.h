// BorrowedDevice: a ZonedDevice that forwards to one it does not own, so a test can keep a
// device (e.g. a FaultInjectionDevice it power-cuts) alive across several mounts of an
// upper layer that wants to own its devices. Tests may derive from it to change one call
// (e.g. a write that fails in a particular way) and forward the rest.
#pragma once

#include <memory>

#include "device/zoned_device.h"

namespace smr::testing {

class BorrowedDevice : public ZonedDevice {
 public:
  explicit BorrowedDevice(ZonedDevice* base) : base_(base) {}
  const DeviceInfo& info() const override { return base_->info(); }
  Result<std::vector<ZoneInfo>> ReportZones(uint32_t first, uint32_t count) override {
    return base_->ReportZones(first, count);
  }
  Status OpenZones(uint32_t first, uint32_t count) override {
    return base_->OpenZones(first, count);
  }
  Status CloseZones(uint32_t first, uint32_t count) override {
    return base_->CloseZones(first, count);
  }
  Status FinishZones(uint32_t first, uint32_t count) override {
    return base_->FinishZones(first, count);
  }
  Status ResetZones(uint32_t first, uint32_t count) override {
    return base_->ResetZones(first, count);
  }
  Status Read(uint64_t offset, void* buf, size_t len) override {
    return base_->Read(offset, buf, len);
  }
  Status Write(uint64_t offset, const void* buf, size_t len) override {
    return base_->Write(offset, buf, len);
  }
  // WriteV is not forwarded: the base class's goes through Write, which test wrappers
  // deriving from this one override to inject faults.
  Status Flush() override { return base_->Flush(); }
  HostCacheUse HostCache() const override { return base_->HostCache(); }
  std::optional<HeadModel::Stats> HeadStats() const override { return base_->HeadStats(); }
  Result<std::vector<RealmInfo>> ReportRealms(uint32_t first, uint32_t count) override {
    return base_->ReportRealms(first, count);
  }
  Status ActivateRealms(uint32_t first, uint32_t count, ZoneDomain domain) override {
    return base_->ActivateRealms(first, count, domain);
  }

 private:
  ZonedDevice* const base_;
};

}  // namespace smr::testing
