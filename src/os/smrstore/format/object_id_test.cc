#include "format/object_id.h"

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/testing/test_util.h"

namespace smr {
namespace {

std::string Enc(const ObjectId& id) {
  std::string s;
  EncodeObjectKey(id, &s);
  return s;
}

int Sign(int v) { return v < 0 ? -1 : (v > 0 ? 1 : 0); }

int MemcmpSign(const std::string& a, const std::string& b) {
  const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return Sign(c);
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// Random ObjectIds. `small` draws every field from a few values, so ties are frequent.
class IdGen {
 public:
  explicit IdGen(uint32_t seed) : rng_(seed) {}

  ObjectId Next(bool small) {
    ObjectId id;
    if (Pick(40) == 0) {
      id.max = true;  // Ceph's max sentinel has no other fields
      return id;
    }
    const int64_t pools[] = {std::numeric_limits<int64_t>::min(), -2, -1, 0, 1, 7,
                             std::numeric_limits<int64_t>::max()};
    id.pool = small ? pools[Pick(3) + 2] : (Pick(3) == 0 ? Rand64() : pools[Pick(7)]);
    const uint32_t hashes[] = {0, 1, 2, 3, 0x80000000u, 0x40000000u, 0xffffffffu};
    id.hash = small ? hashes[Pick(4)] : (Pick(2) ? Rand32() : hashes[Pick(7)]);
    id.nspace = Str(small ? 1 : 4);
    id.name = Str(small ? 2 : 6);
    id.key = Pick(2) ? "" : Str(small ? 2 : 6);
    const uint64_t snaps[] = {0, 1, 2, ObjectId::kNoSnap, ObjectId::kSnapDir};
    id.snap = small ? snaps[Pick(5)] : (Pick(4) == 0 ? Rand64() : snaps[Pick(5)]);
    const uint64_t gens[] = {0, 1, ObjectId::kNoGen};
    id.generation = small ? gens[Pick(3)] : (Pick(4) == 0 ? Rand64() : gens[Pick(3)]);
    const int8_t shards[] = {ObjectId::kNoShard, 0, 1, 127, -128};
    id.shard = small ? shards[Pick(3)] : shards[Pick(5)];
    return id;
  }

 private:
  uint32_t Pick(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }
  uint32_t Rand32() { return static_cast<uint32_t>(rng_()); }
  int64_t Rand64() { return static_cast<int64_t>(rng_()); }
  // Up to max_len bytes from an alphabet with the escape-relevant bytes 0x00, 0x01, 0xff.
  std::string Str(uint32_t max_len) {
    static const char kAlphabet[] = {'\0', '\x01', 'a', 'b', '\xff'};
    std::string s(Pick(max_len + 1), '\0');
    for (char& c : s) c = kAlphabet[Pick(sizeof(kAlphabet))];
    return s;
  }

  std::mt19937_64 rng_;
};

TEST(ObjectIdKey, RoundTripRandom) {
  IdGen gen(12345);
  for (int i = 0; i < 20000; ++i) {
    const ObjectId id = gen.Next(i % 2 == 0);
    ASSERT_OK(id.Validate());
    const std::string enc = Enc(id);
    Result<ObjectId> back = DecodeObjectKey(enc);
    ASSERT_TRUE(back.ok()) << id.ToString() << " -> " << back.status().ToString();
    EXPECT_EQ(*back, id) << id.ToString() << " -> " << back->ToString();
    EXPECT_EQ(back->key, id.key);
    EXPECT_EQ(Enc(*back), enc);
  }
}

TEST(ObjectIdKey, RoundTripEdgeValues) {
  ObjectId id;
  id.pool = std::numeric_limits<int64_t>::min();
  id.hash = 0xffffffffu;
  id.nspace = std::string("\0\0\xff\x01", 4);
  id.key = std::string(2048, '\0');
  id.name = std::string(2048, '\xff');
  id.snap = ObjectId::kSnapDir;
  id.generation = 0;
  id.shard = 127;
  ASSERT_OK(id.Validate());
  Result<ObjectId> back = DecodeObjectKey(Enc(id));
  ASSERT_OK(back.status());
  EXPECT_EQ(*back, id);
  EXPECT_EQ(back->nspace, id.nspace);

  ObjectId max;
  max.max = true;
  back = DecodeObjectKey(Enc(max));
  ASSERT_OK(back.status());
  EXPECT_TRUE(back->max);
  EXPECT_EQ(Enc(max), std::string("\x01", 1));
}

TEST(ObjectIdKey, MemcmpOrderEqualsCompare) {
  IdGen gen(777);
  int ties = 0;
  int less = 0;
  for (int i = 0; i < 40000; ++i) {
    const ObjectId a = gen.Next(true);
    const ObjectId b = i % 5 == 0 ? a : gen.Next(true);
    const int c = Sign(Compare(a, b));
    EXPECT_EQ(c, -Sign(Compare(b, a))) << a.ToString() << " vs " << b.ToString();
    EXPECT_EQ(c < 0, a < b);
    const int m = MemcmpSign(Enc(a), Enc(b));
    if (c != 0) {
      EXPECT_EQ(m, c) << a.ToString() << " vs " << b.ToString();
    } else {
      ++ties;
      // Ceph-equal: identical encodings, except that "locator key equal to the name" and
      // "no locator key" are different objects of equal order; the final locator byte
      // keeps them apart (and orders no-key first).
      if (a.key == b.key) {
        EXPECT_EQ(m, 0) << a.ToString() << " vs " << b.ToString();
        EXPECT_TRUE(a == b);
      } else {
        EXPECT_EQ(m, a.key.empty() ? -1 : 1) << a.ToString() << " vs " << b.ToString();
        EXPECT_FALSE(a == b);
      }
    }
    less += c < 0;
  }
  EXPECT_GT(ties, 8000);  // the alphabet is small enough to exercise the tie paths
  EXPECT_GT(less, 8000);
}

// Expects a < b under both Compare and the encoding.
void ExpectOrdered(const ObjectId& a, const ObjectId& b) {
  EXPECT_LT(Compare(a, b), 0) << a.ToString() << " < " << b.ToString();
  EXPECT_GT(Compare(b, a), 0) << b.ToString() << " > " << a.ToString();
  EXPECT_LT(MemcmpSign(Enc(a), Enc(b)), 0) << "encoding of " << a.ToString() << " < "
                                            << b.ToString();
}

ObjectId Obj(int64_t pool, uint32_t hash, const std::string& name) {
  ObjectId id;
  id.pool = pool;
  id.hash = hash;
  id.name = name;
  return id;
}

TEST(ObjectIdOrder, HashByReversedBits) {
  EXPECT_EQ(ReverseBits32(0x1), 0x80000000u);
  EXPECT_EQ(ReverseBits32(0x2), 0x40000000u);
  EXPECT_EQ(ReverseBits32(0x80000000u), 0x1u);
  EXPECT_EQ(ReverseBits32(0x12345678u), 0x1e6a2c48u);
  // 0x1 reversed is 0x80000000 > 0x40000000 (0x2 reversed): 0x2 sorts first.
  ExpectOrdered(Obj(1, 0x2, "x"), Obj(1, 0x1, "x"));
  ExpectOrdered(Obj(1, 0x0, "x"), Obj(1, 0x80000000u, "x"));  // 0 < 1
  ExpectOrdered(Obj(1, 0x80000000u, "x"), Obj(1, 0x1, "x"));  // 1 < 0x80000000
  ExpectOrdered(Obj(1, 0x7fffffffu, "x"), Obj(1, 0xffffffffu, "x"));
  // Hash before namespace and name.
  ObjectId a = Obj(1, 0x2, "zzz");
  a.nspace = "zzz";
  ExpectOrdered(a, Obj(1, 0x1, "a"));
}

TEST(ObjectIdOrder, PoolBeforeHash) {
  ExpectOrdered(Obj(1, 0xffffffffu, "z"), Obj(2, 0, "a"));
  ExpectOrdered(Obj(-1, 0xffffffffu, "z"), Obj(0, 0, "a"));
  ExpectOrdered(Obj(std::numeric_limits<int64_t>::min(), 0, "a"), Obj(-1, 0, "a"));
  ExpectOrdered(Obj(-2, 0, "a"), Obj(-1, 0, "a"));
}

TEST(ObjectIdOrder, NamespaceBeforeName) {
  ObjectId a = Obj(1, 5, "z");
  a.nspace = "a";
  ObjectId b = Obj(1, 5, "a");
  b.nspace = "b";
  ExpectOrdered(a, b);
  ObjectId none = Obj(1, 5, "z");  // empty namespace sorts first
  ExpectOrdered(none, b);
}

TEST(ObjectIdOrder, EffectiveKeyBeforeName) {
  ObjectId keyed = Obj(1, 5, "a");
  keyed.key = "z";  // effective key "z"
  ObjectId plain = Obj(1, 5, "b");  // effective key "b"
  ExpectOrdered(plain, keyed);
  ObjectId keyed2 = Obj(1, 5, "c");
  keyed2.key = "b";  // effective key "b" ties with plain's; then names: "b" < "c"
  ExpectOrdered(plain, keyed2);
  // Without locator keys, names decide.
  ExpectOrdered(Obj(1, 5, "a"), Obj(1, 5, "b"));
  // Locator key equal to the name: equal order, different objects.
  ObjectId self = Obj(1, 5, "b");
  self.key = "b";
  EXPECT_EQ(Compare(self, plain), 0);
  EXPECT_FALSE(self == plain);
  EXPECT_LT(MemcmpSign(Enc(plain), Enc(self)), 0);
}

TEST(ObjectIdOrder, NameBytesAndPrefixes) {
  ExpectOrdered(Obj(1, 5, "a"), Obj(1, 5, std::string("a\0", 2)));
  ExpectOrdered(Obj(1, 5, std::string("a\0", 2)), Obj(1, 5, std::string("a\0\0", 3)));
  ExpectOrdered(Obj(1, 5, std::string("a\0", 2)), Obj(1, 5, "a\x01"));
  ExpectOrdered(Obj(1, 5, "a\x01"), Obj(1, 5, "ab"));
  ExpectOrdered(Obj(1, 5, "ab"), Obj(1, 5, "a\xff"));  // bytes compare unsigned
  ExpectOrdered(Obj(1, 5, ""), Obj(1, 5, std::string("\0", 1)));
}

TEST(ObjectIdOrder, SnapHeadAfterNumberedSnaps) {
  ObjectId s1 = Obj(1, 5, "a");
  s1.snap = 1;
  ObjectId s2 = s1;
  s2.snap = 0xfffffffffffffff0ull;
  ObjectId head = s1;
  head.snap = ObjectId::kNoSnap;
  ObjectId snapdir = s1;
  snapdir.snap = ObjectId::kSnapDir;
  ExpectOrdered(s1, s2);
  ExpectOrdered(s2, head);
  ExpectOrdered(head, snapdir);
  // Name before snap.
  ObjectId b = Obj(1, 5, "b");
  b.snap = 0;
  ExpectOrdered(snapdir, b);
  // Generation after snap.
  ObjectId g1 = head;
  g1.generation = 1;
  ObjectId g2 = head;
  g2.generation = 2;
  ExpectOrdered(g1, g2);
  ExpectOrdered(g2, head);  // kNoGen is the largest
  ObjectId later_snap = s2;
  later_snap.generation = 0;
  ExpectOrdered(s1, later_snap);
}

TEST(ObjectIdOrder, ShardFirstMaxLast) {
  ObjectId no_shard = Obj(std::numeric_limits<int64_t>::max(), 0xffffffffu, "zzz");
  ObjectId shard0 = Obj(std::numeric_limits<int64_t>::min(), 0, "");
  shard0.shard = 0;
  ExpectOrdered(no_shard, shard0);  // shard -1 (none) < 0, before the pool is looked at
  ObjectId shard127 = shard0;
  shard127.shard = 127;
  ExpectOrdered(shard0, shard127);
  ObjectId shard_min = no_shard;
  shard_min.shard = -128;
  ExpectOrdered(shard_min, no_shard);
  ObjectId max;
  max.max = true;
  ExpectOrdered(shard127, max);
  ObjectId biggest = Obj(std::numeric_limits<int64_t>::max(), 0xffffffffu,
                         std::string(2048, '\xff'));
  biggest.shard = 127;
  biggest.snap = ObjectId::kSnapDir;
  ExpectOrdered(biggest, max);
  ObjectId max2;
  max2.max = true;
  EXPECT_EQ(Compare(max, max2), 0);
  EXPECT_EQ(Enc(max), Enc(max2));
}

TEST(ObjectIdValidate, Limits) {
  ObjectId id = Obj(1, 1, std::string(2048, 'n'));
  id.key = std::string(2048, 'k');
  id.nspace = std::string(2048, 's');
  EXPECT_OK(id.Validate());
  ObjectId bad = id;
  bad.name.push_back('n');
  EXPECT_CODE(bad.Validate(), kInvalidArgument);
  EXPECT_NE(bad.Validate().message().find("name"), std::string::npos);
  bad = id;
  bad.key.push_back('k');
  EXPECT_CODE(bad.Validate(), kInvalidArgument);
  EXPECT_NE(bad.Validate().message().find("key"), std::string::npos);
  bad = id;
  bad.nspace.push_back('s');
  EXPECT_CODE(bad.Validate(), kInvalidArgument);
  EXPECT_NE(bad.Validate().message().find("namespace"), std::string::npos);
}

TEST(ObjectIdKey, DecodeRejectsTruncatedAndGarbage) {
  ObjectId id = Obj(-5, 0x1234, std::string("na\0me", 5));
  id.key = "loc";
  id.nspace = "ns";
  id.snap = 4;
  id.generation = 9;
  id.shard = 2;
  const std::string enc = Enc(id);
  ASSERT_OK(DecodeObjectKey(enc).status());
  for (size_t len = 0; len < enc.size(); ++len) {
    SCOPED_TRACE(len);
    EXPECT_CODE(DecodeObjectKey(enc.substr(0, len)).status(), kCorruption);
  }
  EXPECT_CODE(DecodeObjectKey(enc + "x").status(), kCorruption);
  EXPECT_CODE(DecodeObjectKey(std::string("\x01x", 2)).status(), kCorruption);  // max + junk
  EXPECT_CODE(DecodeObjectKey("\x02").status(), kCorruption);
  EXPECT_CODE(DecodeObjectKey("garbage that is long enough").status(), kCorruption);
  std::string bad_flag = enc;
  bad_flag.back() = '\x02';
  EXPECT_CODE(DecodeObjectKey(bad_flag).status(), kCorruption);
  // No locator flag, but an effective key that is not the name.
  std::string no_key = enc;
  no_key.back() = '\0';
  EXPECT_CODE(DecodeObjectKey(no_key).status(), kCorruption);
  // A bad escape (0x00 followed by neither 0x01 nor 0xff) inside the namespace.
  std::string bad_escape = enc;
  const size_t ns_at = 1 + 1 + 8 + 4;
  ASSERT_EQ(bad_escape.substr(ns_at, 4), std::string("ns\0\x01", 4));
  bad_escape[ns_at + 3] = '\x05';
  EXPECT_CODE(DecodeObjectKey(bad_escape).status(), kCorruption);
}

TEST(ObjectIdKey, DecodeAcceptsOnlyCanonicalEncodings) {
  // Any byte string that decodes must be the encoding of what it decodes to; otherwise two
  // different keys would name one object and RocksDB order would be wrong.
  IdGen gen(99);
  std::mt19937 rng(5);
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string enc = Enc(gen.Next(true));
    const size_t pos = rng() % enc.size();
    switch (rng() % 3) {
      case 0:
        enc[pos] = static_cast<char>(rng());
        break;
      case 1:
        enc.erase(pos, 1);
        break;
      default:
        enc.insert(pos, 1, static_cast<char>(rng()));
        break;
    }
    Result<ObjectId> r = DecodeObjectKey(enc);
    if (!r.ok()) {
      EXPECT_TRUE(r.status().IsCorruption());
      continue;
    }
    ++accepted;
    EXPECT_EQ(Enc(*r), enc) << r->ToString();
  }
  EXPECT_GT(accepted, 1000);  // many mutations stay valid (e.g. hash or snap bytes)
}

}  // namespace
}  // namespace smr
