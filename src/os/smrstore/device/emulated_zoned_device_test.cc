// Emulator-specific tests of device/emulated_zoned_device.h: creation and opening errors,
// persistence across reopen, locking, sparseness, crash consistency under SIGKILL and the
// timing model. The zoned-device rules themselves are in device_conformance_test.cc.

#include "device/emulated_zoned_device.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/status.h"
#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "device/zoned_device.h"

namespace smr {
namespace {

using smr::testing::CheckPattern;
using smr::testing::DescribeZone;
using smr::testing::FillPattern;
using smr::testing::ScratchDir;
using smr::testing::WriteFileBytes;
using smr::testing::ReadFileBytes;
using smr::testing::PathExists;

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kKiB = 1ull << 10;

// A small drive: 12 zones of 1 MiB, 1 conventional, max_open 4.
EmulatedGeometry SmallGeometry() {
  EmulatedGeometry g;
  g.nr_zones = 12;
  g.zone_size = 1 * kMiB;
  g.nr_conventional = 1;
  g.logical_block_size = 4096;
  g.max_open_zones = 4;
  g.max_active_zones = 0;
  return g;
}

std::unique_ptr<EmulatedZonedDevice> MustCreate(const std::string& path, EmulatedGeometry g,
                                                TimingModel t = {}) {
  auto r = EmulatedZonedDevice::Create(path, g, t);
  EXPECT_TRUE(r.ok()) << "Create " << path << ": " << r.status().ToString();
  if (!r.ok()) return nullptr;
  return std::move(r).value();
}

std::unique_ptr<EmulatedZonedDevice> MustOpen(const std::string& path, TimingModel t = {}) {
  auto r = EmulatedZonedDevice::Open(path, t);
  EXPECT_TRUE(r.ok()) << "Open " << path << ": " << r.status().ToString();
  if (!r.ok()) return nullptr;
  return std::move(r).value();
}

std::vector<ZoneInfo> Report(ZonedDevice* dev) {
  auto r = dev->ReportZones(0, 0);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {};
  return std::move(r).value();
}

Status WritePattern(ZonedDevice* dev, uint64_t seed, uint64_t off, size_t len) {
  std::vector<char> buf(len);
  FillPattern(seed, off, buf.data(), len);
  return dev->Write(off, buf.data(), len);
}

std::vector<char> ReadAll(ZonedDevice* dev) {
  std::vector<char> all(dev->info().capacity_bytes());
  Status s = dev->Read(0, all.data(), all.size());
  EXPECT_TRUE(s.ok()) << s.ToString();
  return all;
}

// ---------------------------------------------------------------------------------------
// Create / Open errors

TEST(EmulatedZonedDeviceTest, CreateReportsGeometry) {
  ScratchDir dir;
  const std::string path = dir.path() + "/drive.img";
  EmulatedGeometry g = SmallGeometry();
  g.zone_capacity = 768 * kKiB;
  g.nr_conventional = 2;
  g.max_active_zones = 6;
  auto dev = MustCreate(path, g);
  ASSERT_NE(dev, nullptr);
  const DeviceInfo& info = dev->info();
  EXPECT_EQ(info.nr_zones, 12u);
  EXPECT_EQ(info.zone_size, 1 * kMiB);
  EXPECT_EQ(info.zone_capacity, 768 * kKiB);
  EXPECT_EQ(info.nr_conventional, 2u);
  EXPECT_EQ(info.logical_block_size, 4096u);
  EXPECT_EQ(info.max_open_zones, 4u);
  EXPECT_EQ(info.max_active_zones, 6u);
  EXPECT_EQ(info.model_name, "smrstore-emulated");
  EXPECT_EQ(info.model, ZonedModel::kHostManaged);
  EXPECT_EQ(dev->geometry().zone_capacity, 768 * kKiB);
  EXPECT_EQ(dev->geometry().nr_zones, 12u);
  EXPECT_FALSE(dev->timing().enabled());
  std::vector<ZoneInfo> zones = Report(dev.get());
  ASSERT_EQ(zones.size(), 12u);
  EXPECT_EQ(zones[1].cond, ZoneCondition::kNotWritePointer);
  EXPECT_EQ(zones[2].cond, ZoneCondition::kEmpty);
  EXPECT_EQ(zones[2].capacity, 768 * kKiB);
}

TEST(EmulatedZonedDeviceTest, NormalizeFillsDefaults) {
  EmulatedGeometry g;
  ASSERT_OK(g.Normalize());
  EXPECT_EQ(g.nr_zones, 64u);
  EXPECT_EQ(g.zone_size, 256 * kMiB);
  EXPECT_EQ(g.zone_capacity, 256 * kMiB);
  EXPECT_GE(g.nr_conventional, 1u);
  EXPECT_LE(g.nr_conventional, 2u);  // about 1 % of 64
  EXPECT_EQ(g.max_open_zones, 128u);
  EXPECT_EQ(g.max_active_zones, 0u);

  EmulatedGeometry big;
  big.nr_zones = 1000;
  big.zone_size = 1 * kMiB;
  ASSERT_OK(big.Normalize());
  EXPECT_GE(big.nr_conventional, 1u);
  EXPECT_LE(big.nr_conventional, 20u);

  EmulatedGeometry none = SmallGeometry();
  none.nr_conventional = 0;
  ASSERT_OK(none.Normalize());
  EXPECT_EQ(none.nr_conventional, 0u);
}

TEST(EmulatedZonedDeviceTest, CreateOnExistingPathIsAlreadyExistsAndLeavesFileAlone) {
  ScratchDir dir;
  const std::string path = dir.path() + "/drive.img";
  ASSERT_TRUE(WriteFileBytes(path, "precious user data\n"));
  auto r = EmulatedZonedDevice::Create(path, SmallGeometry());
  EXPECT_CODE(r.status(), kAlreadyExists);
  EXPECT_EQ(ReadFileBytes(path), "precious user data\n");

  // Also over an existing drive: its data survives.
  const std::string drive = dir.path() + "/drive2.img";
  {
    auto dev = MustCreate(drive, SmallGeometry());
    ASSERT_NE(dev, nullptr);
    ASSERT_OK(WritePattern(dev.get(), 5, 1 * kMiB, 8 * 4096));
  }
  EXPECT_CODE(EmulatedZonedDevice::Create(drive, SmallGeometry()).status(), kAlreadyExists);
  auto dev = MustOpen(drive);
  ASSERT_NE(dev, nullptr);
  std::vector<char> buf(8 * 4096);
  ASSERT_OK(dev->Read(1 * kMiB, buf.data(), buf.size()));
  EXPECT_TRUE(CheckPattern(5, 1 * kMiB, buf.data(), buf.size()));
}

TEST(EmulatedZonedDeviceTest, CreateInMissingDirectoryFailsAndLeavesNothing) {
  ScratchDir dir;
  const std::string path = dir.path() + "/no/such/dir/drive.img";
  auto r = EmulatedZonedDevice::Create(path, SmallGeometry());
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound() || r.status().IsIOError()) << r.status().ToString();
  EXPECT_FALSE(PathExists(dir.path() + "/no"));
}

TEST(EmulatedZonedDeviceTest, OpenOfMissingFileIsNotFoundAndCreatesNothing) {
  ScratchDir dir;
  const std::string path = dir.path() + "/missing.img";
  EXPECT_CODE(EmulatedZonedDevice::Open(path).status(), kNotFound);
  EXPECT_FALSE(PathExists(path));
}

TEST(EmulatedZonedDeviceTest, OpenOfNonDriveFileIsCorruptionAndFileUnchanged) {
  ScratchDir dir;
  std::mt19937_64 rng(77);
  struct Case {
    std::string name;
    std::string bytes;
  };
  std::vector<Case> cases;
  {
    std::string random(1 * kMiB, '\0');
    for (char& c : random) c = static_cast<char>(rng());
    cases.push_back({"random", random});
  }
  cases.push_back({"empty", ""});
  cases.push_back({"short", "hello, I am not a zoned drive"});
  cases.push_back({"zeros", std::string(64 * kKiB, '\0')});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = dir.path() + "/" + c.name + ".img";
    ASSERT_TRUE(WriteFileBytes(path, c.bytes));
    EXPECT_CODE(EmulatedZonedDevice::Open(path).status(), kCorruption);
    EXPECT_TRUE(ReadFileBytes(path) == c.bytes) << "file was modified";
  }
}

