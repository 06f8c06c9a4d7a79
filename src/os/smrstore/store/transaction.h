// Transaction: an ordered list of mutations that smrstore applies all-or-nothing.
//
// Contract
//   The op set and semantics are those of Ceph Pacific's ceph::os::Transaction (see
//   doc/design.md, "Transaction semantics"), with Ceph types replaced by plain ones:
//   collections are named by coll_t's string form ("2.1f_head", "meta"), objects by
//   ObjectId (ghobject_t's fields). The Ceph adapter translates one into the other.
//   Which missing-object/attribute errors fail a transaction and which are tolerated
//   follows BlueStore:
//     - touch, create, write, zero, clone-range destination: create the object if missing;
//     - remove, truncate, rmattrs, omap_clear, set_alloc_hint, rename of a missing
//       source, try_rename: a missing object is a no-op;
//     - setattr(s), rmattr, clone / clone-range source, omap setkeys / rmkeys /
//       rmkeyrange / setheader on a missing object: kNotFound, the transaction fails;
//     - rmattr of a missing attribute: a no-op (Ceph tolerates ENODATA);
//     - mkcoll of an existing collection: kAlreadyExists; rmcoll of a non-empty one:
//       kNotEmpty; any op naming a missing collection (rmcoll included): kNotFound;
//     - rename onto an existing object: kAlreadyExists.
//   A failed transaction changes nothing. Ops within a transaction see the effects of the
//   ops before them.
//   Name limits (Validate()) are Ceph's defaults, so nothing smrstore accepts could not
//   come from a RADOS client: object name and locator key <= 2048 bytes
//   (osd_max_object_name_len), namespace <= 256 (osd_max_object_namespace_len), xattr
//   name <= 100 (osd_max_attr_name_len). Ceph sets no length limit on omap keys.
//   Object sizes follow BlueStore: every byte range an op names ends below
//   kMaxObjectSize (4 GiB - 1), computed without overflow, and so does a truncate size.
// Thread safety: a value type; build it on one thread, then hand it to Store::Submit.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "format/object_id.h"

namespace smr {

class Transaction {
 public:
  // Ceph's defaults (`ceph-conf -D`, src/common/options.cc).
  static constexpr size_t kMaxObjectNameLen = 2048;  // osd_max_object_name_len (also key)
  static constexpr size_t kMaxNamespaceLen = 256;    // osd_max_object_namespace_len
  static constexpr size_t kMaxAttrNameLen = 100;     // osd_max_attr_name_len
  // Byte ranges (write, zero, clone-range source and destination) must end, and a
  // truncate size must be, below this: BlueStore's OBJECT_MAX_SIZE (0xffffffff), which it
  // enforces with E2BIG.
  static constexpr uint64_t kMaxObjectSize = 0xffffffffull;
  enum class OpCode : uint8_t {
    kNop,
    kTouch,  // also Ceph's OP_CREATE
    kWrite,
    kZero,
    kTruncate,
    kRemove,
    kSetAttrs,  // one or more attributes
    kRmAttr,
    kRmAttrs,
    kClone,
    kCloneRange,
    kMkColl,
    kRmColl,
    kCollMoveRename,  // also try_rename (tolerate_missing)
    kOmapClear,
    kOmapSetKeys,
    kOmapRmKeys,
    kOmapRmKeyRange,
    kOmapSetHeader,
    kSplitCollection,
    kMergeCollection,
    kCollSetBits,
    kCollHint,
    kSetAllocHint,
  };

  struct Op {
    OpCode code = OpCode::kNop;
    std::string coll;       // collection
    ObjectId oid;           // object
    std::string dest_coll;  // rename / split / merge destination
    ObjectId dest_oid;      // clone / rename destination
    uint64_t offset = 0;    // write/zero/clone-range source offset; truncate size
    uint64_t length = 0;
    uint64_t dest_offset = 0;
    uint32_t bits = 0;  // mkcoll, split, merge, set_bits
    uint32_t rem = 0;   // split
    bool tolerate_missing = false;  // try_rename
    std::string data;   // write payload, omap header, attr name (rmattr), range first key
    // A write's payload borrowed from the caller (Write's shared forms): `borrowed` views
    // memory that `borrowed_owner` keeps alive; `data` is then empty.
    std::shared_ptr<const void> borrowed_owner;
    std::string_view borrowed;
    std::string data2;  // range last key
    std::map<std::string, std::string> kv;  // attrs / omap keys
    std::set<std::string> keys;             // omap keys to remove

