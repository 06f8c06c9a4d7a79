// Tests of meta/key_schema.h: pinned key bytes, decode round trips, and the orders the
// layers above rely on (objects per collection, omap keys per nid, zones).

#include "meta/key_schema.h"

#include <cstdint>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "common/testing/test_util.h"

namespace smr {
namespace {

TEST(KeySchemaTest, PinnedBytes) {
  EXPECT_EQ(keys::FormatVersionKey(), "Vformat_version");
  EXPECT_EQ(keys::EncodeFormatVersion(1), std::string("\x01\x00\x00\x00", 4));
  EXPECT_EQ(keys::ValueKey("superblock"), "Ssuperblock");
  EXPECT_EQ(keys::CounterKey("nid_max"), "Nnid_max");
  EXPECT_EQ(keys::CollectionKey(std::string("a\0b", 3)), std::string("Ca\0\xff" "b\0\x01", 7));
  EXPECT_EQ(keys::ObjectKeyPrefix(0x0102), std::string("O\0\0\0\0\0\0\x01\x02", 9));
  EXPECT_EQ(keys::OmapHeaderKey(3), std::string("H\0\0\0\0\0\0\0\x03", 9));
  EXPECT_EQ(keys::OmapKey(3, "k"), std::string("M\0\0\0\0\0\0\0\x03k", 10));
  EXPECT_EQ(keys::ZoneKey(0x0102, 0x03040506), std::string("Z\x01\x02\x03\x04\x05\x06", 7));
}

TEST(KeySchemaTest, PrefixesAreDistinct) {
  const std::set<char> prefixes = {keys::kFormatVersionPrefix, keys::kValuePrefix,
                                   keys::kCounterPrefix,       keys::kCollectionPrefix,
                                   keys::kObjectPrefix,        keys::kOmapHeaderPrefix,
                                   keys::kOmapPrefix,          keys::kZonePrefix};
  EXPECT_EQ(prefixes.size(), 8u);
}

TEST(KeySchemaTest, DecodeRoundTrips) {
  for (const std::string& name : {std::string(), std::string("meta"), std::string("2.1f_head"),
                                  std::string("\0\0\xff", 3)}) {
    Result<std::string> d = keys::DecodeCollectionKey(keys::CollectionKey(name));
    ASSERT_OK(d.status());
    EXPECT_EQ(*d, name);
  }
  EXPECT_CODE(keys::DecodeCollectionKey("Cabc").status(), kCorruption);
  EXPECT_CODE(keys::DecodeCollectionKey(std::string("Xabc\0\x01", 6)).status(), kCorruption);

  Result<std::pair<uint16_t, uint32_t>> z = keys::DecodeZoneKey(keys::ZoneKey(65535, 7));
  ASSERT_OK(z.status());
  EXPECT_EQ(z->first, 65535);
  EXPECT_EQ(z->second, 7u);
  EXPECT_CODE(keys::DecodeZoneKey("Z123").status(), kCorruption);

  ObjectId oid;
  oid.pool = 3;
  oid.name = "obj";
  oid.hash = 0x1234;
  Result<ObjectId> o = keys::DecodeObjectKeyOf(9, keys::ObjectKey(9, oid));
  ASSERT_OK(o.status());
  EXPECT_EQ(*o, oid);
  EXPECT_CODE(keys::DecodeObjectKeyOf(8, keys::ObjectKey(9, oid)).status(), kCorruption);
}

TEST(KeySchemaTest, OrdersNeededAbove) {
  // Collections: every object key of cid c sorts inside [prefix(c), successor(prefix(c))).
  ObjectId max_id;
  max_id.max = true;
  ObjectId some;
  some.name = "x";
  for (uint64_t cid : {0ull, 1ull, 255ull, 256ull, ~0ull}) {
    const std::string p = keys::ObjectKeyPrefix(cid);
    const std::string end = keys::PrefixSuccessor(p);
    for (const ObjectId& id : {some, max_id}) {
      const std::string k = keys::ObjectKey(cid, id);
      EXPECT_LE(p, k);
      EXPECT_LT(k, end);
    }
  }
  // Omap keys sort by raw key bytes and never cross into the next nid.
  EXPECT_LT(keys::OmapKey(5, "a"), keys::OmapKey(5, std::string("a\0", 2)));
  EXPECT_LT(keys::OmapKey(5, std::string("a\0", 2)), keys::OmapKey(5, "ab"));
  EXPECT_LT(keys::OmapKey(5, std::string(100, '\xff')), keys::OmapKey(6, ""));
  EXPECT_LT(keys::OmapKey(5, std::string(100, '\xff')),
            keys::PrefixSuccessor(keys::OmapKeyPrefix(5)));
  // Zones sort by (drive, zone).
  EXPECT_LT(keys::ZoneKey(0, 0xffffffff), keys::ZoneKey(1, 0));
  EXPECT_LT(keys::ZoneKey(1, 255), keys::ZoneKey(1, 256));
}

TEST(KeySchemaTest, PrefixSuccessor) {
  EXPECT_EQ(keys::PrefixSuccessor("O"), "P");
  EXPECT_EQ(keys::PrefixSuccessor(std::string("M\x01\xff\xff", 4)), std::string("M\x02", 2));
  EXPECT_EQ(keys::PrefixSuccessor(std::string("M\xff\xff\xff\xff\xff\xff\xff\xff", 9)), "N");
  EXPECT_EQ(keys::PrefixSuccessor(std::string("\xff\xff", 2)), "");
}

}  // namespace
}  // namespace smr