TEST(EmulatedZonedDeviceTest, OpenWithDamagedSuperblockIsCorruption) {
  ScratchDir dir;
  const std::string path = dir.path() + "/drive.img";
  { ASSERT_NE(MustCreate(path, SmallGeometry()), nullptr); }
  // The superblock comes first in the file; damage its first bytes.
  int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  char head[16];
  ASSERT_EQ(::pread(fd, head, sizeof(head), 0), static_cast<ssize_t>(sizeof(head)));
  for (char& c : head) c = static_cast<char>(c ^ 0xA5);
  ASSERT_EQ(::pwrite(fd, head, sizeof(head), 0), static_cast<ssize_t>(sizeof(head)));
  ::close(fd);
  EXPECT_CODE(EmulatedZonedDevice::Open(path).status(), kCorruption);
}

TEST(EmulatedZonedDeviceTest, BadGeometryIsInvalidArgumentAndCreatesNothing) {
  ScratchDir dir;
  struct Case {
    const char* name;
    void (*mutate)(EmulatedGeometry*);
  };
  const Case cases[] = {
      {"zone_size_not_block_multiple", [](EmulatedGeometry* g) { g->zone_size = kMiB + 512; }},
      {"zone_size_zero", [](EmulatedGeometry* g) { g->zone_size = 0; }},
      {"capacity_above_size", [](EmulatedGeometry* g) { g->zone_capacity = 2 * kMiB; }},
      {"capacity_not_block_multiple",
       [](EmulatedGeometry* g) { g->zone_capacity = kMiB - 512; }},
      {"no_zones", [](EmulatedGeometry* g) { g->nr_zones = 0; }},
      {"all_conventional", [](EmulatedGeometry* g) { g->nr_conventional = g->nr_zones; }},
      {"more_conventional_than_zones",
       [](EmulatedGeometry* g) { g->nr_conventional = g->nr_zones + 5; }},
      {"block_size_1000", [](EmulatedGeometry* g) { g->logical_block_size = 1000; }},
      {"block_size_0", [](EmulatedGeometry* g) { g->logical_block_size = 0; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EmulatedGeometry g = SmallGeometry();
    c.mutate(&g);
    EmulatedGeometry copy = g;
    EXPECT_CODE(copy.Normalize(), kInvalidArgument);
    const std::string path = dir.path() + "/" + c.name + ".img";
    EXPECT_CODE(EmulatedZonedDevice::Create(path, g).status(), kInvalidArgument);
    EXPECT_FALSE(PathExists(path)) << "a failed Create left " << path;
  }
}

// ---------------------------------------------------------------------------------------
// Persistence and locking

TEST(EmulatedZonedDeviceTest, StateAndDataSurviveReopen) {
  ScratchDir dir;
  const std::string path = dir.path() + "/drive.img";
  std::vector<ZoneInfo> before;
  std::vector<char> data_before;
  const uint64_t b = 4096;
  {
    auto dev = MustCreate(path, SmallGeometry());
    ASSERT_NE(dev, nullptr);
    auto S = [&](uint32_t seq) { return dev->ZoneStart(1 + seq); };
    ASSERT_OK(WritePattern(dev.get(), 1, 64 * kKiB, 16 * b));        // conventional
    ASSERT_OK(WritePattern(dev.get(), 2, S(0), 5 * b));              // implicitly open
    ASSERT_OK(WritePattern(dev.get(), 3, S(1), kMiB));               // full by writes
    ASSERT_OK(WritePattern(dev.get(), 4, S(2), 2 * b));              // closed
    ASSERT_OK(dev->CloseZones(1 + 2, 1));
    ASSERT_OK(WritePattern(dev.get(), 5, S(3), 3 * b));              // finished
    ASSERT_OK(dev->FinishZones(1 + 3, 1));
    ASSERT_OK(WritePattern(dev.get(), 6, S(4), 4 * b));              // reset
    ASSERT_OK(dev->ResetZones(1 + 4, 1));
    ASSERT_OK(dev->OpenZones(1 + 5, 1));                             // explicit, no data
    ASSERT_OK(dev->OpenZones(1 + 6, 1));                             // explicit, data
    ASSERT_OK(WritePattern(dev.get(), 7, S(6), 1 * b));
    before = Report(dev.get());
    data_before = ReadAll(dev.get());
    ASSERT_EQ(before[1 + 0].cond, ZoneCondition::kImplicitOpen);
    ASSERT_EQ(before[1 + 5].cond, ZoneCondition::kExplicitOpen);
    // Destroyed without Flush: a process exit keeps completed writes.
  }
  for (int reopen = 0; reopen < 2; ++reopen) {
    SCOPED_TRACE("reopen " + std::to_string(reopen));
    auto dev = MustOpen(path);
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(dev->info().nr_zones, 12u);
    EXPECT_EQ(dev->info().zone_size, kMiB);
    EXPECT_EQ(dev->info().max_open_zones, 4u);
    std::vector<ZoneInfo> after = Report(dev.get());
    ASSERT_EQ(after.size(), before.size());
    for (size_t i = 0; i < before.size(); ++i) {
      const ZoneInfo& x = before[i];
      const ZoneInfo& y = after[i];
      SCOPED_TRACE("zone " + std::to_string(i) + " before " + DescribeZone(x) + " after " +
                   DescribeZone(y));
      EXPECT_EQ(x.start, y.start);
      EXPECT_EQ(x.length, y.length);
      EXPECT_EQ(x.capacity, y.capacity);
      EXPECT_EQ(x.type, y.type);
      EXPECT_EQ(x.wp, y.wp);
      // The drive outlives the process: every condition, open ones included, survives.
      EXPECT_EQ(x.cond, y.cond);
    }
    std::vector<char> data_after = ReadAll(dev.get());
    ASSERT_EQ(data_after.size(), data_before.size());
    size_t i = 0;
    while (i < data_after.size() && data_after[i] == data_before[i]) ++i;
    EXPECT_EQ(i, data_after.size()) << "data differs after reopen at offset " << i;
  }
  // The reopened drive keeps working: open zones continue at their write pointer and still
  // count against max_open until closed.
  auto dev = MustOpen(path);
  ASSERT_NE(dev, nullptr);
  const uint64_t s0 = dev->ZoneStart(1);
  ASSERT_OK(WritePattern(dev.get(), 2, s0 + 5 * b, 3 * b));
  std::vector<char> buf(8 * b);
  ASSERT_OK(dev->Read(s0, buf.data(), buf.size()));
  EXPECT_TRUE(CheckPattern(2, s0, buf.data(), buf.size()));
  // Zones 6 and 7 are still explicitly open, so only two more explicit opens fit.
  EXPECT_TRUE(dev->OpenZones(1 + 7, 3).IsTooManyOpenZones());
  ASSERT_OK(dev->CloseZones(1, 1));
  ASSERT_OK(dev->CloseZones(1 + 5, 2));
  ASSERT_OK(dev->OpenZones(1 + 7, 4));  // max_open explicit opens fit
  std::vector<ZoneInfo> zones = Report(dev.get());
  uint32_t open = 0;
  for (const ZoneInfo& z : zones) open += z.is_open() ? 1 : 0;
  EXPECT_EQ(open, 4u);
}

TEST(EmulatedZonedDeviceTest, SecondOpenIsBusy) {
  ScratchDir dir;
  const std::string path = dir.path() + "/drive.img";
  auto dev = MustCreate(path, SmallGeometry());
  ASSERT_NE(dev, nullptr);
  EXPECT_CODE(EmulatedZonedDevice::Open(path).status(), kBusy);
  EXPECT_CODE(EmulatedZonedDevice::Create(path, SmallGeometry()).status(), kAlreadyExists);

  // From another process too.
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto r = EmulatedZonedDevice::Open(path);
    ::_exit(r.status().IsBusy() ? 0 : 1);
  }
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFEXITED(wstatus));
  EXPECT_EQ(WEXITSTATUS(wstatus), 0) << "Open from another process was not kBusy";

  // The drive is still usable by its owner, and free once closed.
  ASSERT_OK(WritePattern(dev.get(), 1, dev->ZoneStart(1), 4096));
  dev.reset();
  auto again = MustOpen(path);
  ASSERT_NE(again, nullptr);
  EXPECT_CODE(EmulatedZonedDevice::Open(path).status(), kBusy);
}

