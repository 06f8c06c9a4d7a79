// A commit group's records go to each zone as one device write (ZonedDevice::WriteV), and
// the store's counters say so: device_writes = the Write calls the drive saw, fewer than
// the buffers (record headers, payloads, padded tails) they gathered.
#include <gtest/gtest.h>

#include <string>

#include "common/testing/test_util.h"
#include "store/store.h"
#include "store/testing/store_on_faulty_drive.h"

namespace smr {
namespace {

using testing::Data;
using testing::kColl;
using testing::Obj;

class GroupWriteTest : public testing::StoreOnFaultyDrive {
 protected:
  void SetUp() override {
    spec_ = "emu:" + dir_.path() + "/d0.img?zones=24&zone_mib=8&conv=1&max_open=8";
    options_.gc_auto = false;
    ASSERT_NO_FATAL_FAILURE(MkfsAndMount(dir_.path() + "/st", options_));
    Transaction t;
    t.MkColl(kColl, 0);
    ASSERT_OK(store_->Apply(std::move(t)));
  }
};

TEST_F(GroupWriteTest, EachZoneAGroupWritesIsOneDeviceWrite) {
  const StoreCounters c0 = store_->Counters();
  const uint64_t writes0 = fault_->writes();
  // One transaction, one group: eight records of 100 000 bytes (not block multiples: each
  // record is a header block, its whole blocks and a padded tail) and the journal record.
  Transaction t;
  for (uint64_t i = 0; i < 8; ++i) t.Write(kColl, Obj(i), 0, Data(i, 100000));
  ASSERT_OK(store_->Apply(std::move(t)));
  const StoreCounters c1 = store_->Counters();
  const uint64_t writes = fault_->writes() - writes0;
  const uint64_t counted = c1.device_writes - c0.device_writes;
  const uint64_t buffers = c1.device_write_buffers - c0.device_write_buffers;
  EXPECT_EQ(writes, counted) << "the store's count differs from the drive's";
  EXPECT_LE(writes, 3u) << "more device writes than zones written (data, journal)";
  EXPECT_GE(buffers, 8u * 3) << "each record is at least three buffers";
  for (uint64_t i = 0; i < 8; ++i) {
    auto got = store_->Read(kColl, Obj(i), 0, 0);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(*got == Data(i, 100000)) << i;
  }
  Remount();
  auto f = store_->Fsck(/*deep=*/true, /*repair=*/false);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->ok()) << (f->errors.empty() ? "" : f->errors.front());
}

}  // namespace
}  // namespace smr
