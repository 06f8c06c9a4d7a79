#include "store/transaction.h"

namespace smr {

Transaction::Op& Transaction::Add(OpCode code, const std::string& c, const ObjectId& o) {
  Op& op = ops_.emplace_back();
  op.code = code;
  op.coll = c;
  op.oid = o;
  return op;
}

void Transaction::Touch(const std::string& c, const ObjectId& o) { Add(OpCode::kTouch, c, o); }

void Transaction::Write(const std::string& c, const ObjectId& o, uint64_t offset,
                        std::string data) {
  Op& op = Add(OpCode::kWrite, c, o);
  op.offset = offset;
  op.length = data.size();
  op.data = std::move(data);
}

void Transaction::Write(const std::string& c, const ObjectId& o, uint64_t offset,
                        std::shared_ptr<const std::string> data) {
  Op& op = Add(OpCode::kWrite, c, o);
  op.offset = offset;
  op.length = data ? data->size() : 0;
  if (data && !data->empty()) {
    op.borrowed = *data;
    op.borrowed_owner = std::move(data);
  }
}

void Transaction::Write(const std::string& c, const ObjectId& o, uint64_t offset,
                        std::string_view bytes, std::shared_ptr<const void> owner) {
  Op& op = Add(OpCode::kWrite, c, o);
  op.offset = offset;
  op.length = bytes.size();
  if (bytes.empty()) return;
  if (!owner) {  // nothing keeps the bytes alive: copy them
    op.data.assign(bytes.data(), bytes.size());
    return;
  }
  op.borrowed = bytes;
  op.borrowed_owner = std::move(owner);
}

void Transaction::Zero(const std::string& c, const ObjectId& o, uint64_t offset,
                       uint64_t length) {
  Op& op = Add(OpCode::kZero, c, o);
  op.offset = offset;
  op.length = length;
}

void Transaction::Truncate(const std::string& c, const ObjectId& o, uint64_t size) {
  Add(OpCode::kTruncate, c, o).offset = size;
}

void Transaction::Remove(const std::string& c, const ObjectId& o) { Add(OpCode::kRemove, c, o); }

void Transaction::SetAttr(const std::string& c, const ObjectId& o, const std::string& name,
                          std::string value) {
  Add(OpCode::kSetAttrs, c, o).kv.emplace(name, std::move(value));
}

void Transaction::SetAttrs(const std::string& c, const ObjectId& o,
                           std::map<std::string, std::string> kv) {
  Add(OpCode::kSetAttrs, c, o).kv = std::move(kv);
}

void Transaction::RmAttr(const std::string& c, const ObjectId& o, const std::string& name) {
  Add(OpCode::kRmAttr, c, o).data = name;
}

void Transaction::RmAttrs(const std::string& c, const ObjectId& o) {
  Add(OpCode::kRmAttrs, c, o);
}

void Transaction::Clone(const std::string& c, const ObjectId& src, const ObjectId& dst) {
  Add(OpCode::kClone, c, src).dest_oid = dst;
}

void Transaction::CloneRange(const std::string& c, const ObjectId& src, const ObjectId& dst,
                             uint64_t src_offset, uint64_t length, uint64_t dst_offset) {
  Op& op = Add(OpCode::kCloneRange, c, src);
  op.dest_oid = dst;
  op.offset = src_offset;
  op.length = length;
  op.dest_offset = dst_offset;
}

void Transaction::MkColl(const std::string& c, uint32_t bits) {
  Add(OpCode::kMkColl, c, ObjectId{}).bits = bits;
}

void Transaction::RmColl(const std::string& c) { Add(OpCode::kRmColl, c, ObjectId{}); }

void Transaction::CollMoveRename(const std::string& old_c, const ObjectId& old_o,
                                 const std::string& new_c, const ObjectId& new_o) {
  Op& op = Add(OpCode::kCollMoveRename, old_c, old_o);
  op.dest_coll = new_c;
  op.dest_oid = new_o;
}

void Transaction::TryRename(const std::string& c, const ObjectId& old_o,
                            const ObjectId& new_o) {
  Op& op = Add(OpCode::kCollMoveRename, c, old_o);
  op.dest_coll = c;
  op.dest_oid = new_o;
  op.tolerate_missing = true;
}

void Transaction::OmapClear(const std::string& c, const ObjectId& o) {
  Add(OpCode::kOmapClear, c, o);
}

void Transaction::OmapSetKeys(const std::string& c, const ObjectId& o,
                              std::map<std::string, std::string> kv) {
  Add(OpCode::kOmapSetKeys, c, o).kv = std::move(kv);
}

void Transaction::OmapRmKeys(const std::string& c, const ObjectId& o,
                             std::set<std::string> keys) {
  Add(OpCode::kOmapRmKeys, c, o).keys = std::move(keys);
}

void Transaction::OmapRmKeyRange(const std::string& c, const ObjectId& o,
                                 const std::string& first, const std::string& last) {
  Op& op = Add(OpCode::kOmapRmKeyRange, c, o);
  op.data = first;
  op.data2 = last;
}

void Transaction::OmapSetHeader(const std::string& c, const ObjectId& o, std::string header) {
  Add(OpCode::kOmapSetHeader, c, o).data = std::move(header);
}

void Transaction::SplitCollection(const std::string& c, uint32_t bits, uint32_t rem,
                                  const std::string& dest) {
  Op& op = Add(OpCode::kSplitCollection, c, ObjectId{});
  op.bits = bits;
  op.rem = rem;
  op.dest_coll = dest;
}

void Transaction::MergeCollection(const std::string& c, const std::string& dest,
                                  uint32_t bits) {
  Op& op = Add(OpCode::kMergeCollection, c, ObjectId{});
  op.bits = bits;
  op.dest_coll = dest;
}

void Transaction::CollSetBits(const std::string& c, uint32_t bits) {
  Add(OpCode::kCollSetBits, c, ObjectId{}).bits = bits;
}

void Transaction::CollHint(const std::string& c) { Add(OpCode::kCollHint, c, ObjectId{}); }

void Transaction::SetAllocHint(const std::string& c, const ObjectId& o,
                               uint64_t expected_object_size, uint64_t expected_write_size,
                               uint32_t flags) {
  Op& op = Add(OpCode::kSetAllocHint, c, o);
  op.offset = expected_object_size;
  op.length = expected_write_size;
  op.bits = flags;
}

uint64_t Transaction::data_bytes() const {
  uint64_t n = 0;
  for (const Op& op : ops_) {
    if (op.code == OpCode::kWrite) n += op.write_data().size();
  }
  return n;
}

namespace {

Status CheckObject(const ObjectId& o, size_t i, Transaction::OpCode code, const char* which) {
  auto fail = [&](const char* what, size_t len, size_t limit, const char* option) {
    return Status::InvalidArgument(std::string(OpName(code)) + " (op " + std::to_string(i) +
                                   "): " + which + " " + what + " of " + std::to_string(len) +
                                   " bytes exceeds Ceph's " + option + " (" +
                                   std::to_string(limit) + ")");
  };
  if (o.max) return Status::OK();
  if (o.name.size() > Transaction::kMaxObjectNameLen) {
    return fail("name", o.name.size(), Transaction::kMaxObjectNameLen,
                "osd_max_object_name_len");
  }
  if (o.key.size() > Transaction::kMaxObjectNameLen) {
    return fail("locator key", o.key.size(), Transaction::kMaxObjectNameLen,
                "osd_max_object_name_len");
  }
  if (o.nspace.size() > Transaction::kMaxNamespaceLen) {
    return fail("namespace", o.nspace.size(), Transaction::kMaxNamespaceLen,
                "osd_max_object_namespace_len");
  }
  return Status::OK();
}

Status CheckAttrName(const std::string& name, size_t i, Transaction::OpCode code) {
  if (name.size() <= Transaction::kMaxAttrNameLen) return Status::OK();
  return Status::InvalidArgument(std::string(OpName(code)) + " (op " + std::to_string(i) +
                                 "): xattr name of " + std::to_string(name.size()) +
                                 " bytes exceeds Ceph's osd_max_attr_name_len (" +
                                 std::to_string(Transaction::kMaxAttrNameLen) + ")");
}

// [off, off + len) must end below kMaxObjectSize (no overflow for any off, len).
Status CheckRange(uint64_t off, uint64_t len, size_t i, Transaction::OpCode code,
                  const char* which) {
  const uint64_t max = Transaction::kMaxObjectSize;
  if (off < max && len < max - off) return Status::OK();
  const std::string what = code == Transaction::OpCode::kTruncate
                               ? "size " + std::to_string(off)
                               : std::string(which) + " " + std::to_string(off) + "~" +
                                     std::to_string(len);
  return Status::InvalidArgument(std::string(OpName(code)) + " (op " + std::to_string(i) +
                                 "): " + what + " reaches the object size limit (" +
                                 std::to_string(max) + " bytes, BlueStore's OBJECT_MAX_SIZE)");
}

}  // namespace

Status Transaction::Validate() const {
  using C = OpCode;
  for (size_t i = 0; i < ops_.size(); ++i) {
    const Op& op = ops_[i];
    switch (op.code) {
      case C::kNop:
      case C::kMkColl:
      case C::kRmColl:
      case C::kSplitCollection:
      case C::kMergeCollection:
      case C::kCollSetBits:
      case C::kCollHint:
        continue;  // no object
      default:
        break;
    }
    Status s = CheckObject(op.oid, i, op.code, "object");
    if (!s.ok()) return s;
    switch (op.code) {
      case C::kWrite:
        s = CheckRange(op.offset, op.write_data().size(), i, op.code, "range");
        break;
      case C::kZero:
        s = CheckRange(op.offset, op.length, i, op.code, "range");
        break;
      case C::kTruncate:
        s = CheckRange(op.offset, 0, i, op.code, "size");
        break;
      case C::kCloneRange:
        s = CheckRange(op.offset, op.length, i, op.code, "source range");
        if (s.ok()) s = CheckRange(op.dest_offset, op.length, i, op.code, "destination range");
        break;
      default:
        break;
    }
    if (!s.ok()) return s;
    if (op.code == C::kClone || op.code == C::kCloneRange || op.code == C::kCollMoveRename) {
      s = CheckObject(op.dest_oid, i, op.code, "destination object");
      if (!s.ok()) return s;
    }
    if (op.code == C::kSetAttrs) {
      for (const auto& [k, v] : op.kv) {
        s = CheckAttrName(k, i, op.code);
        if (!s.ok()) return s;
      }
    }
    if (op.code == C::kRmAttr) {
      s = CheckAttrName(op.data, i, op.code);
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

const char* OpName(Transaction::OpCode code) {
  using C = Transaction::OpCode;
  switch (code) {
    case C::kNop: return "nop";
    case C::kTouch: return "touch";
    case C::kWrite: return "write";
    case C::kZero: return "zero";
    case C::kTruncate: return "truncate";
    case C::kRemove: return "remove";
    case C::kSetAttrs: return "setattrs";
    case C::kRmAttr: return "rmattr";
    case C::kRmAttrs: return "rmattrs";
    case C::kClone: return "clone";
    case C::kCloneRange: return "clone_range";
    case C::kMkColl: return "mkcoll";
    case C::kRmColl: return "rmcoll";
    case C::kCollMoveRename: return "collection_move_rename";
    case C::kOmapClear: return "omap_clear";
    case C::kOmapSetKeys: return "omap_setkeys";
    case C::kOmapRmKeys: return "omap_rmkeys";
    case C::kOmapRmKeyRange: return "omap_rmkeyrange";
    case C::kOmapSetHeader: return "omap_setheader";
    case C::kSplitCollection: return "split_collection";
    case C::kMergeCollection: return "merge_collection";
    case C::kCollSetBits: return "coll_set_bits";
    case C::kCollHint: return "coll_hint";
    case C::kSetAllocHint: return "set_alloc_hint";
  }
  return "unknown";
}

}  // namespace smr