TEST(EmulatedZonedDeviceTest, ImageIsSparse) {
  ScratchDir dir;
  const std::string path = dir.path() + "/big.img";
  EmulatedGeometry g;  // 64 x 256 MiB
  {
    auto dev = MustCreate(path, g);
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(dev->info().nr_zones, 64u);
    EXPECT_EQ(dev->info().zone_size, 256 * kMiB);
    EXPECT_EQ(dev->info().max_open_zones, 128u);
    EXPECT_GE(dev->info().nr_conventional, 1u);
    struct stat st;
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_LT(uint64_t(st.st_blocks) * 512, 16 * kMiB)
        << "a fresh 16 GiB drive uses " << uint64_t(st.st_blocks) * 512 << " bytes";
    // Writing 1 MiB to the last zone stays small and works at large offsets.
    const uint64_t last = dev->ZoneStart(63);
    ASSERT_OK(WritePattern(dev.get(), 9, last, kMiB));
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_LT(uint64_t(st.st_blocks) * 512, 24 * kMiB);
  }
  auto dev = MustOpen(path);
  ASSERT_NE(dev, nullptr);
  std::vector<char> buf(kMiB);
  ASSERT_OK(dev->Read(dev->ZoneStart(63), buf.data(), buf.size()));
  EXPECT_TRUE(CheckPattern(9, dev->ZoneStart(63), buf.data(), buf.size()));
}

