// Store::Fiemap: the allocated ranges of an object backed by extents, exactly (holes left
// out, contiguous extents merged, clipped to the range asked for); reads of a few bytes
// of a block-sized record, which must not take the whole-payload fast path; and
// Store::ReadInto, which reads into the caller's memory without zero-filling it first.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

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

// ReadInto fills a buffer that holds garbage: extents in place, every hole (before, between
// and after extents) zeroed, inline data copied; it asks for exactly the
// bytes the read returns, also past the end and for nothing, and a missing buffer is an
// error, never a crash.
TEST(StoreReadRanges, ReadIntoADirtyBufferZeroesEveryHoleAndSizesItExactly) {
  smr::testing::ScratchDir dir;
  StoreOptions opts;
  opts.inline_max = 4096;
  ASSERT_OK(Store::Mkfs(dir.path() + "/store",
                        {"emu:" + dir.path() + "/d0.img?zones=16&zone_mib=4&conv=1&max_open=8"},
                        opts));
  auto s = Store::Open(dir.path() + "/store");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  Store& store = **s;
  ObjectId sparse, tiny;
  sparse.pool = tiny.pool = 1;
  sparse.name = "sparse";
  tiny.name = "tiny";
  Transaction t;
  t.MkColl("1.0_head", 0);
  t.Write("1.0_head", sparse, 8 * kKiB, std::string(64 * kKiB, 'a'));    // hole before
  t.Write("1.0_head", sparse, 100 * kKiB, std::string(1500 * kKiB, 'b'));  // hole between
  t.Truncate("1.0_head", sparse, 2048 * kKiB);                             // hole after
  t.Write("1.0_head", tiny, 0, std::string(100, 't'));
  t.Truncate("1.0_head", tiny, 300);  // inline: 100 bytes then zeros
  ASSERT_OK(store.Apply(std::move(t)));
  std::string expect(2048 * kKiB, '\0');
  expect.replace(8 * kKiB, 64 * kKiB, std::string(64 * kKiB, 'a'));
  expect.replace(100 * kKiB, 1500 * kKiB, std::string(1500 * kKiB, 'b'));
  struct Case {
    const ObjectId* oid;
    uint64_t offset, len;
    std::string want;
  };
  const std::string tiny_data = std::string(100, 't') + std::string(200, '\0');
  const std::vector<Case> cases = {
      {&sparse, 0, 0, expect},
      {&sparse, 4 * kKiB, 8 * kKiB, expect.substr(4 * kKiB, 8 * kKiB)},
      {&sparse, 70 * kKiB, 40 * kKiB, expect.substr(70 * kKiB, 40 * kKiB)},
      {&sparse, 1590 * kKiB, 4096 * kKiB, expect.substr(1590 * kKiB)},  // past the end
      {&sparse, 4096 * kKiB, 10, ""},                                    // beyond it
      {&tiny, 0, 0, tiny_data},
      {&tiny, 50, 1000, tiny_data.substr(50)},
      {&tiny, 150, 10, tiny_data.substr(150, 10)},
  };
  for (const Case& c : cases) {
    std::string buf;
    uint64_t asked = UINT64_MAX;
    auto n = store.ReadInto("1.0_head", *c.oid, c.offset, c.len, [&](uint64_t len) {
      asked = len;
      buf.assign(len, '\xAA');  // garbage the read must overwrite
      return buf.data();
    });
    ASSERT_TRUE(n.ok()) << c.oid->name << " " << c.offset << "~" << c.len << ": "
                        << n.status().ToString();
    EXPECT_EQ(asked, c.want.size()) << c.oid->name << " " << c.offset << "~" << c.len;
    EXPECT_EQ(*n, c.want.size());
    EXPECT_TRUE(buf == c.want) << c.oid->name << " " << c.offset << "~" << c.len
                               << ": wrong bytes (a hole not zeroed?)";
    auto r = store.Read("1.0_head", *c.oid, c.offset, c.len);  // the string form agrees
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(*r == c.want);
  }
  auto none = store.ReadInto("1.0_head", sparse, 0, 0, [](uint64_t) { return nullptr; });
  EXPECT_TRUE(none.status().IsInvalidArgument()) << none.status().ToString();
  auto missing = store.ReadInto("1.0_head", tiny, 0, 0, [](uint64_t) { return nullptr; });
  EXPECT_TRUE(missing.status().IsInvalidArgument());
  ObjectId ghost;
  ghost.pool = 1;
  ghost.name = "ghost";
  bool called = false;
  auto gone = store.ReadInto("1.0_head", ghost, 0, 0, [&](uint64_t) {
    called = true;
    return nullptr;
  });
  EXPECT_TRUE(gone.status().IsNotFound());
  EXPECT_FALSE(called) << "no buffer is asked for an object that does not exist";
  EXPECT_OK(store.Close());
}

}  // namespace
}  // namespace smr
