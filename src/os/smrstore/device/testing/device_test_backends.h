// Test backends for the device conformance suite and for upper layers' tests.
//
// Each TestBackend makes a fresh, empty device in a scratch directory it is given.
// Backends: "emu" (16 zones x 1 MiB, 2 conventional, max_open 4, no active limit),
// "emu_zcap" (zone capacity 768 KiB < zone size, 3 conventional, max_open 4,
// max_active 6, logical block 512), "emu_direct" ("emu" with direct writes: O_DIRECT,
// emulated_zoned_device.h "Direct writes"), "emu_direct_reads" ("emu_direct" reading with
// O_DIRECT too), "fault" (FaultInjectionDevice over an "emu" drive,
// no fault armed), and "zbd" when the environment variable SMRSTORE_TEST_ZBD names a
// kernel zoned block device (all its sequential zones are reset first; the test data is
// destroyed). The geometry of a device is read from info(), never assumed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "device/zoned_device.h"

namespace smr::testing {

struct TestBackend {
  std::string name;
  // `dir` is an existing empty scratch directory owned by the test.
  std::function<Result<std::unique_ptr<ZonedDevice>>(const std::string& dir)> make;
};

std::vector<TestBackend> DeviceTestBackends();

// Device specs for store-level tests: `defaults` (emulated drives in the test's scratch
// directory), or — when SMRSTORE_TEST_STORE_ZBD lists kernel zoned devices
// ("/dev/nullb1,/dev/nvme0n2") — those devices as zbd: specs (their data is destroyed).
std::vector<std::string> StoreTestSpecs(std::vector<std::string> defaults);
// True when StoreTestSpecs returns kernel devices (mkfs must then --force over the store
// the previous test left on them).
bool StoreTestOnKernelDevices();

// A scratch directory under $TMPDIR (or /tmp) removed with its content on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// "{start=.. len=.. cap=.. wp=.. type=.. cond=..}" for failure messages.
std::string DescribeZone(const ZoneInfo& z);

// Deterministic test bytes (common/pattern.h): the byte at device offset o is f(seed, o).
void FillPattern(uint64_t seed, uint64_t offset, void* buf, size_t len);
// True when `buf` equals FillPattern(seed, offset, ..., len).
bool CheckPattern(uint64_t seed, uint64_t offset, const void* buf, size_t len);

}  // namespace smr::testing
