// Onode, Extent, CollectionMeta, ZoneMeta: the metadata values smrstore keeps in RocksDB,
// with their versioned encodings (doc/format.md, "RocksDB values").
//
// Contract
//   An Onode describes one object: its size, where its bytes live (extent map), its
//   xattrs and whether it has omap data. Extents never overlap; bytes of [0, size) that no
//   extent covers are holes and read as zeros. An object's data lives either in zones
//   (extents) or inline in RocksDB (inline_data, for tiny objects), never both.
//   Every extent points into one data record, or one entry of a pack record
//   (format/record.h), and carries that record's (entry's) payload location and crc, so a
//   read can verify the bytes it reads.
//   Encodings start with a version byte (valfmt:: below, one per encoding; doc/format.md
//   "Versions" lists them); decoders reject any other version with kCorruption naming the
//   value, the version found and the version this build reads. Decode(Encode(x)) == x.
// Thread safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/result.h"
#include "format/zone_meta.h"

namespace smr {

// The version byte of each value encoding. Bumped on any incompatible change; a decoder
// reads its own version only (on-disk format v1 is frozen: no older version is decoded).
namespace valfmt {
constexpr uint8_t kOnodeVersion = 1;           // 'O' values (extents, xattrs inside)
constexpr uint8_t kCollectionMetaVersion = 1;  // 'C' values
constexpr uint8_t kZoneMetaVersion = 2;        // 'Z' values (1, without footer_at, retired)
}  // namespace valfmt

// A piece of an object's data: object bytes [logical_offset, logical_offset + length)
// are payload bytes [payload_skip, payload_skip + length) of the data record whose payload
// starts at device byte `payload_offset` of drive `drive`. For an entry of a pack record
// (in_pack) "payload" means the entry's bytes: payload_offset is where they start (not
// block-aligned in general), payload_len and payload_crc are the entry's, and the pack's
// own payload starts pack_offset bytes before payload_offset.
struct Extent {
  uint64_t logical_offset = 0;
  uint32_t length = 0;
  uint16_t drive = 0;
  uint64_t payload_offset = 0;  // device byte where the record's (entry's) payload starts
  uint32_t payload_len = 0;     // the record's (entry's) whole payload length
  uint32_t payload_crc = 0;     // crc32c of the record's (entry's) whole payload
  uint32_t payload_skip = 0;    // where this extent's bytes start inside the payload
  bool in_pack = false;         // an entry of a pack record
  uint32_t pack_offset = 0;     // in_pack: the entry's offset in the pack's payload

  uint64_t end() const { return logical_offset + length; }
  // Device byte of object byte `logical_offset`.
  uint64_t device_offset() const { return payload_offset + payload_skip; }
  // Device byte of the header block of the record holding this extent.
  uint64_t record_offset() const {
    return payload_offset - (in_pack ? pack_offset : 0) - kRecordHeaderBytes;
  }
  static constexpr uint64_t kRecordHeaderBytes = 4096;  // recfmt::kHeaderSize
  bool operator==(const Extent& o) const;
};

struct Onode {
  uint64_t nid = 0;   // unique id of this object incarnation (keys its omap)
  uint64_t size = 0;  // logical size in bytes
  std::map<uint64_t, Extent> extents;  // by logical_offset; non-overlapping
  std::string inline_data;             // whole object data when stored inline
  bool data_inline = false;
  std::map<std::string, std::string> xattrs;
  bool has_omap = false;  // omap header or keys may exist under nid
  uint32_t alloc_hint_flags = 0;
  uint64_t expected_object_size = 0;
  uint64_t expected_write_size = 0;
  uint64_t mtime_ns = 0;  // last data change (for lifetime-aware placement)

  bool operator==(const Onode& o) const;
};

std::string EncodeOnode(const Onode& onode);
Result<Onode> DecodeOnode(std::string_view value);

// A collection (Ceph coll_t, named by its string form, e.g. "2.1f_head" or "meta").
struct CollectionMeta {
  uint64_t cid = 0;   // numeric id, unique for the store's lifetime
  uint32_t bits = 0;  // Ceph's collection bits (split/merge)
  bool operator==(const CollectionMeta& o) const { return cid == o.cid && bits == o.bits; }
};

std::string EncodeCollectionMeta(const CollectionMeta& c);
Result<CollectionMeta> DecodeCollectionMeta(std::string_view value);

// ZoneMeta (format/zone_meta.h) is stored per zone under its own key.
std::string EncodeZoneMeta(const ZoneMeta& z);
Result<ZoneMeta> DecodeZoneMeta(std::string_view value);

}  // namespace smr
