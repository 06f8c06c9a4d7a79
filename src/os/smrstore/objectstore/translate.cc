#include "objectstore/translate.h"

#include <cerrno>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "objectstore/ceph_types.h"

namespace smr::ceph_adapter {

namespace {

std::string Malformed(size_t index, uint32_t code, const char* what) {
  std::string s = "malformed transaction: op " + std::to_string(index);
  if (code != UINT32_MAX) s += " (code " + std::to_string(code) + ")";
  return s + ": " + what;
}

using T = ObjectStore::Transaction;

// Returned by a Translate*Ops step for an op whose code is not among those it translates.
constexpr int kNotThisGroup = 1;

// The op being translated, where its translation goes, and the common shapes of it.
struct OpTranslation {
  T::iterator& i;
  T::Op* op;
  uint32_t code;
  size_t index;  // of the op, over all of the transactions
  smr::Transaction* out;
  Touched* touched;
  std::string* err;

  std::string cid() const { return CollName(i.get_cid(op->cid)); }
  smr::ObjectId oid() const { return ToObjectId(i.get_oid(op->oid)); }
  void touch_obj(const std::string& c, const smr::ObjectId& o) {
    touched->objs[c].push_back(ObjectKey(o));
  }
  // The common shape: one op on the op's (collection, object), recorded for
  // read-after-queue.
  template <typename Apply>
  void obj_op(Apply&& apply) {
    const std::string c = cid();
    const smr::ObjectId o = oid();
    apply(c, o);
    touch_obj(c, o);
  }
};

// Translates an op on one object's data (or a NOP): create/touch, write, zero, truncate,
// remove, clone, clone range, allocation hint. 0, -EINVAL (a write whose payload is not
// its length; *x.err says why) or kNotThisGroup.
int TranslateDataOps(OpTranslation& x) {
  T::iterator& i = x.i;
  T::Op* const op = x.op;
  const uint32_t code = x.code;
  smr::Transaction* const out = x.out;
  switch (x.code) {
    case T::OP_NOP:
      break;
    case T::OP_CREATE:
    case T::OP_TOUCH:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        out->Touch(c, o);
      });
      break;
    case T::OP_WRITE: {
      const std::string c = x.cid();
      const smr::ObjectId o = x.oid();
      const uint64_t off = op->off;
      const uint64_t len = op->len;
      ceph::buffer::list bl;
      i.decode_bl(bl);
      if (bl.length() != len) {
        *x.err = "op " + std::to_string(x.index) + " (write): payload length " +
                 std::to_string(bl.length()) + " != op length " + std::to_string(len);
        return -EINVAL;
      }
      // The payload stays in the bufferlist's memory (made contiguous if it is not),
      // which the transaction holds until the write is committed: no copy into a
      // fresh buffer of its size.
      auto keep = std::make_shared<ceph::buffer::list>(std::move(bl));
      const char* bytes = len > 0 ? keep->c_str() : nullptr;
      out->Write(c, o, off, std::string_view(bytes, len), std::move(keep));
      x.touch_obj(c, o);
      break;
    }
    case T::OP_ZERO:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        out->Zero(c, o, op->off, op->len);
      });
      break;
    case T::OP_TRUNCATE:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        out->Truncate(c, o, op->off);
      });
      break;
    case T::OP_REMOVE:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        out->Remove(c, o);
      });
      break;
    case T::OP_CLONE: {
      const std::string c = x.cid();
      const smr::ObjectId o = x.oid();
      const smr::ObjectId d = ToObjectId(i.get_oid(op->dest_oid));
      out->Clone(c, o, d);
      x.touch_obj(c, o);
      x.touch_obj(c, d);
      break;
    }
    case T::OP_CLONERANGE:
    case T::OP_CLONERANGE2: {
      const std::string c = x.cid();
      const smr::ObjectId o = x.oid();
      const smr::ObjectId d = ToObjectId(i.get_oid(op->dest_oid));
      const uint64_t dst_off = code == T::OP_CLONERANGE ? uint64_t(op->off)
                                                        : uint64_t(op->dest_off);
      out->CloneRange(c, o, d, op->off, op->len, dst_off);
      x.touch_obj(c, o);
      x.touch_obj(c, d);
      break;
    }
    case T::OP_SETALLOCHINT:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        out->SetAllocHint(c, o, op->expected_object_size, op->expected_write_size, op->hint);
      });
      break;
    default:
      return kNotThisGroup;
  }
  return 0;
}

// Translates an op on one object's xattrs or omap. 0 or kNotThisGroup.
int TranslateAttrOmapOps(OpTranslation& x) {
  T::iterator& i = x.i;
  smr::Transaction* const out = x.out;
  switch (x.code) {
    case T::OP_SETATTR:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        std::string name = i.decode_string();
        ceph::buffer::list bl;
        i.decode_bl(bl);
        out->SetAttr(c, o, name, ToString(bl));
      });
      break;
    case T::OP_SETATTRS:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        std::map<std::string, ceph::buffer::ptr> aset;
        i.decode_attrset(aset);
        std::map<std::string, std::string> kv;
        for (auto& [k, v] : aset) kv[k] = std::string(v.c_str(), v.length());
        out->SetAttrs(c, o, std::move(kv));
      });
      break;
    case T::OP_RMATTR:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        out->RmAttr(c, o, i.decode_string());
      });
      break;
    case T::OP_RMATTRS:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        out->RmAttrs(c, o);
      });
      break;
    case T::OP_OMAP_CLEAR:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        out->OmapClear(c, o);
      });
      break;
    case T::OP_OMAP_SETKEYS:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        std::map<std::string, ceph::buffer::list> aset;
        i.decode_attrset(aset);
        std::map<std::string, std::string> kv;
        for (auto& [k, v] : aset) kv[k] = ToString(v);
        out->OmapSetKeys(c, o, std::move(kv));
      });
      break;
    case T::OP_OMAP_RMKEYS:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        std::set<std::string> keys;
        i.decode_keyset(keys);
        out->OmapRmKeys(c, o, std::move(keys));
      });
      break;
    case T::OP_OMAP_RMKEYRANGE:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        std::string first = i.decode_string();
        std::string last = i.decode_string();
        out->OmapRmKeyRange(c, o, first, last);
      });
      break;
    case T::OP_OMAP_SETHEADER:
      x.obj_op([&](const std::string& c, const smr::ObjectId& o) {
        ceph::buffer::list bl;
        i.decode_bl(bl);
        out->OmapSetHeader(c, o, ToString(bl));
      });
      break;
    default:
      return kNotThisGroup;
  }
  return 0;
}