// Scale benches' mode: long pieces are not stored, everything else is as on any drive.
TEST(EmulatedZonedDeviceTest, DroppedPiecesAdvanceTheZoneButAreNotStored) {
  ScratchDir dir;
  const std::string path = dir.path() + "/drop.img";
  EmulatedGeometry g;  // 64 x 256 MiB
  TimingModel t;
  t.drop_piece_bytes = 8 * kKiB;
  auto dev = MustCreate(path, g, t);
  ASSERT_NE(dev, nullptr);
  const uint32_t zone = dev->info().nr_conventional;
  const uint64_t start = dev->ZoneStart(zone);
  // A record's shape: a header block, 4 MiB of payload, a tail block; then a lone block
  // and a second 8 KiB payload (exactly the threshold: dropped).
  std::vector<char> head(4 * kKiB), payload(4 * kMiB), tail(4 * kKiB), lone(4 * kKiB),
      small(8 * kKiB);
  FillPattern(1, 0, head.data(), head.size());
  FillPattern(2, 0, payload.data(), payload.size());
  FillPattern(3, 0, tail.data(), tail.size());
  FillPattern(4, 0, lone.data(), lone.size());
  FillPattern(5, 0, small.data(), small.size());
  auto view = [](const std::vector<char>& v) { return std::string_view(v.data(), v.size()); };
  ASSERT_OK(dev->WriteV(start, {view(head), view(payload), view(tail)}));
  const uint64_t second = start + head.size() + payload.size() + tail.size();
  ASSERT_OK(dev->WriteV(second, {view(lone), view(small)}));
  const uint64_t end = second + lone.size() + small.size();
  ASSERT_OK(dev->Flush());
  EXPECT_EQ(Report(dev.get())[zone].wp, end) << "every byte counts";

  auto read_at = [&](uint64_t off, size_t len) {
    std::vector<char> buf(len, 'x');
    Status s = dev->Read(off, buf.data(), len);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return buf;
  };
  auto is_zero = [](const std::vector<char>& b) {
    return std::all_of(b.begin(), b.end(), [](char c) { return c == 0; });
  };
  auto got = read_at(start, head.size());
  EXPECT_TRUE(CheckPattern(1, 0, got.data(), got.size())) << "the header block is kept";
  EXPECT_TRUE(is_zero(read_at(start + head.size(), payload.size()))) << "the payload is not";
  got = read_at(start + head.size() + payload.size(), tail.size());
  EXPECT_TRUE(CheckPattern(3, 0, got.data(), got.size())) << "the tail block is kept";
  got = read_at(second, lone.size());
  EXPECT_TRUE(CheckPattern(4, 0, got.data(), got.size()));
  EXPECT_TRUE(is_zero(read_at(second + lone.size(), small.size())));
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_LT(uint64_t(st.st_blocks) * 512, 2 * kMiB)
      << "4 MiB of payload left the image sparse";

  // Reopened without the key, the drive stores every write again (not a drive property).
  dev.reset();
  dev = MustOpen(path);
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(Report(dev.get())[zone].wp, end);
  ASSERT_OK(dev->WriteV(end, {view(payload)}));
  got = read_at(end, payload.size());
  EXPECT_TRUE(CheckPattern(2, 0, got.data(), got.size()));
}

