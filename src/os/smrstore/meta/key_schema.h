// The RocksDB key layout of smrstore's metadata (doc/format.md, "RocksDB keys and values").
//
// Contract
//   Every key starts with one prefix byte naming its kind; the rest is an order-preserving
//   encoding (big-endian integers, escaped strings, format/object_id.h object keys), so a
//   RocksDB iteration over one prefix (and one id inside it) lists exactly that kind in
//   the order the layers above need. Format version kFormatVersion:
//
//   prefix  key                                         value (meta/onode.h encodings)
//   'V'     'V' "format_version"                        fixed32 LE format version (1)
//   'S'     'S' name (raw bytes)                        opaque bytes (PutValue/GetValue)
//   'D'     'D' name (raw bytes)                        opaque bytes, derived from the drives
//                                                       (PutDerivedValue; not journaled)
//   'N'     'N' name (raw bytes)                        fixed64 LE counter
//   'C'     'C' AppendEscaped(collection name)          EncodeCollectionMeta
//   'O'     'O' cid (8 BE) EncodeObjectKey(oid)         EncodeOnode
//   'H'     'H' nid (8 BE)                              omap header (opaque bytes)
//   'M'     'M' nid (8 BE) omap key (raw bytes)         omap value (opaque bytes)
//   'Z'     'Z' drive (2 BE) zone (4 BE)                EncodeZoneMeta
//
//   Prefix bytes are never reused: a retired kind stays listed here, marked retired, and
//   its byte is never given to another kind. kFormatVersion is bumped on any incompatible
//   change of a key shape or value encoding; MetaStore::Open refuses other versions.
//   Integers inside keys are big-endian (memcmp order = numeric order); integers inside
//   values are little-endian or varints (meta/onode.h).
//
// Thread safety: constants and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "common/result.h"
#include "format/object_id.h"

namespace smr::keys {

constexpr uint32_t kFormatVersion = 1;

constexpr char kFormatVersionPrefix = 'V';
constexpr char kValuePrefix = 'S';
constexpr char kDerivedValuePrefix = 'D';  // store state a rebuild recomputes: not journaled
constexpr char kCounterPrefix = 'N';
constexpr char kCollectionPrefix = 'C';
constexpr char kObjectPrefix = 'O';
constexpr char kOmapHeaderPrefix = 'H';
constexpr char kOmapPrefix = 'M';
constexpr char kZonePrefix = 'Z';
constexpr char kNidPrefix = 'I';  // nid (8 BE) -> cid (8 BE) + EncodeObjectKey(oid)

// 'V' "format_version": the one key of its kind.
std::string FormatVersionKey();
// Value of the format version key: fixed32 LE.
std::string EncodeFormatVersion(uint32_t version);
Result<uint32_t> DecodeFormatVersion(std::string_view value);

std::string ValueKey(std::string_view name);
std::string DerivedValueKey(std::string_view name);
std::string CounterKey(std::string_view name);

std::string CollectionKey(std::string_view name);
// The name inside a collection key; kCorruption when `key` is not one whole such key.
Result<std::string> DecodeCollectionKey(std::string_view key);

// 'O' cid: the prefix of every object key of collection `cid`.
std::string ObjectKeyPrefix(uint64_t cid);
std::string ObjectKey(uint64_t cid, const ObjectId& oid);
// The object of an object key of collection `cid`; kCorruption otherwise.
Result<ObjectId> DecodeObjectKeyOf(uint64_t cid, std::string_view key);

std::string OmapHeaderKey(uint64_t nid);
// 'M' nid: the prefix of every omap key of `nid`.
std::string OmapKeyPrefix(uint64_t nid);
std::string OmapKey(uint64_t nid, std::string_view omap_key);

std::string ZoneKey(uint16_t drive, uint32_t zone);
// Reverse index for GC: which object (collection, key) an onode id belongs to now.
std::string NidKey(uint64_t nid);
// (drive, zone) of a zone key; kCorruption when `key` is not one whole zone key.
Result<std::pair<uint16_t, uint32_t>> DecodeZoneKey(std::string_view key);

// The smallest string greater than every string starting with `prefix` (the exclusive
// upper bound of a prefix scan); empty when there is none (prefix is all 0xff bytes).
std::string PrefixSuccessor(std::string_view prefix);

}  // namespace smr::keys