// Translates an op on collections, or a rename of an object between or within them.
// 0 or kNotThisGroup.
int TranslateCollectionOps(OpTranslation& x) {
  T::iterator& i = x.i;
  T::Op* const op = x.op;
  smr::Transaction* const out = x.out;
  Touched* const touched = x.touched;
  switch (x.code) {
    case T::OP_MKCOLL: {
      const std::string c = x.cid();
      out->MkColl(c, op->split_bits);
      touched->colls.insert(c);
      break;
    }
    case T::OP_RMCOLL: {
      const std::string c = x.cid();
      out->RmColl(c);
      touched->colls.insert(c);
      break;
    }
    case T::OP_COLL_HINT: {
      const std::string c = x.cid();
      ceph::buffer::list hint;
      i.decode_bl(hint);
      out->CollHint(c);
      break;
    }
    case T::OP_COLL_MOVE_RENAME: {
      const std::string c = x.cid();
      const smr::ObjectId o = x.oid();
      const std::string dc = CollName(i.get_cid(op->dest_cid));
      const smr::ObjectId d = ToObjectId(i.get_oid(op->dest_oid));
      out->CollMoveRename(c, o, dc, d);
      x.touch_obj(c, o);
      x.touch_obj(dc, d);
      break;
    }
    case T::OP_TRY_RENAME: {
      const std::string c = x.cid();
      const smr::ObjectId o = x.oid();
      const smr::ObjectId d = ToObjectId(i.get_oid(op->dest_oid));
      out->TryRename(c, o, d);
      x.touch_obj(c, o);
      x.touch_obj(c, d);
      break;
    }
    case T::OP_SPLIT_COLLECTION2: {
      const std::string c = x.cid();
      const std::string dc = CollName(i.get_cid(op->dest_cid));
      out->SplitCollection(c, op->split_bits, op->split_rem, dc);
      touched->colls.insert(c);
      touched->colls.insert(dc);
      break;
    }
    case T::OP_MERGE_COLLECTION: {
      const std::string c = x.cid();
      const std::string dc = CollName(i.get_cid(op->dest_cid));
      out->MergeCollection(c, dc, op->split_bits);
      touched->colls.insert(c);
      touched->colls.insert(dc);
      break;
    }
    case T::OP_COLL_SET_BITS: {
      const std::string c = x.cid();
      out->CollSetBits(c, op->split_bits);
      touched->colls.insert(c);
      break;
    }
    default:
      return kNotThisGroup;
  }
  return 0;
}

}  // namespace

std::string ObjectKey(const smr::ObjectId& o) {
  std::string k;
  smr::EncodeObjectKey(o, &k);
  return k;
}

std::string ToString(const ceph::buffer::list& bl) {
  std::string s;
  s.reserve(bl.length());
  for (const auto& p : bl.buffers()) s.append(p.c_str(), p.length());
  return s;
}

int Translate(std::vector<ObjectStore::Transaction>& tls, smr::Transaction* out, Touched* touched,
              std::string* err) {
  size_t index = 0;            // of the op being read, over all of `tls`
  uint32_t code = UINT32_MAX;  // its code, once read
  try {
    for (T& t : tls) {
      for (T::iterator i = t.begin(); i.have_op(); ++index) {
        code = UINT32_MAX;
        T::Op* op = i.decode_op();
        code = op->op;
        OpTranslation x{i, op, code, index, out, touched, err};
        int r = TranslateDataOps(x);
        if (r == kNotThisGroup) r = TranslateAttrOmapOps(x);
        if (r == kNotThisGroup) r = TranslateCollectionOps(x);
        if (r == kNotThisGroup) {
          // Deprecated ops (OP_COLL_ADD, OP_COLL_REMOVE, OP_COLL_MOVE, OP_COLL_RENAME,
          // OP_SPLIT_COLLECTION, collection attrs, OP_TRIMCACHE) are not generated by a
          // Pacific OSD; BlueStore refuses them as well.
          *err = "op " + std::to_string(index) + ": unsupported transaction op " +
                 std::to_string(code);
          return -EOPNOTSUPP;
        }
        if (r != 0) return r;
      }
    }
  } catch (const std::runtime_error& e) {
    // ceph::buffer::end_of_buffer / malformed_input (a boost::system::system_error; its
    // class is only forward-declared in Debian's rados/buffer.h).
    *err = Malformed(index, code, e.what());
    return -EINVAL;
  } catch (const std::logic_error& e) {
    // std::out_of_range from the iterator (an index or op record past its table).
    *err = Malformed(index, code, e.what());
    return -EINVAL;
  }
  return 0;
}

}  // namespace smr::ceph_adapter
