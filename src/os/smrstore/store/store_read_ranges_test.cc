// Store::Fiemap: the allocated ranges of an object backed by extents, exactly (holes left
// out, contiguous extents merged, clipped to the range asked for); and reads of a few bytes
// of a block-sized record, which must not take the whole-payload fast path.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "store/store.h"
#include "store/transaction.h"

namespace smr {
namespace {

constexpr uint64_t kKiB = 1024;

TEST(StoreReadRanges, FiemapOfAnObjectWithHoles) {
  smr::testing::ScratchDir dir;
  ASSERT_OK(Store::Mkfs(dir.path() + "/store",
                        {"emu:" + dir.path() + "/d0.img?zones=16&zone_mib=4&conv=1&max_open=8"},
                        StoreOptions()));
  auto s = Store::Open(dir.path() + "/store");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Store& store = **s;
  ObjectId o;
  o.pool = 1;
  o.name = "holes";
  Transaction t;
  t.MkColl("1.0_head", 0);
  t.Write("1.0_head", o, 0, std::string(64 * kKiB, 'a'));
  t.Write("1.0_head", o, 64 * kKiB, std::string(64 * kKiB, 'b'));  // contiguous: merged
  t.Write("1.0_head", o, 1024 * kKiB, std::string(128 * kKiB, 'c'));
  ASSERT_OK(store.Apply(std::move(t)));
  using Ranges = std::map<uint64_t, uint64_t>;
  auto all = store.Fiemap("1.0_head", o, 0, 0);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(*all, (Ranges{{0, 128 * kKiB}, {1024 * kKiB, 128 * kKiB}}));
  auto part = store.Fiemap("1.0_head", o, 96 * kKiB, 1000 * kKiB);
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(*part, (Ranges{{96 * kKiB, 32 * kKiB}, {1024 * kKiB, 72 * kKiB}}));
  auto hole = store.Fiemap("1.0_head", o, 200 * kKiB, 100 * kKiB);
  ASSERT_TRUE(hole.ok());
  EXPECT_TRUE(hole->empty());
  auto past = store.Fiemap("1.0_head", o, 2048 * kKiB, 0);
  ASSERT_TRUE(past.ok());
  EXPECT_TRUE(past->empty());
  EXPECT_OK(store.Close());
}

// Reads shorter than a block-sized record's payload (here 8 KiB records, read from offset
// 0): each returns exactly the bytes asked for. The read path reads a whole payload straight
// into the caller's buffer only when the caller asked for all of it.
TEST(StoreReadRanges, ShortReadsOfABlockSizedRecordReturnExactlyTheBytesAsked) {
  smr::testing::ScratchDir dir;
  StoreOptions opts;
  opts.inline_max = 0;  // every object in the zones
  ASSERT_OK(Store::Mkfs(dir.path() + "/store",
                        {"emu:" + dir.path() + "/d0.img?zones=16&zone_mib=4&conv=1&max_open=8"},
                        opts));
  auto s = Store::Open(dir.path() + "/store");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Store& store = **s;
  ObjectId o;
  o.pool = 1;
  o.name = "blocks";
  std::string data(8 * kKiB, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>('a' + i % 23);
  Transaction t;
  t.MkColl("1.0_head", 0);
  t.Write("1.0_head", o, 0, data);
  ASSERT_OK(store.Apply(std::move(t)));
  for (uint64_t len : {1u, 2u, 7u, 4095u, 4096u, 8191u, 8192u}) {
    auto r = store.Read("1.0_head", o, 0, len);
    ASSERT_TRUE(r.ok()) << len << ": " << r.status().ToString();
    EXPECT_EQ(*r, data.substr(0, len)) << "read of " << len << " bytes";
  }
  EXPECT_OK(store.Close());
}

}  // namespace
}  // namespace smr
