// Fuzz target: the Ceph adapter's transaction decoding — how SMRStore reads a Ceph
// ObjectStore::Transaction (the iterator of objectstore/ceph_compat/os/Transaction.cc) and
// turns it into engine ops (objectstore/translate.cc), then the engine's own check of
// those ops (smr::Transaction::Validate).
//
// Inside ceph-osd a replica's transactions are decoded by Ceph from a peer's message:
// Ceph's Transaction::decode copies op_bl (the 72-byte op records), data_bl (payloads and
// names), the collection and object index tables and the op count exactly as they came,
// and SMRStore's iterator reads them. The first input byte picks the mode:
//   * even: a decoded transaction — the input sets those fields directly (the op count,
//     the index tables with fuzzed names and index numbers, raw op records, raw data_bl);
//   * odd: a built transaction — the input drives the builder methods (as the OSD's code
//     does); the same ops are applied to an engine Transaction by hand (the model).
// Properties:
//   * never a crash, an out-of-bounds read, undefined behaviour or an exception: Translate
//     returns 0, -EINVAL or -EOPNOTSUPP, with an error naming the op ("op N") exactly when
//     it fails;
//   * a translated transaction has at most one engine op per Ceph op;
//   * when Validate accepts it, every byte range it names ends below the object size
//     limit (no range can wrap around or reach BlueStore's OBJECT_MAX_SIZE);
//   * built mode: Translate succeeds and gives exactly the model's ops.
#include <fuzzer/FuzzedDataProvider.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "objectstore/ceph_types.h"
#include "objectstore/translate.h"
#include "objectstore/testing/decoded_transaction.h"
#include "os/ObjectStore.h"
#include "store/transaction.h"