// ---------------------------------------------------------------------------------------
// Crash consistency

constexpr uint64_t kCrashSeqSeed = 0xC0FFEE;

EmulatedGeometry CrashGeometry() {
  EmulatedGeometry g;
  g.nr_zones = 10;
  g.zone_size = 1 * kMiB;
  g.zone_capacity = 896 * kKiB;
  g.nr_conventional = 2;
  g.logical_block_size = 4096;
  g.max_open_zones = 3;  // fewer than the zones written: implicit closes happen
  g.max_active_zones = 0;
  return g;
}

// Conventional blocks carry their seed in their first 8 bytes; the rest is the pattern.
void FillConvBlock(uint64_t seed, uint64_t off, char* block, size_t lbs) {
  FillPattern(seed, off, block, lbs);
  std::memcpy(block, &seed, sizeof(seed));
}

bool ConvBlockValid(uint64_t off, const char* block, size_t lbs) {
  if (std::all_of(block, block + lbs, [](char c) { return c == 0; })) return true;
  uint64_t seed;
  std::memcpy(&seed, block, sizeof(seed));
  std::vector<char> want(lbs);
  FillConvBlock(seed, off, want.data(), lbs);
  return std::memcmp(want.data(), block, lbs) == 0;
}

// Runs in the forked child: writes forever until killed. Exits non-zero on any error.
[[noreturn]] void CrashChild(const std::string& path, int ready_fd, uint64_t round,
                             bool direct) {
  TimingModel t;
  t.direct_writes = direct;
  auto r = EmulatedZonedDevice::Open(path, t);
  if (!r.ok()) ::_exit(10);
  std::unique_ptr<EmulatedZonedDevice> dev = std::move(r).value();
  const DeviceInfo info = dev->info();
  const uint64_t lbs = info.logical_block_size;
  auto zr = dev->ReportZones(0, 0);
  if (!zr.ok()) ::_exit(11);
  std::vector<uint64_t> wp(info.nr_zones);
  for (uint32_t i = 0; i < info.nr_zones; ++i) wp[i] = (*zr)[i].wp;
  char one = 1;
  if (::write(ready_fd, &one, 1) != 1) ::_exit(12);
  ::close(ready_fd);

  std::mt19937_64 rng(round * 7919 + 1);
  std::vector<char> buf(64 * lbs);
  const uint32_t nr_seq = info.nr_zones - info.nr_conventional;
  const uint64_t conv_blocks = uint64_t{info.nr_conventional} * info.zone_size / lbs;
  uint64_t conv_seed = (round + 1) << 32;
  for (uint64_t iter = 0;; ++iter) {
    const uint32_t z = info.nr_conventional + static_cast<uint32_t>(rng() % nr_seq);
    const uint64_t start = uint64_t{z} * info.zone_size;
    const uint64_t end = start + info.zone_capacity;
    if (wp[z] >= end) {
      if (!dev->ResetZones(z, 1).ok()) ::_exit(13);
      wp[z] = start;
      continue;
    }
    const uint64_t n = std::min<uint64_t>((1 + rng() % 48) * lbs, end - wp[z]);
    FillPattern(kCrashSeqSeed, wp[z], buf.data(), n);
    if (!dev->Write(wp[z], buf.data(), n).ok()) ::_exit(14);
    wp[z] += n;
    if (rng() % 16 == 0 && wp[z] < end && !dev->CloseZones(z, 1).ok()) ::_exit(15);
    if (conv_blocks > 0 && iter % 2 == 0) {
      const uint64_t first = rng() % conv_blocks;
      const uint64_t count = std::min<uint64_t>(1 + rng() % 8, conv_blocks - first);
      for (uint64_t b = 0; b < count; ++b) {
        FillConvBlock(++conv_seed, (first + b) * lbs, buf.data() + b * lbs, lbs);
      }
      if (!dev->Write(first * lbs, buf.data(), count * lbs).ok()) ::_exit(16);
    }
    if (rng() % 256 == 0 && !dev->Flush().ok()) ::_exit(17);
  }
}

