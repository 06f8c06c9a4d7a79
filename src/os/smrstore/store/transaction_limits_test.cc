// Transaction::Validate: Ceph's name limits (issue 15 part 4, item 6). A 90 kB xattr name
// used to be accepted; Ceph's own defaults are far lower (ceph-conf -D:
// osd_max_attr_name_len 100, osd_max_object_name_len 2048, osd_max_object_namespace_len 256).
#include <gtest/gtest.h>

#include <string>

#include "store/transaction.h"

namespace smr {
namespace {

ObjectId Obj(const std::string& name) {
  ObjectId o;
  o.name = name;
  return o;
}

TEST(TransactionLimitsTest, XattrNamesUpToCephsLimit) {
  Transaction ok;
  ok.SetAttr("c", Obj("o"), std::string(100, 'a'), "v");
  ok.RmAttr("c", Obj("o"), std::string(100, 'a'));
  EXPECT_TRUE(ok.Validate().ok()) << ok.Validate().ToString();

  Transaction big;
  big.Touch("c", Obj("o"));
  big.SetAttr("c", Obj("o"), std::string(90000, 'a'), "v");
  Status s = big.Validate();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("osd_max_attr_name_len (100)"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("90000 bytes"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("op 1"), std::string::npos) << s.ToString();

  Transaction one_over;
  one_over.SetAttrs("c", Obj("o"), {{"x", "1"}, {std::string(101, 'b'), "2"}});
  EXPECT_TRUE(one_over.Validate().IsInvalidArgument());
  Transaction rm;
  rm.RmAttr("c", Obj("o"), std::string(101, 'b'));
  EXPECT_TRUE(rm.Validate().IsInvalidArgument());
}

TEST(TransactionLimitsTest, ObjectNamesKeysAndNamespaces) {
  Transaction ok;
  ObjectId o = Obj(std::string(2048, 'n'));
  o.key = std::string(2048, 'k');
  o.nspace = std::string(256, 's');
  ok.Write("c", o, 0, "data");
  ok.Clone("c", o, o);
  EXPECT_TRUE(ok.Validate().ok()) << ok.Validate().ToString();

  Transaction name;
  name.Touch("c", Obj(std::string(2049, 'n')));
  Status s = name.Validate();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("osd_max_object_name_len (2048)"), std::string::npos)
      << s.ToString();

  Transaction key;
  ObjectId k = Obj("o");
  k.key = std::string(2049, 'k');
  key.Remove("c", k);
  EXPECT_TRUE(key.Validate().IsInvalidArgument());

  Transaction ns;
  ObjectId n = Obj("o");
  n.nspace = std::string(257, 's');
  ns.OmapSetKeys("c", n, {{"k", "v"}});
  s = ns.Validate();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("osd_max_object_namespace_len (256)"), std::string::npos)
      << s.ToString();

  // Destinations of clone and rename are checked too.
  Transaction dest;
  dest.CollMoveRename("c", Obj("o"), "d", Obj(std::string(3000, 'x')));
  s = dest.Validate();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("destination object name"), std::string::npos) << s.ToString();
}

TEST(TransactionLimitsTest, OmapKeysAndCollectionOpsHaveNoNameLimit) {
  // Ceph sets no length limit on omap keys; collection ops name no object.
  Transaction t;
  t.MkColl(std::string(500, 'c'), 0);
  t.OmapSetKeys("c", Obj("o"), {{std::string(10000, 'k'), "v"}});
  t.OmapRmKeys("c", Obj("o"), {std::string(10000, 'k')});
  EXPECT_TRUE(t.Validate().ok()) << t.Validate().ToString();
}

// BlueStore refuses with E2BIG any range ending at or past OBJECT_MAX_SIZE (0xffffffff).
// Before this check a truncate of an inline object to 2^60 bytes resized a string to that
// size in the commit thread, and write/zero ranges near 2^64 wrapped around.
TEST(TransactionLimitsTest, ByteRangesEndBelowBlueStoresObjectSizeLimit) {
  const uint64_t max = Transaction::kMaxObjectSize;
  EXPECT_EQ(max, 0xffffffffull);
  Transaction ok;
  ok.Write("c", Obj("o"), max - 2, "x");                 // ends at max - 1
  ok.Zero("c", Obj("o"), 0, max - 1);
  ok.Truncate("c", Obj("o"), max - 1);
  ok.CloneRange("c", Obj("o"), Obj("p"), max - 11, 10, max - 11);
  ok.Write("c", Obj("o"), max - 1, "");                   // empty: nothing past it
  EXPECT_TRUE(ok.Validate().ok()) << ok.Validate().ToString();

  auto refused = [](const Transaction& t, const std::string& what) {
    const Status s = t.Validate();
    EXPECT_TRUE(s.IsInvalidArgument()) << what << ": " << s.ToString();
    EXPECT_NE(s.ToString().find("OBJECT_MAX_SIZE"), std::string::npos) << s.ToString();
    return s.ToString();
  };
  Transaction w;
  w.Touch("c", Obj("o"));
  w.Write("c", Obj("o"), max - 1, "x");  // ends at max
  EXPECT_NE(refused(w, "write").find("write (op 1): range 4294967294~1"), std::string::npos);
  Transaction wrap;
  wrap.Write("c", Obj("o"), UINT64_MAX - 1, "abc");  // off + len wraps around
  refused(wrap, "write that wraps");
  Transaction z;
  z.Zero("c", Obj("o"), 1, UINT64_MAX);
  refused(z, "zero that wraps");
  Transaction z2;
  z2.Zero("c", Obj("o"), max, 0);  // an empty range starting at the limit
  refused(z2, "zero at the limit");
  Transaction tr;
  tr.Truncate("c", Obj("o"), uint64_t{1} << 60);
  EXPECT_NE(refused(tr, "truncate").find("truncate (op 0): size 1152921504606846976"),
            std::string::npos);
  Transaction tr2;
  tr2.Truncate("c", Obj("o"), max);
  refused(tr2, "truncate to the limit");
  Transaction src;
  src.CloneRange("c", Obj("o"), Obj("p"), max, 1, 0);
  EXPECT_NE(refused(src, "clone_range source").find("source range"), std::string::npos);
  Transaction dst;
  dst.CloneRange("c", Obj("o"), Obj("p"), 0, 1, max - 1);
  EXPECT_NE(refused(dst, "clone_range destination").find("destination range"),
            std::string::npos);
}

}  // namespace
}  // namespace smr