namespace {

using CephTxn = ObjectStore::Transaction;
using smr::ceph_adapter::ToObjectId;

coll_t FuzzColl(FuzzedDataProvider& in) {
  if (in.ConsumeBool()) return coll_t::meta();
  const pg_t pg(in.ConsumeIntegral<uint32_t>(), in.ConsumeIntegralInRange<uint64_t>(0, 1000));
  const shard_id_t shard(in.ConsumeBool() ? shard_id_t::NO_SHARD
                                          : shard_id_t(in.ConsumeIntegralInRange<int8_t>(0, 11)));
  return coll_t(spg_t(pg, shard));
}

ghobject_t FuzzObject(FuzzedDataProvider& in) {
  if (in.ConsumeIntegralInRange<uint8_t>(0, 15) == 0) return ghobject_t::get_max();
  const std::string name = in.ConsumeRandomLengthString(40);
  const std::string key = in.ConsumeBool() ? std::string() : in.ConsumeRandomLengthString(8);
  const std::string nspace = in.ConsumeBool() ? std::string() : in.ConsumeRandomLengthString(8);
  const uint64_t snap = in.ConsumeBool() ? CEPH_NOSNAP : in.ConsumeIntegral<uint64_t>();
  const uint32_t hash = in.ConsumeIntegral<uint32_t>();
  const int64_t pool = in.ConsumeIntegralInRange<int64_t>(-1, 1000);
  const uint64_t gen = in.ConsumeBool() ? ghobject_t::NO_GEN : in.ConsumeIntegral<uint64_t>();
  const shard_id_t shard(in.ConsumeBool() ? shard_id_t::NO_SHARD
                                          : shard_id_t(in.ConsumeIntegralInRange<int8_t>(0, 11)));
  return ghobject_t(hobject_t(object_t(name), key, snapid_t(snap), hash, pool, nspace), gen,
                    shard);
}

// The common properties of one Translate call.
void CheckTranslated(int r, const std::string& err, const smr::Transaction& out,
                     uint64_t ceph_ops) {
  FUZZ_CHECK(r == 0 || r == -EINVAL || r == -EOPNOTSUPP);
  if (r != 0) {
    FUZZ_CHECK(err.find("op ") != std::string::npos);
    return;
  }
  FUZZ_CHECK(err.empty());
  FUZZ_CHECK(out.ops().size() <= ceph_ops);
  if (!out.Validate().ok()) return;
  const uint64_t max = smr::Transaction::kMaxObjectSize;
  using C = smr::Transaction::OpCode;
  for (const smr::Transaction::Op& op : out.ops()) {
    switch (op.code) {
      case C::kWrite:
        FUZZ_CHECK(op.offset < max && op.write_data().size() < max - op.offset);
        break;
      case C::kZero:
        FUZZ_CHECK(op.offset < max && op.length < max - op.offset);
        break;
      case C::kTruncate:
        FUZZ_CHECK(op.offset < max);
        break;
      case C::kCloneRange:
        FUZZ_CHECK(op.offset < max && op.length < max - op.offset);
        FUZZ_CHECK(op.dest_offset < max && op.length < max - op.dest_offset);
        break;
      default:
        break;
    }
  }
}

void Decoded(FuzzedDataProvider& in) {
  std::map<coll_t, uint32_t> colls;
  for (int n = in.ConsumeIntegralInRange(0, 3); n > 0; --n) {
    colls[FuzzColl(in)] = in.ConsumeIntegralInRange<uint32_t>(0, 4);
  }
  std::map<ghobject_t, uint32_t> objects;
  for (int n = in.ConsumeIntegralInRange(0, 3); n > 0; --n) {
    objects[FuzzObject(in)] = in.ConsumeIntegralInRange<uint32_t>(0, 4);
  }
  const uint64_t ops = in.ConsumeBool() ? in.ConsumeIntegral<uint64_t>()
                                        : in.ConsumeIntegralInRange<uint64_t>(0, 8);
  const size_t op_bytes = in.ConsumeIntegralInRange<size_t>(0, 8 * sizeof(CephTxn::Op) + 8);
  const std::string op_bl = in.ConsumeBytesAsString(op_bytes);
  const std::string data_bl = in.ConsumeRemainingBytesAsString();
  std::vector<CephTxn> tls(1);
  ceph::os::DecodedTransactionAccess::Set(&tls[0], ops, op_bl, data_bl, std::move(colls),
                                             std::move(objects));
  smr::Transaction out;
  smr::ceph_adapter::Touched touched;
  std::string err;
  const int r = smr::ceph_adapter::Translate(tls, &out, &touched, &err);
  CheckTranslated(r, err, out, ops);
}

ceph::buffer::list Bl(const std::string& s) {
  ceph::buffer::list bl;
  bl.append(s.data(), s.size());
  return bl;
}

// Compares the fields Translate fills; a mismatch names the op.
void CheckSameOps(const smr::Transaction& got, const smr::Transaction& want) {
  FUZZ_CHECK(got.ops().size() == want.ops().size());
  for (size_t i = 0; i < got.ops().size(); ++i) {
    const smr::Transaction::Op& a = got.ops()[i];
    const smr::Transaction::Op& b = want.ops()[i];
    FUZZ_CHECK(a.code == b.code);
    FUZZ_CHECK(a.coll == b.coll && a.dest_coll == b.dest_coll);
    FUZZ_CHECK(smr::Compare(a.oid, b.oid) == 0);
    FUZZ_CHECK(smr::Compare(a.dest_oid, b.dest_oid) == 0);
    FUZZ_CHECK(a.offset == b.offset && a.length == b.length && a.dest_offset == b.dest_offset);
    FUZZ_CHECK(a.bits == b.bits && a.rem == b.rem);
    FUZZ_CHECK(a.tolerate_missing == b.tolerate_missing);
    // A write's payload is compared wherever it is held (copied, or borrowed from a bufferlist).
    FUZZ_CHECK(a.write_data() == b.write_data() && a.data2 == b.data2);
    FUZZ_CHECK(a.kv == b.kv && a.keys == b.keys);
  }
}

// What Built's steps share: the input, the collections and objects its ops pick from, and
// the draws of an op's arguments (each consumes the input as Built always has).
struct BuiltOps {
  FuzzedDataProvider& in;
  std::vector<coll_t> colls;
  std::vector<ghobject_t> objs;

