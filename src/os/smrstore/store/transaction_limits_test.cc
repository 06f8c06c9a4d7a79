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

}  // namespace
}  // namespace smr
