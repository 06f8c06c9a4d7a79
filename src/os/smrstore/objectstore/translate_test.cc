// Translate (objectstore/translate.h): Ceph transactions -> engine ops, and the refusal of
// malformed ones — transactions as Ceph's decode leaves them from a peer's message, whose
// op count, index tables, op records and length prefixes are the peer's numbers. Each
// malformed case here used to read out of bounds (an index past its table wrote past the
// iterator's vector; an op count past op_bl read past it) or allocate what a length prefix
// said; fuzz/transaction_fuzz.cc found the first within a second with the check removed.
#include "objectstore/translate.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "objectstore/testing/decoded_transaction.h"

namespace smr::ceph_adapter {
namespace {

using CephTxn = ObjectStore::Transaction;
using Access = ceph::os::DecodedTransactionAccess;

ceph::buffer::list Bl(const std::string& s) {
  ceph::buffer::list bl;
  bl.append(s.data(), s.size());
  return bl;
}

ghobject_t Obj(const std::string& name) {
  return ghobject_t(hobject_t(object_t(name), "", snapid_t(CEPH_NOSNAP), 7, 2, ""));
}

const coll_t kColl = coll_t(spg_t(pg_t(0x1f, 2)));

struct Translated {
  int r = 0;
  std::string err;
  smr::Transaction out;
};

Translated TranslateAll(std::vector<CephTxn>& tls) {
  Translated res;
  Touched touched;
  res.r = Translate(tls, &res.out, &touched, &res.err);
  return res;
}

// A write of "hello" at 100, a setattr and a setattrs, built by the builders. data_bl:
// [0] write length 5, "hello"; [9] name length 1, "_", [14] value length 5, "value";
// [23] setattrs count 1, [27] key length 1, "k", [32] value length 1, "v".
CephTxn WellFormed() {
  CephTxn t;
  t.write(kColl, Obj("a"), 100, 5, Bl("hello"));
  ceph::buffer::list v = Bl("value");
  t.setattr(kColl, Obj("a"), "_", v);
  std::map<std::string, ceph::buffer::ptr> attrs;
  attrs["k"] = ceph::buffer::ptr("v", 1);
  t.setattrs(kColl, Obj("a"), attrs);
  return t;
}

// `t`'s parts with some replaced, as a decoded transaction.
std::vector<CephTxn> Decoded(uint64_t ops, std::string op_bytes, std::string data,
                             std::map<coll_t, uint32_t> colls,
                             std::map<ghobject_t, uint32_t> objects) {
  std::vector<CephTxn> tls(1);
  Access::Set(&tls[0], ops, op_bytes, data, std::move(colls), std::move(objects));
  return tls;
}

TEST(TranslateTest, BuiltOpsBecomeEngineOpsInOrder) {
  std::vector<CephTxn> tls(2);
  tls[0] = WellFormed();
  tls[1].omap_rmkeyrange(kColl, Obj("b"), "k1", "k9");
  tls[1].nop();
  Translated res = TranslateAll(tls);
  ASSERT_EQ(res.r, 0) << res.err;
  ASSERT_EQ(res.out.ops().size(), 4u);  // nop: no engine op
  const auto& w = res.out.ops()[0];
  EXPECT_EQ(w.code, smr::Transaction::OpCode::kWrite);
  EXPECT_EQ(w.coll, "2.1f_head");
  EXPECT_EQ(w.oid.name, "a");
  EXPECT_EQ(w.offset, 100u);
  EXPECT_EQ(w.write_data(), "hello");
  EXPECT_TRUE(w.data.empty()) << "the payload is borrowed from the bufferlist, not copied";
  EXPECT_EQ(res.out.ops()[1].kv.at("_"), "value");
  EXPECT_EQ(res.out.ops()[2].kv.at("k"), "v");
  EXPECT_EQ(res.out.ops()[3].data, "k1");
  EXPECT_EQ(res.out.ops()[3].data2, "k9");
}

TEST(TranslateTest, ANumberPastItsIndexTableIsRefused) {
  CephTxn t = WellFormed();
  auto colls = Access::Colls(t);
  ASSERT_EQ(colls.size(), 1u);
  colls.begin()->second = 5;  // one collection, numbered 5
  auto tls = Decoded(Access::Ops(t), Access::OpBytes(t), Access::DataBytes(t), colls,
                     Access::Objects(t));
  Translated res = TranslateAll(tls);
  EXPECT_EQ(res.r, -EINVAL);
  EXPECT_NE(res.err.find("malformed transaction: op 0"), std::string::npos) << res.err;
  EXPECT_NE(res.err.find("has index 5, past the table of 1"), std::string::npos) << res.err;
  // The same for the object table.
  auto objects = Access::Objects(t);
  ASSERT_EQ(objects.size(), 1u);
  objects.begin()->second = 9;
  auto tls2 = Decoded(Access::Ops(t), Access::OpBytes(t), Access::DataBytes(t),
                      Access::Colls(t), objects);
  Translated res2 = TranslateAll(tls2);
  EXPECT_EQ(res2.r, -EINVAL);
  EXPECT_NE(res2.err.find("an object has index 9, past the table of 1"), std::string::npos)
      << res2.err;
}

TEST(TranslateTest, AnObjectIndexPastItsTableIsRefused) {
  CephTxn t = WellFormed();
  std::string ops = Access::OpBytes(t);
  const uint32_t bad = 7;
  std::memcpy(&ops[sizeof(CephTxn::Op) + 8], &bad, 4);  // the second op's oid
  auto tls = Decoded(Access::Ops(t), ops, Access::DataBytes(t), Access::Colls(t),
                     Access::Objects(t));
  Translated res = TranslateAll(tls);
  EXPECT_EQ(res.r, -EINVAL);
  EXPECT_NE(res.err.find("op 1 (code 14)"), std::string::npos) << res.err;
  EXPECT_NE(res.err.find("object index out of range"), std::string::npos) << res.err;
}

TEST(TranslateTest, AnOpCountPastWhatOpBlHoldsIsRefused) {
  CephTxn t = WellFormed();
  auto tls = Decoded(4, Access::OpBytes(t), Access::DataBytes(t), Access::Colls(t),
                     Access::Objects(t));
  Translated res = TranslateAll(tls);
  EXPECT_EQ(res.r, -EINVAL);
  EXPECT_NE(res.err.find("op 3: Transaction: op count 4 is more than op_bl holds (216 bytes)"),
            std::string::npos)
      << res.err;
  // Half an op record is no op either.
  auto half = Decoded(3, Access::OpBytes(t).substr(0, 200), Access::DataBytes(t),
                      Access::Colls(t), Access::Objects(t));
  EXPECT_EQ(TranslateAll(half).r, -EINVAL);
}

TEST(TranslateTest, ALengthPrefixPastDataBlIsRefusedBeforeAllocating) {
  CephTxn t = WellFormed();
  std::string data = Access::DataBytes(t);
  const uint32_t huge = 0xfffffff0;  // the write's payload "length": ~4 GiB
  std::memcpy(&data[0], &huge, 4);
  auto tls = Decoded(Access::Ops(t), Access::OpBytes(t), data, Access::Colls(t),
                     Access::Objects(t));
  Translated res = TranslateAll(tls);
  EXPECT_EQ(res.r, -EINVAL);
  EXPECT_NE(res.err.find("op 0 (code 10)"), std::string::npos) << res.err;
  EXPECT_NE(res.err.find("a payload of 4294967280 bytes, but data_bl holds"), std::string::npos)
      << res.err;
  // A setattrs value "of 4 GiB": refused before a buffer of that size is allocated.
  std::string data2 = Access::DataBytes(t);
  std::memcpy(&data2[32], &huge, 4);
  auto tls2 = Decoded(Access::Ops(t), Access::OpBytes(t), data2, Access::Colls(t),
                      Access::Objects(t));
  Translated res2 = TranslateAll(tls2);
  EXPECT_EQ(res2.r, -EINVAL);
  EXPECT_NE(res2.err.find("op 2 (code 15)"), std::string::npos) << res2.err;
  EXPECT_NE(res2.err.find("a payload of 4294967280 bytes, but data_bl holds 1 more"),
            std::string::npos)
      << res2.err;
  // data_bl cut short inside the setattr's value: Ceph's end_of_buffer, refused the same.
  auto cut = Decoded(Access::Ops(t), Access::OpBytes(t), Access::DataBytes(t).substr(0, 11),
                     Access::Colls(t), Access::Objects(t));
  Translated c = TranslateAll(cut);
  EXPECT_EQ(c.r, -EINVAL);
  EXPECT_NE(c.err.find("malformed transaction: op 1"), std::string::npos) << c.err;
}

TEST(TranslateTest, AWritePayloadOfAnotherLengthAndUnknownOpsAreRefused) {
  CephTxn t = WellFormed();
  std::string ops = Access::OpBytes(t);
  const uint64_t len = 6;  // the op says 6 bytes, the payload has 5
  std::memcpy(&ops[20], &len, 8);
  auto tls = Decoded(Access::Ops(t), ops, Access::DataBytes(t), Access::Colls(t),
                     Access::Objects(t));
  Translated res = TranslateAll(tls);
  EXPECT_EQ(res.r, -EINVAL);
  EXPECT_NE(res.err.find("op 0 (write): payload length 5 != op length 6"), std::string::npos)
      << res.err;

  std::string unknown = Access::OpBytes(t);
  const uint32_t code = 999;
  std::memcpy(&unknown[sizeof(CephTxn::Op)], &code, 4);
  auto tls2 = Decoded(Access::Ops(t), unknown, Access::DataBytes(t), Access::Colls(t),
                      Access::Objects(t));
  Translated res2 = TranslateAll(tls2);
  EXPECT_EQ(res2.r, -EOPNOTSUPP);
  EXPECT_NE(res2.err.find("op 1: unsupported transaction op 999"), std::string::npos)
      << res2.err;
}

}  // namespace
}  // namespace smr::ceph_adapter
