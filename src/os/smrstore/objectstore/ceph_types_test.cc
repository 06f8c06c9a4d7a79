// The compat declarations of hobject_t / ghobject_t / coll_t against Ceph's real code in
// libceph-common.so.2: layouts, parse / print / encode / decode round trips, and the
// engine's object order against the real cmp(ghobject_t, ghobject_t).
#include <cstddef>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "objectstore/ceph_types.h"
#include "osd/osd_types.h"

namespace smr::ceph_adapter {
namespace {

template <typename T, typename M>
size_t OffsetOf(const T& t, const M& m) {
  return static_cast<size_t>(reinterpret_cast<const char*>(&m) -
                             reinterpret_cast<const char*>(&t));
}

TEST(CephTypes, LayoutsMatchCeph16) {
  ghobject_t g;
  EXPECT_EQ(sizeof(hobject_t), 0x80u);
  EXPECT_EQ(sizeof(ghobject_t), 0x90u);
  EXPECT_EQ(OffsetOf(g.hobj, g.hobj.snap), 0x20u);
  EXPECT_EQ(OffsetOf(g.hobj, g.hobj.pool), 0x38u);
  EXPECT_EQ(OffsetOf(g.hobj, g.hobj.nspace), 0x40u);
  EXPECT_EQ(OffsetOf(g, g.generation), 0x80u);
  EXPECT_EQ(OffsetOf(g, g.shard_id), 0x88u);
  EXPECT_EQ(OffsetOf(g, g.max), 0x89u);
  EXPECT_EQ(sizeof(coll_t), 0x58u);
  EXPECT_EQ(sizeof(spg_t), 0x18u);
  EXPECT_EQ(shard_id_t::NO_SHARD.id, -1);
}

ghobject_t Make(const std::string& name, uint32_t hash, int64_t pool, const std::string& ns = "",
                const std::string& key = "", uint64_t snap = CEPH_NOSNAP,
                gen_t gen = ghobject_t::NO_GEN, int8_t shard = -1) {
  return ghobject_t(hobject_t(object_t(name), key, snapid_t(snap), hash, pool, ns), gen,
                    shard_id_t(shard));
}

std::string Print(const ghobject_t& g) {
  std::ostringstream o;
  o << g;
  return o.str();
}

TEST(CephTypes, RealParseAndPrintRoundTrip) {
  // Text forms as a FileStore OSD's transaction dump prints them.
  // Text forms as a FileStore OSD's transaction dump prints them, and the real printer's
  // output for objects with a namespace, a locator key, a snap, a generation and a shard.
  std::vector<std::string> texts = {"#2:dd23e1a9:::o2:head#", "#2:c0000000::::head#",
                                    "#-1:7b3f43c4:::osd_superblock:0#"};
  texts.push_back(Print(Make("obj:na%me", 0x01234567, 3, "ns1", "loc:key", 4)));
  texts.push_back(Print(Make("x", 0x80000000, 1, "", "", CEPH_NOSNAP, 7, 2)));
  for (const std::string& text : texts) {
    ghobject_t g;
    ASSERT_TRUE(g.parse(text)) << text;
    EXPECT_EQ(Print(g), text);
    // Through the engine's ObjectId and back: same object, same text.
    const ghobject_t back = ToGhobject(ToObjectId(g));
    EXPECT_EQ(cmp(back, g), 0) << text;
    EXPECT_EQ(Print(back), text);
  }
  ghobject_t g;
  EXPECT_FALSE(g.parse("not an object"));
}

TEST(CephTypes, FieldsSurviveRealEncodeDecode) {
  const ghobject_t g = Make("rbd_data.1234", 0xdeadbeef, 7, "nspace", "lockey", 42, 9, 3);
  ceph::buffer::list bl;
  g.encode(bl);
  EXPECT_EQ(bl.length(), g.encoded_size());
  ghobject_t d;
  auto p = bl.cbegin();
  d.decode(p);
  EXPECT_EQ(cmp(d, g), 0);
  const ObjectId o = ToObjectId(d);
  EXPECT_EQ(o.name, "rbd_data.1234");
  EXPECT_EQ(o.hash, 0xdeadbeefu);
  EXPECT_EQ(o.pool, 7);
  EXPECT_EQ(o.nspace, "nspace");
  EXPECT_EQ(o.key, "lockey");
  EXPECT_EQ(o.snap, 42u);
  EXPECT_EQ(o.generation, 9u);
  EXPECT_EQ(o.shard, 3);
  EXPECT_TRUE(ToObjectId(ghobject_t::get_max()).max);
}

TEST(CephTypes, EngineOrderEqualsRealCmp) {
  std::mt19937_64 rng(20261123);
  const std::vector<std::string> names = {"", "a", "b", "ab", "obj", "obj1", "rbd_data.1"};
  const std::vector<std::string> spaces = {"", "ns", "z"};
  std::vector<ghobject_t> objs;
  for (int i = 0; i < 400; ++i) {
    const uint32_t hash = (i % 3 == 0) ? static_cast<uint32_t>(rng() % 4) * 0x40000000u
                                       : static_cast<uint32_t>(rng());
    objs.push_back(Make(names[rng() % names.size()], hash, static_cast<int64_t>(rng() % 3) - 1,
                        spaces[rng() % spaces.size()], (rng() % 5 == 0) ? "k" : "",
                        (rng() % 4 == 0) ? rng() % 5 : CEPH_NOSNAP,
                        (rng() % 4 == 0) ? rng() % 3 : ghobject_t::NO_GEN,
                        static_cast<int8_t>((rng() % 3) - 1)));
  }
  objs.push_back(ghobject_t::get_max());
  int mismatches = 0;
  for (size_t i = 0; i < objs.size(); ++i) {
    for (size_t j = 0; j < objs.size(); j += 7) {
      const int real = cmp(objs[i], objs[j]);
      const int ours = Compare(ToObjectId(objs[i]), ToObjectId(objs[j]));
      const int rs = (real > 0) - (real < 0), os = (ours > 0) - (ours < 0);
      if (rs != os && ++mismatches <= 5) {
        ADD_FAILURE() << Print(objs[i]) << " vs " << Print(objs[j]) << ": Ceph " << rs
                      << ", smrstore " << os;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(CephTypes, CollNamesThroughRealCode) {
  for (const std::string text : {"meta", "2.3_head", "1.1f_head", "5.0s2_head", "2.3_TEMP"}) {
    coll_t c;
    ASSERT_TRUE(c.parse(text)) << text;
    EXPECT_EQ(c.to_str(), text);
    coll_t copy = c;
    EXPECT_EQ(copy.to_str(), text);
    ceph::buffer::list bl;
    c.encode(bl);
    coll_t d;
    auto p = bl.cbegin();
    d.decode(p);
    // Ceph 16.2.15's coll_t::decode (encoding v2) sets the fields but not the cached name;
    // Ceph's users copy decoded coll_ts (map keys, vectors), and a copy recomputes it.
    const coll_t copy_of_decoded = d;
    EXPECT_EQ(copy_of_decoded.to_str(), text);
    EXPECT_TRUE(copy_of_decoded == c);
  }
  coll_t c;
  EXPECT_FALSE(c.parse("not-a-collection"));
  EXPECT_EQ(coll_t::pg(spg_t(pg_t(0x1f, 2))).to_str(), "2.1f_head");
}

}  // namespace
}  // namespace smr::ceph_adapter
