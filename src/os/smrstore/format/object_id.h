// ObjectId and its order-preserving encoding: how smrstore names a RADOS object.
//
// Contract
//   ObjectId carries the fields of Ceph's ghobject_t (pool, namespace, locator key, name,
//   snap, hash, generation, shard, max) without any Ceph type, so the engine stays free of
//   Ceph headers. Compare() orders ObjectIds exactly as Ceph Pacific's
//   cmp(ghobject_t, ghobject_t) does:
//     max, shard, then the hobject: max, pool, bitwise hash key (the 32-bit hash with its
//     bits reversed), namespace, effective key (locator key, or the name when the key is
//     empty — compared only when one of the keys is non-empty), name, snap; then generation.
//   EncodeObjectKey() produces bytes whose memcmp order equals Compare(), so a RocksDB
//   iteration over encoded keys lists objects in Ceph's collection-list order; it is also
//   the identity stored in record headers (doc/format.md, "Object key").
//   DecodeObjectKey(EncodeObjectKey(x)) == x for every valid x.
//
// Limits (Ceph's defaults, enforced by Validate): name ≤ 2048 bytes, key ≤ 2048,
// namespace ≤ 2048. Thread safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace smr {

struct ObjectId {
  static constexpr uint64_t kNoSnap = 0xfffffffffffffffeull;  // CEPH_NOSNAP: the head
  static constexpr uint64_t kSnapDir = 0xffffffffffffffffull;  // CEPH_SNAPDIR
  static constexpr uint64_t kNoGen = 0xffffffffffffffffull;    // ghobject_t::NO_GEN
  static constexpr int8_t kNoShard = -1;                        // shard_id_t::NO_SHARD
  static constexpr size_t kMaxNameLen = 2048;

  int64_t pool = 0;
  std::string nspace;
  std::string key;   // locator key; empty = none
  std::string name;  // object name (oid)
  uint64_t snap = kNoSnap;
  uint32_t hash = 0;
  uint64_t generation = kNoGen;
  int8_t shard = kNoShard;
  bool max = false;  // the "max" sentinel that sorts after every object

  // The smallest id in Compare() order (start of a whole-collection listing).
  static ObjectId Min() {
    ObjectId o;
    o.pool = INT64_MIN;
    o.snap = 0;
    o.generation = 0;
    o.shard = INT8_MIN;
    return o;
  }
  // The max sentinel (end of a whole-collection listing).
  static ObjectId Max() {
    ObjectId o;
    o.max = true;
    return o;
  }

  // Returns kInvalidArgument naming the field that breaks a limit.
  Status Validate() const;
  // Human-readable "pool:hash:nspace:key:name:snap:gen:shard" (for logs and the tool).
  std::string ToString() const;

  bool operator==(const ObjectId& o) const;
  bool operator!=(const ObjectId& o) const { return !(*this == o); }
  bool operator<(const ObjectId& o) const;
};

// Ceph's ghobject_t order: <0, 0, >0.
int Compare(const ObjectId& a, const ObjectId& b);

// The 32-bit hash with its bit order reversed (Ceph's hobject_t::get_bitwise_key_u32).
uint32_t ReverseBits32(uint32_t v);

// Appends the order-preserving encoding of `id` to `out`.
void EncodeObjectKey(const ObjectId& id, std::string* out);
// Decodes a whole encoded key. Errors: kCorruption when `in` is not exactly one key.
Result<ObjectId> DecodeObjectKey(std::string_view in);

// Order-preserving string escape used by the key encodings: 0x00 -> 0x00 0xff, terminated
// by 0x00 0x01, so a prefix sorts before its extensions and memcmp order = string order.
void AppendEscaped(std::string_view s, std::string* out);
// Consumes one escaped string from the front of `*in`; false when malformed.
bool ConsumeEscaped(std::string_view* in, std::string* out);

// Big-endian helpers for order-preserving integer keys.
void AppendBigEndian64(uint64_t v, std::string* out);
void AppendBigEndian32(uint32_t v, std::string* out);
bool ConsumeBigEndian64(std::string_view* in, uint64_t* v);
bool ConsumeBigEndian32(std::string_view* in, uint32_t* v);

}  // namespace smr