    // A kWrite's payload, wherever it is held.
    std::string_view write_data() const {
      return borrowed_owner ? borrowed : std::string_view(data);
    }
  };

  void Nop() { ops_.emplace_back(); }
  void Touch(const std::string& c, const ObjectId& o);
  void Write(const std::string& c, const ObjectId& o, uint64_t offset, std::string data);
  // The same without a copy: the transaction (and the store, until the write is committed)
  // holds a reference to `data`, whose bytes must not change from now on (null = nothing).
  void Write(const std::string& c, const ObjectId& o, uint64_t offset,
             std::shared_ptr<const std::string> data);
  // The same for bytes held by any owner (the Ceph adapter: a bufferlist's contiguous
  // memory): `bytes` must stay valid and unchanged while `owner` lives (no owner: copied).
  void Write(const std::string& c, const ObjectId& o, uint64_t offset, std::string_view bytes,
             std::shared_ptr<const void> owner);
  void Zero(const std::string& c, const ObjectId& o, uint64_t offset, uint64_t length);
  void Truncate(const std::string& c, const ObjectId& o, uint64_t size);
  void Remove(const std::string& c, const ObjectId& o);
  void SetAttr(const std::string& c, const ObjectId& o, const std::string& name,
               std::string value);
  void SetAttrs(const std::string& c, const ObjectId& o, std::map<std::string, std::string> kv);
  void RmAttr(const std::string& c, const ObjectId& o, const std::string& name);
  void RmAttrs(const std::string& c, const ObjectId& o);
  void Clone(const std::string& c, const ObjectId& src, const ObjectId& dst);
  void CloneRange(const std::string& c, const ObjectId& src, const ObjectId& dst,
                  uint64_t src_offset, uint64_t length, uint64_t dst_offset);
  void MkColl(const std::string& c, uint32_t bits);
  void RmColl(const std::string& c);
  void CollMoveRename(const std::string& old_c, const ObjectId& old_o, const std::string& new_c,
                      const ObjectId& new_o);
  void TryRename(const std::string& c, const ObjectId& old_o, const ObjectId& new_o);
  void OmapClear(const std::string& c, const ObjectId& o);
  void OmapSetKeys(const std::string& c, const ObjectId& o,
                   std::map<std::string, std::string> kv);
  void OmapRmKeys(const std::string& c, const ObjectId& o, std::set<std::string> keys);
  void OmapRmKeyRange(const std::string& c, const ObjectId& o, const std::string& first,
                      const std::string& last);
  void OmapSetHeader(const std::string& c, const ObjectId& o, std::string header);
  void SplitCollection(const std::string& c, uint32_t bits, uint32_t rem,
                       const std::string& dest);
  void MergeCollection(const std::string& c, const std::string& dest, uint32_t bits);
  void CollSetBits(const std::string& c, uint32_t bits);
  void CollHint(const std::string& c);
  void SetAllocHint(const std::string& c, const ObjectId& o, uint64_t expected_object_size,
                    uint64_t expected_write_size, uint32_t flags);

  // kInvalidArgument naming the op and the Ceph limit a name breaks (see the contract);
  // OK otherwise. Checks names only, not whether objects or collections exist.
  Status Validate() const;

  const std::vector<Op>& ops() const { return ops_; }
  std::vector<Op>& mutable_ops() { return ops_; }
  bool empty() const { return ops_.empty(); }
  // Bytes of write payload carried (for throttling and stats).
  uint64_t data_bytes() const;

 private:
  Op& Add(OpCode code, const std::string& c, const ObjectId& o);
  std::vector<Op> ops_;
};

const char* OpName(Transaction::OpCode code);

}  // namespace smr
