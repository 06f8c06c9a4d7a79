#include "device/testing/device_test_backends.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/pattern.h"
#include "device/device_spec.h"
#include "device/emulated_zoned_device.h"
#include "device/fault_injection_device.h"

namespace smr::testing {

namespace {

constexpr uint64_t kMiB = 1ull << 20;

EmulatedGeometry EmuGeometry() {
  EmulatedGeometry g;
  g.nr_zones = 16;
  g.zone_size = kMiB;
  g.nr_conventional = 2;
  g.max_open_zones = 4;
  return g;
}

Result<std::unique_ptr<ZonedDevice>> MakeEmu(const std::string& dir) {
  SMR_ASSIGN_OR_RETURN(auto dev, EmulatedZonedDevice::Create(dir + "/emu.img", EmuGeometry()));
  return std::unique_ptr<ZonedDevice>(std::move(dev));
}

Result<std::unique_ptr<ZonedDevice>> MakeEmuDirect(const std::string& dir) {
  TimingModel t;
  t.direct_writes = true;
  SMR_ASSIGN_OR_RETURN(auto dev,
                       EmulatedZonedDevice::Create(dir + "/emu_direct.img", EmuGeometry(), t));
  return std::unique_ptr<ZonedDevice>(std::move(dev));
}

Result<std::unique_ptr<ZonedDevice>> MakeEmuDirectReads(const std::string& dir) {
  TimingModel t;
  t.direct_writes = true;
  t.direct_reads = true;
  SMR_ASSIGN_OR_RETURN(
      auto dev, EmulatedZonedDevice::Create(dir + "/emu_direct_reads.img", EmuGeometry(), t));
  return std::unique_ptr<ZonedDevice>(std::move(dev));
}

Result<std::unique_ptr<ZonedDevice>> MakeEmuZcap(const std::string& dir) {
  EmulatedGeometry g;
  g.nr_zones = 16;
  g.zone_size = kMiB;
  g.zone_capacity = 768 * 1024;
  g.nr_conventional = 3;
  g.max_open_zones = 4;
  g.max_active_zones = 6;
  g.logical_block_size = 512;
  SMR_ASSIGN_OR_RETURN(auto dev, EmulatedZonedDevice::Create(dir + "/emu_zcap.img", g));
  return std::unique_ptr<ZonedDevice>(std::move(dev));
}

Result<std::unique_ptr<ZonedDevice>> MakeFault(const std::string& dir) {
  SMR_ASSIGN_OR_RETURN(auto base, MakeEmu(dir));
  return std::unique_ptr<ZonedDevice>(std::make_unique<FaultInjectionDevice>(std::move(base)));
}

Result<std::unique_ptr<ZonedDevice>> MakeZbd(const std::string& path) {
  SMR_ASSIGN_OR_RETURN(auto dev, OpenDevice("zbd:" + path));
  const DeviceInfo& info = dev->info();
  SMR_ASSIGN_OR_RETURN(auto zones, dev->ReportZones(0, 0));
  for (uint32_t z = 0; z < info.nr_zones; ++z) {
    if (!zones[z].is_conventional()) SMR_RETURN_IF_ERROR(dev->ResetZones(z, 1));
  }
  return dev;
}

}  // namespace

std::vector<TestBackend> DeviceTestBackends() {
  std::vector<TestBackend> out = {
      {"emu", MakeEmu},
      {"emu_direct", MakeEmuDirect},
      {"emu_direct_reads", MakeEmuDirectReads},
      {"emu_zcap", MakeEmuZcap},
      {"fault", MakeFault},
  };
  if (const char* zbd = std::getenv("SMRSTORE_TEST_ZBD"); zbd != nullptr && *zbd != '\0') {
    std::string path = zbd;
    out.push_back({"zbd", [path](const std::string&) { return MakeZbd(path); }});
  }
  return out;
}

std::vector<std::string> StoreTestSpecs(std::vector<std::string> defaults) {
  const char* env = std::getenv("SMRSTORE_TEST_STORE_ZBD");
  if (env == nullptr || *env == '\0') return defaults;
  std::vector<std::string> out;
  std::string list = env;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string node =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!node.empty()) out.push_back("zbd:" + node);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out.empty() ? defaults : out;
}

bool StoreTestOnKernelDevices() {
  const char* env = std::getenv("SMRSTORE_TEST_STORE_ZBD");
  return env != nullptr && *env != '\0';
}

ScratchDir::ScratchDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/smrstore-test-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
  path_ = tmpl;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string DescribeZone(const ZoneInfo& z) {
  return "{start=" + std::to_string(z.start) + " len=" + std::to_string(z.length) +
         " cap=" + std::to_string(z.capacity) + " wp=" + std::to_string(z.wp) +
         " type=" + ZoneTypeName(z.type) + " cond=" + ZoneConditionName(z.cond) + "}";
}

void FillPattern(uint64_t seed, uint64_t offset, void* buf, size_t len) {
  smr::FillPattern(seed, offset, buf, len);
}

bool CheckPattern(uint64_t seed, uint64_t offset, const void* buf, size_t len) {
  return smr::CheckPattern(seed, offset, buf, len);
}

}  // namespace smr::testing
