// Constants of the store record format (see doc/format.md, "Store records"). No logic:
// the encoders and decoders are in format/record.h.
//
//   zone    := record* zero-blocks          (records start at offset 0 of a zone)
//   record  := header (kBlockSize bytes) payload zero-padding-to-kBlockSize
//
// Every record starts on a kBlockSize boundary of its zone and never spans two zones. A
// block that is all zeros is never a record header (magic and type are non-zero), so the
// first all-zero block after the records marks the end of what was written.
//
// Compatibility rules
//   * All integers are little-endian.
//   * kVersion is bumped on any change to the header block; a reader rejects versions it
//     does not know. Payload layouts are tied to their RecordType: an incompatible payload
//     change gets a new type tag; the superblock payload carries its own major.minor
//     version (kSuperblockMajor/kSuperblockMinor) and may grow by appending fields.
//   * Tags (RecordType values, flag bits) are never reused. Retired ones stay listed below
//     as comments, marked "retired", so nobody gives their number a new meaning.
//   * Reserved fields and unused bytes are written as zero and checked to be zero: giving
//     them a meaning is a version bump.
//
// Thread safety: constants only.
#pragma once

#include <cstdint>

namespace smr {

// The type tag of a record (header byte 6). 0 is never a tag, so a zeroed block is never
// a record. Tags are never reused; retired tags stay here as comments.
enum class RecordType : uint8_t {
  // 0: never used (a zeroed block).
  kData = 1,        // payload: object bytes at [logical_offset, logical_offset + payload_len)
  kTombstone = 2,   // no payload: object `nid` of `collection_id` was removed (flag
                    // kFlagRemoved) or truncated to `logical_offset` (flag clear)
  kZoneFooter = 3,  // payload: digest of the records before it in the zone (zone footer)
  kSuperblock = 4,  // payload: a StoreSuperblock
  kJournal = 5,     // payload: metadata journal ops of one commit (format/journal.h);
                    // seq = the commit's sequence number, collection_id = mount count
  kCheckpoint = 6,  // payload: one chunk of a metadata checkpoint (format/journal.h);
                    // seq = checkpoint sequence number, collection_id = mount count,
                    // nid = checkpoint id, logical_offset = chunk index
  kPack = 7,        // payload: the bytes of several small data writes back to back; the
                    // header's object-key area holds their directory (one kPackEntrySize
                    // entry each, see below); logical_offset = entry count, seq = the
                    // highest entry seq
  // Next free tag: 8.
};

namespace recfmt {

constexpr uint32_t kMagic = 0x52524D53u;  // "SMRR" as little-endian bytes 53 4d 52 52
constexpr uint16_t kVersion = 1;
constexpr uint32_t kBlockSize = 4096;
constexpr uint32_t kHeaderSize = kBlockSize;  // the header block
// Sanity bound on payload_len checked by the decoder. A record never spans zones, so the
// real bound is the zone capacity (256 MiB on today's drives), which the store enforces.
constexpr uint32_t kMaxPayloadLen = 1u << 30;

// Header block, offset: field (width)
constexpr uint32_t kMagicOffset = 0;           // u32 kMagic
constexpr uint32_t kVersionOffset = 4;         // u16 kVersion
constexpr uint32_t kTypeOffset = 6;            // u8 RecordType
constexpr uint32_t kFlagsOffset = 7;           // u8 kFlag* bits
constexpr uint32_t kPayloadLenOffset = 8;      // u32 payload bytes (without padding)
constexpr uint32_t kPayloadCrcOffset = 12;     // u32 crc32c of the payload (0 when none)
constexpr uint32_t kSeqOffset = 16;            // u64 store transaction sequence number
constexpr uint32_t kCollectionIdOffset = 24;   // u64 collection id
constexpr uint32_t kNidOffset = 32;            // u64 object (onode) id
constexpr uint32_t kLogicalOffsetOffset = 40;  // u64 object byte offset of the payload
constexpr uint32_t kObjectKeyLenOffset = 48;   // u16 bytes of object key stored (0 = none)
constexpr uint32_t kReserved16Offset = 50;     // u16 reserved, zero
constexpr uint32_t kReserved32Offset = 52;     // u32 reserved, zero
constexpr uint32_t kReserved64Offset = 56;     // u64 reserved, zero
constexpr uint32_t kObjectKeyOffset = 64;      // object key bytes (EncodeObjectKey)
constexpr uint32_t kHeaderCrcOffset = 4092;    // u32 crc32c of bytes [0, 4092)
// Longest object key stored in the header; a longer one is left out (kFlagKeyOmitted).
constexpr uint32_t kMaxObjectKeyLen = kHeaderCrcOffset - kObjectKeyOffset;  // 4028

// Flag bits (header byte 7). Never reused; retired bits stay here as comments.
constexpr uint8_t kFlagKeyOmitted = 0x01;  // the object key did not fit; object_key_len = 0
constexpr uint8_t kFlagRemoved = 0x02;     // kTombstone only: removed, not truncated
// Bits 0x04..0x80: unassigned. A version-1 reader rejects them.
constexpr uint8_t kKnownFlags = kFlagKeyOmitted | kFlagRemoved;

// Pack record (RecordType::kPack): the directory sits in the header block from
// kObjectKeyOffset on (object_key_len 0), one entry per packed write, in payload order:
// entry k's bytes are payload bytes [sum of lengths before k, + its length).
// Entry, offset: field (width)
//   0 payload_len (u32, > 0) | 4 payload_crc (u32, crc32c of its bytes) | 8 seq (u64)
//   16 collection_id (u64) | 24 nid (u64, > 0) | 32 logical_offset (u64)
// The record's own payload_len is the sum of the entries' and its payload_crc covers the
// whole payload, as for any record.
constexpr uint32_t kPackEntrySize = 40;
constexpr uint32_t kMaxPackEntries = (kHeaderCrcOffset - kObjectKeyOffset) / kPackEntrySize;  // 100

// Zone footer payload (RecordType::kZoneFooter):
//   count (u32) | count entries of kFooterEntrySize | crc32c of the bytes before it (u32)
// Entry, offset: field (width)
//   0 block (u32): record start, in kBlockSize blocks from the zone start
//   4 payload_len (u32) | 8 type (u8) | 9 flags (u8) | 10 reserved (u16) | 12 reserved (u32)
//   16 seq (u64) | 24 collection_id (u64) | 32 nid (u64) | 40 logical_offset (u64)
constexpr uint32_t kFooterEntrySize = 48;
constexpr uint32_t kFooterFixedSize = 8;  // count + crc

// Store superblock payload (RecordType::kSuperblock):
//   major (u16) | minor (u16) | body_len (u32) | body (body_len bytes) | crc32c of
//   [0, 8 + body_len) (u32)
// Body of version 1.0, offset: field (width)
//   0 store_uuid (16) | 16 format_version (u32) | 20 drive_index (u32) | 24 nr_drives (u32)
//   28 clean_umount (u8, 0 or 1) | 29 reserved (3) | 32 sequence (u64)
//   40 created_unix_sec (u64) | 48 mount_count (u64) | 56 max_record_payload (u32)
//   60 inline_max (u32) | 64 drive_uuid_count (u32) | 68 meta_path_hint_len (u32)
//   72 drive_uuids (drive_uuid_count * 16) | meta_path_hint (meta_path_hint_len)
// A later minor appends fields after meta_path_hint; a reader ignores what it does not know.
constexpr uint16_t kSuperblockMajor = 1;
constexpr uint16_t kSuperblockMinor = 0;
constexpr uint32_t kSuperblockPrefixSize = 8;   // major + minor + body_len
constexpr uint32_t kSuperblockFixedBody = 72;   // body bytes before the variable parts
constexpr uint32_t kMaxDrives = 4096;           // sanity bound on nr_drives
constexpr uint32_t kMaxMetaPathHint = 4096;     // sanity bound on meta_path_hint
// The store's on-disk format version as a whole (records, keys, superblock), which mount
// compares with what it supports; StoreSuperblock::format_version holds it.
constexpr uint32_t kStoreFormatVersion = 1;

}  // namespace recfmt
}  // namespace smr