// The parameter: the killed writer opened the drive with direct (O_DIRECT) writes. The
// checks reopen it buffered (the mode is the opener's, not the drive's).
class EmulatedZonedDeviceCrashTest : public ::testing::TestWithParam<bool> {};

INSTANTIATE_TEST_SUITE_P(WriteModes, EmulatedZonedDeviceCrashTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return std::string(p.param ? "direct" : "buffered");
                         });

TEST_P(EmulatedZonedDeviceCrashTest, KillNineAtRandomInstantsKeepsDriveConsistent) {
  ScratchDir dir;
  const std::string path = dir.path() + "/crash.img";
  { ASSERT_NE(MustCreate(path, CrashGeometry()), nullptr); }
  std::mt19937 rng(20240601);
  constexpr int kRounds = 20;
  int zones_with_data = 0;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    int pipefd[2];
    ASSERT_EQ(::pipe(pipefd), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(pipefd[0]);
      CrashChild(path, pipefd[1], round, GetParam());
    }
    ::close(pipefd[1]);
    char c = 0;
    const ssize_t got = ::read(pipefd[0], &c, 1);
    ::close(pipefd[0]);
    if (got == 1) {
      const int delay_us = 2000 + static_cast<int>(rng() % 98000);  // 2 ms .. 100 ms
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
    }
    ::kill(pid, SIGKILL);
    int wstatus = 0;
    ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
    ASSERT_EQ(got, 1) << "child failed before writing, exit status "
                      << (WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
    ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL)
        << "child stopped on its own: exit code "
        << (WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);

    auto dev = MustOpen(path);
    ASSERT_NE(dev, nullptr);
    const DeviceInfo& info = dev->info();
    const uint64_t lbs = info.logical_block_size;
    std::vector<ZoneInfo> zones = Report(dev.get());
    ASSERT_EQ(zones.size(), info.nr_zones);
    int not_closed = 0;
    std::string first_not_closed;
    for (uint32_t i = info.nr_conventional; i < info.nr_zones; ++i) {
      const ZoneInfo& z = zones[i];
      SCOPED_TRACE("zone " + std::to_string(i) + " " + DescribeZone(z));
      ASSERT_EQ(z.wp % lbs, 0u);
      ASSERT_GE(z.wp, z.start);
      if (z.wp == z.start) {
        EXPECT_EQ(z.cond, ZoneCondition::kEmpty);
      } else if (z.cond == ZoneCondition::kFull) {
        EXPECT_EQ(z.wp, z.start + z.length);
      } else {
        EXPECT_LT(z.wp, z.start + z.capacity);
        // The drive outlives the killed process: a written, not full zone is open or closed.
        if (z.cond != ZoneCondition::kClosed && z.cond != ZoneCondition::kImplicitOpen &&
            z.cond != ZoneCondition::kExplicitOpen) {
          if (not_closed++ == 0) first_not_closed = "zone " + std::to_string(i) + DescribeZone(z);
        }
      }
      const uint64_t written =
          z.cond == ZoneCondition::kFull ? z.capacity : z.wp - z.start;
      if (written > 0) ++zones_with_data;
      std::vector<char> buf(z.capacity, '\x5a');
      ASSERT_OK(dev->Read(z.start, buf.data(), buf.size()));
      EXPECT_TRUE(CheckPattern(kCrashSeqSeed, z.start, buf.data(), written))
          << "data under the write pointer is not what was written";
      EXPECT_TRUE(std::all_of(buf.begin() + written, buf.end(), [](char x) { return x == 0; }))
          << "bytes past the write pointer are not zero after the crash";
    }
    EXPECT_EQ(not_closed, 0) << "partially written zones neither open nor closed after reopen, "
                             << "e.g. " << first_not_closed;
    // Conventional zones: every block is one complete version (or never written).
    const uint64_t conv_len = uint64_t{info.nr_conventional} * info.zone_size;
    std::vector<char> conv(conv_len);
    ASSERT_OK(dev->Read(0, conv.data(), conv_len));
    for (uint64_t off = 0; off < conv_len; off += lbs) {
      ASSERT_TRUE(ConvBlockValid(off, conv.data() + off, lbs))
          << "torn conventional block at " << off;
    }
    // The drive accepts a write at each write pointer (continuing the pattern).
    for (uint32_t i = info.nr_conventional; i < info.nr_zones; ++i) {
      ZoneInfo z = zones[i];
      if (z.cond == ZoneCondition::kFull) {
        ASSERT_OK(dev->ResetZones(i, 1));
        z.wp = z.start;
      }
      ASSERT_OK(WritePattern(dev.get(), kCrashSeqSeed, z.wp, lbs));
    }
  }
  // Sanity: the children did write something (else the test checked nothing).
  EXPECT_GT(zones_with_data, 0);
}