  coll_t coll() { return colls[in.ConsumeIntegralInRange<size_t>(0, colls.size() - 1)]; }
  ghobject_t obj() { return objs[in.ConsumeIntegralInRange<size_t>(0, objs.size() - 1)]; }
  std::string str(size_t max) { return in.ConsumeRandomLengthString(max); }
  uint64_t u64() {
    return in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(0, 1 << 20)
                            : in.ConsumeIntegral<uint64_t>();
  }
  static std::string name(const coll_t& c) { return smr::ceph_adapter::CollName(c); }
  // Up to 3 keys with values, as the builder takes them and as the model does.
  std::pair<std::map<std::string, ceph::buffer::list>, std::map<std::string, std::string>>
  attrs() {
    std::pair<std::map<std::string, ceph::buffer::list>, std::map<std::string, std::string>> r;
    for (int m = in.ConsumeIntegralInRange(0, 3); m > 0; --m) {
      const std::string k = str(16), v = str(16);
      r.first[k] = Bl(v);
      r.second[k] = v;
    }
    return r;
  }
  // Op `kind` 0-11 (nop, touch, write, zero, truncate, remove, xattrs, clone, clone range)
  // on (c, o): appended to `t` through the builder and to the model `want` by hand.
  void AddObjectOp(int kind, const coll_t& c, const ghobject_t& o, CephTxn& t,
                   smr::Transaction& want);
  // Op `kind` 12-21 (collections, renames, omap, allocation hint) on (c, o), as
  // AddObjectOp.
  void AddOtherOp(int kind, const coll_t& c, const ghobject_t& o, CephTxn& t,
                  smr::Transaction& want);
};

void BuiltOps::AddObjectOp(int kind, const coll_t& c, const ghobject_t& o, CephTxn& t,
                           smr::Transaction& want) {
  switch (kind) {
    case 0:
      t.nop();
      break;
    case 1:
      t.touch(c, o);
      want.Touch(name(c), ToObjectId(o));
      break;
    case 2: {
      const uint64_t off = u64();
      const std::string d = str(64);
      t.write(c, o, off, d.size(), Bl(d));
      want.Write(name(c), ToObjectId(o), off, d);
      break;
    }
    case 3: {
      const uint64_t off = u64(), len = u64();
      t.zero(c, o, off, len);
      want.Zero(name(c), ToObjectId(o), off, len);
      break;
    }
    case 4: {
      const uint64_t off = u64();
      t.truncate(c, o, off);
      want.Truncate(name(c), ToObjectId(o), off);
      break;
    }
    case 5:
      t.remove(c, o);
      want.Remove(name(c), ToObjectId(o));
      break;
    case 6: {
      const std::string k = str(16), v = str(32);
      ceph::buffer::list bl = Bl(v);
      t.setattr(c, o, k, bl);
      want.SetAttr(name(c), ToObjectId(o), k, v);
      break;
    }
    case 7: {
      const auto [a, kv] = attrs();
      t.setattrs(c, o, a);
      want.SetAttrs(name(c), ToObjectId(o), kv);
      break;
    }
    case 8: {
      const std::string k = str(16);
      t.rmattr(c, o, k);
      want.RmAttr(name(c), ToObjectId(o), k);
      break;
    }
    case 9:
      t.rmattrs(c, o);
      want.RmAttrs(name(c), ToObjectId(o));
      break;
    case 10: {
      const ghobject_t d = obj();
      t.clone(c, o, d);
      want.Clone(name(c), ToObjectId(o), ToObjectId(d));
      break;
    }
    case 11: {
      const ghobject_t d = obj();
      const uint64_t off = u64(), len = u64(), doff = u64();
      t.clone_range(c, o, d, off, len, doff);
      want.CloneRange(name(c), ToObjectId(o), ToObjectId(d), off, len, doff);
      break;
    }
  }
}

void BuiltOps::AddOtherOp(int kind, const coll_t& c, const ghobject_t& o, CephTxn& t,
                          smr::Transaction& want) {
  switch (kind) {
    case 12: {
      const int bits = in.ConsumeIntegralInRange(0, 32);
      t.create_collection(c, bits);
      want.MkColl(name(c), static_cast<uint32_t>(bits));
      break;
    }
    case 13:
      t.remove_collection(c);
      want.RmColl(name(c));
      break;
    case 14: {
      const coll_t dc = coll();
      const ghobject_t d = obj();
      t.collection_move_rename(c, o, dc, d);
      want.CollMoveRename(name(c), ToObjectId(o), name(dc), ToObjectId(d));
      break;
    }
    case 15: {
      const ghobject_t d = obj();
      t.try_rename(c, o, d);
      want.TryRename(name(c), ToObjectId(o), ToObjectId(d));
      break;
    }
    case 16:
      t.omap_clear(c, o);
      want.OmapClear(name(c), ToObjectId(o));
      break;
    case 17: {
      const auto [a, kv] = attrs();
      t.omap_setkeys(c, o, a);
      want.OmapSetKeys(name(c), ToObjectId(o), kv);
      break;
    }
    case 18: {
      std::set<std::string> keys;
      for (int m = in.ConsumeIntegralInRange(0, 3); m > 0; --m) keys.insert(str(16));
      t.omap_rmkeys(c, o, keys);
      want.OmapRmKeys(name(c), ToObjectId(o), keys);
      break;
    }
    case 19: {
      const std::string first = str(16), last = str(16);
      t.omap_rmkeyrange(c, o, first, last);
      want.OmapRmKeyRange(name(c), ToObjectId(o), first, last);
      break;
    }
    case 20: {
      const std::string h = str(32);
      t.omap_setheader(c, o, Bl(h));
      want.OmapSetHeader(name(c), ToObjectId(o), h);
      break;
    }
    default: {
      const uint64_t size = u64(), wsize = u64();
      const uint32_t flags = in.ConsumeIntegral<uint32_t>();
      t.set_alloc_hint(c, o, size, wsize, flags);
      want.SetAllocHint(name(c), ToObjectId(o), size, wsize, flags);
      break;
    }
  }
}

// Odd mode: 1 or 2 transactions of up to 8 ops each, built through the builder, and the
// same ops applied to the model by hand; Translate must give exactly the model's ops.
void Built(FuzzedDataProvider& in) {
  BuiltOps b{in, {}, {}};
  for (int n = in.ConsumeIntegralInRange(1, 3); n > 0; --n) b.colls.push_back(FuzzColl(in));
  for (int n = in.ConsumeIntegralInRange(1, 3); n > 0; --n) b.objs.push_back(FuzzObject(in));
  std::vector<CephTxn> tls(in.ConsumeIntegralInRange(1, 2));
  smr::Transaction want;
  uint64_t ceph_ops = 0;
  // Per transaction, in order (Translate reads tls[0]'s ops, then tls[1]'s).
  for (CephTxn& t : tls) {
    for (int n = in.ConsumeIntegralInRange(0, 8); n > 0 && in.remaining_bytes() > 0; --n) {
      ++ceph_ops;
      const coll_t c = b.coll();
      const ghobject_t o = b.obj();
      const int kind = in.ConsumeIntegralInRange(0, 21);
      if (kind <= 11) {
        b.AddObjectOp(kind, c, o, t, want);
      } else {
        b.AddOtherOp(kind, c, o, t, want);
      }
    }
  }
  smr::Transaction out;
  smr::ceph_adapter::Touched touched;
  std::string err;
  const int r = smr::ceph_adapter::Translate(tls, &out, &touched, &err);
  FUZZ_CHECK(r == 0);
  CheckTranslated(r, err, out, ceph_ops);
  CheckSameOps(out, want);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  FuzzedDataProvider in(data + 1, size - 1);
  if (data[0] & 1) {
    Built(in);
  } else {
    Decoded(in);
  }
  return 0;
}
