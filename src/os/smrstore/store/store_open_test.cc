// Store::Mkfs without drives, and Store::Open when a drive of the store cannot be opened:
// the mount fails with the device's error, naming the drive's spec, and changes nothing.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/testing/test_util.h"
#include "device/device_spec.h"
#include "device/testing/device_test_backends.h"
#include "store/store.h"
#include "store/transaction.h"

namespace smr {
namespace {

TEST(StoreOpen, AMissingDriveFailsTheMountNamingIt) {
  smr::testing::ScratchDir dir;
  const std::vector<std::string> specs = {
      "emu:" + dir.path() + "/d0.img?zones=16&zone_mib=4&conv=1&max_open=8",
      "emu:" + dir.path() + "/d1.img?zones=16&zone_mib=4&conv=1&max_open=8"};
  ASSERT_OK(Store::Mkfs(dir.path() + "/store", specs, StoreOptions()));
  ASSERT_EQ(std::rename((dir.path() + "/d1.img").c_str(), (dir.path() + "/gone.img").c_str()), 0);
  auto s = Store::Open(dir.path() + "/store");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().ToString().find("d1.img"), std::string::npos) << s.status().ToString();
  // Back in place, the store mounts as it was.
  ASSERT_EQ(std::rename((dir.path() + "/gone.img").c_str(), (dir.path() + "/d1.img").c_str()), 0);
  auto again = Store::Open(dir.path() + "/store");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_OK((*again)->Close());
}

TEST(StoreOpen, MkfsWithoutDrivesIsRefusedAndCreatesNothing) {
  smr::testing::ScratchDir dir;
  Status st = Store::Mkfs(dir.path() + "/store", {}, StoreOptions());
  EXPECT_TRUE(st.code() == Status::Code::kInvalidArgument) << st.ToString();
  EXPECT_FALSE(smr::testing::PathExists(dir.path() + "/store"));
}

// Drives without conventional zones keep the superblock log in sequential zones: mkfs
// resets exactly those, and a forced mkfs over an old store leaves none of it behind.
TEST(StoreOpen, DrivesWithoutConventionalZonesMkfsMountAndMkfsAgain) {
  smr::testing::ScratchDir dir;
  const std::vector<std::string> specs = {
      "emu:" + dir.path() + "/d0.img?zones=16&zone_mib=4&conv=0&max_open=8"};
  ASSERT_OK(Store::Mkfs(dir.path() + "/a", specs, StoreOptions()));
  {
    auto s = Store::Open(dir.path() + "/a");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    Transaction t;
    t.MkColl("1.0_head", 0);
    ObjectId o;
    o.pool = 1;
    o.name = "x";
    t.Write("1.0_head", o, 0, std::string(1 << 20, 'x'));
    ASSERT_OK((*s)->Apply(std::move(t)));
    ASSERT_OK((*s)->Close());
  }
  EXPECT_CODE(Store::Mkfs(dir.path() + "/b", specs, StoreOptions()), kAlreadyExists);
  ASSERT_OK(Store::Mkfs(dir.path() + "/b", specs, StoreOptions(), /*force=*/true));
  auto s = Store::Open(dir.path() + "/b");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto colls = (*s)->ListCollections();
  ASSERT_TRUE(colls.ok()) << colls.status().ToString();
  EXPECT_TRUE(colls->empty());
  EXPECT_OK((*s)->Close());
}

// Only emulated drives are created by mkfs; a kernel device that does not exist is
// OpenDevice's error (never "cannot create"), and nothing is left behind.
TEST(StoreOpen, MkfsOnAMissingKernelDeviceFailsAsOpeningItDoes) {
  smr::testing::ScratchDir dir;
  const std::string spec = "zbd:" + dir.path() + "/no-such-node";
  auto opened = OpenDevice(spec);
  ASSERT_FALSE(opened.ok());
  Status st = Store::Mkfs(dir.path() + "/store", {spec}, StoreOptions());
  EXPECT_TRUE(st.code() == opened.status().code())
      << st.ToString() << " vs " << opened.status().ToString();
  EXPECT_FALSE(smr::testing::PathExists(dir.path() + "/store"));
  EXPECT_FALSE(smr::testing::PathExists(dir.path() + "/no-such-node"));
}

}  // namespace
}  // namespace smr