// ---------------------------------------------------------------------------------------
// Timing model (lower bounds only)

EmulatedGeometry TimingGeometry() {
  EmulatedGeometry g;
  g.nr_zones = 4;
  g.zone_size = 8 * kMiB;
  g.nr_conventional = 1;
  g.logical_block_size = 4096;
  g.max_open_zones = 4;
  return g;
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

TEST(EmulatedZonedDeviceTimingTest, SequentialWriteTakesAtLeastTransferTime) {
  ScratchDir dir;
  const std::string path = dir.path() + "/t.img";
  TimingModel t;
  t.seq_mbps = 100;
  auto dev = MustCreate(path, TimingGeometry(), t);
  ASSERT_NE(dev, nullptr);
  EXPECT_TRUE(dev->timing().enabled());
  EXPECT_EQ(dev->timing().seq_mbps, 100);
  const size_t len = 4 * kMiB;
  std::vector<char> buf(len);
  FillPattern(1, dev->ZoneStart(1), buf.data(), len);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_OK(dev->Write(dev->ZoneStart(1), buf.data(), len));
  const double took = Seconds(std::chrono::steady_clock::now() - t0);
  const double min = double(len) / (t.seq_mbps * 1e6);
  EXPECT_GE(took, min * 0.99) << "4 MiB at " << t.seq_mbps << " MB/s";

  // Reads are charged too.
  const auto t1 = std::chrono::steady_clock::now();
  ASSERT_OK(dev->Read(dev->ZoneStart(1), buf.data(), len));
  EXPECT_GE(Seconds(std::chrono::steady_clock::now() - t1), min * 0.99);
  EXPECT_TRUE(CheckPattern(1, dev->ZoneStart(1), buf.data(), len));
}

TEST(EmulatedZonedDeviceTimingTest, TimingAppliesOnOpen) {
  ScratchDir dir;
  const std::string path = dir.path() + "/t.img";
  { ASSERT_NE(MustCreate(path, TimingGeometry()), nullptr); }
  TimingModel t;
  t.seq_mbps = 50;
  auto dev = MustOpen(path, t);
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(dev->timing().seq_mbps, 50);
  const size_t len = 2 * kMiB;
  std::vector<char> buf(len, 'a');
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_OK(dev->Write(dev->ZoneStart(2), buf.data(), len));
  EXPECT_GE(Seconds(std::chrono::steady_clock::now() - t0), double(len) / 50e6 * 0.99);
}

TEST(EmulatedZonedDeviceTimingTest, NonSequentialIoPaysSeekTime) {
  ScratchDir dir;
  const std::string path = dir.path() + "/t.img";
  TimingModel t;
  t.seq_mbps = 1e6;  // transfer time negligible
  t.seek_ms = 10;
  auto dev = MustCreate(path, TimingGeometry(), t);
  ASSERT_NE(dev, nullptr);
  std::vector<char> buf(4096);
  constexpr int kIos = 6;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kIos; ++i) {
    // Alternate between two far-apart places: no I/O starts where the previous ended.
    const uint64_t off = (i % 2 == 0) ? dev->ZoneStart(1) + 64 * kKiB : dev->ZoneStart(3);
    ASSERT_OK(dev->Read(off, buf.data(), buf.size()));
  }
  const double took = Seconds(std::chrono::steady_clock::now() - t0);
  EXPECT_GE(took, kIos * t.seek_ms / 1000 * 0.99);
}

}  // namespace
}  // namespace smr
