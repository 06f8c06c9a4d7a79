// Store records: the typed, checksummed, 4 KiB-aligned units smrstore writes into zones,
// and the payloads of the two structural record types (zone footer, store superblock).
// Constants and byte layouts: format/record_format.h and doc/format.md, "Store records".
//
// Contract
//   * A record is one kBlockSize header block followed by its payload, zero-padded to a
//     multiple of kBlockSize: RecordBytes(payload_len) = 4096 + roundup(payload_len, 4096).
//     AppendRecord builds exactly those bytes.
//   * EncodeRecordHeader writes the header block as given (the caller sets payload_len and
//     payload_crc, see PayloadCrc; AppendRecord does both) and computes header_crc. It sets
//     kFlagKeyOmitted itself: an object key longer than kMaxObjectKeyLen is left out.
//   * DecodeRecordHeader accepts only what a version-1 writer produces from a valid header
//     (the rules below) and otherwise returns kCorruption whose message names the check
//     that failed ("bad magic", "unsupported version", "header crc mismatch", "unknown
//     record type", "unknown flags", "payload length", "object key", "nonzero reserved");
//     an all-zero block is kNotFound ("no record here": past the last record of a zone).
//     Checks, in order: all-zero, magic, version, header crc, type, flags, lengths,
//     per-type rules, reserved and unused bytes zero, object key decodes (DecodeObjectKey).
//     Per-type rules:
//       kData        flags ⊆ {KeyOmitted}
//       kTombstone   flags ⊆ {KeyOmitted, Removed}; payload_len = 0, payload_crc = 0
//       kZoneFooter  flags = 0; collection_id = nid = logical_offset = 0; no object key;
//                    payload_len ≥ 8
//       kSuperblock  flags = 0; collection_id = nid = logical_offset = 0; no object key;
//                    payload_len > 0
//       kJournal     flags = 0; nid = logical_offset = 0; no object key; payload_len > 0
//       kCheckpoint  flags = 0; no object key; payload_len > 0
//       kPack        flags = 0; collection_id = nid = 0; no object key; logical_offset =
//                    the entry count, 1 … kMaxPackEntries; the directory (`pack`) fills
//                    the key area; every entry has payload_len > 0, nid > 0 and seq ≤ the
//                    header's seq; the entries' lengths sum to payload_len ("pack")
//     An object key is "absent" (object_key_len 0, flag clear) or "omitted" (too long for
//     the header: object_key_len 0, kFlagKeyOmitted); the onode in RocksDB names the
//     object either way, the key in the header is for fsck and disaster recovery.
//   * Payload crcs are checked only by VerifyPayload (callers choose when to pay for it).
//   * Zone footer: the last record of a zone the store finishes; one entry per record
//     before it, in zone order (blocks strictly increasing). GC and recovery read it
//     instead of every header. Its payload carries its own crc as well.
//   * Store superblock: versioned major.minor with an explicit body length. Compat rule: a
//     reader accepts its own major with any minor; fields are only ever appended to the
//     body, so a reader decodes the fields it knows and ignores body bytes after them (a
//     newer minor's fields). A body shorter than the reader's own minor requires is
//     kCorruption (fields a newer minor adds must have a safe default, used when an older
//     writer rewrote the superblock and dropped them). A different major is kCorruption.
//   * ScanRecords walks a zone's written bytes (see there).
//
// Thread safety: value types and pure functions, except NewRandomUuid (thread-safe: each
// call uses its own std::random_device).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "format/record_format.h"

namespace smr {

// Bytes a record with `payload_len` payload bytes occupies in its zone.
constexpr uint64_t RecordBytes(uint64_t payload_len) {
  return recfmt::kHeaderSize +
         (payload_len + recfmt::kBlockSize - 1) / recfmt::kBlockSize * recfmt::kBlockSize;
}

// "data", "tombstone", "zone-footer", "superblock", "journal", "checkpoint", "pack"
// (or "unknown").
const char* RecordTypeName(RecordType type);
// True for the tags a version-1 reader knows.
bool IsKnownRecordType(uint8_t tag);

// One small write inside a pack record (RecordType::kPack): object bytes
// [logical_offset, logical_offset + payload_len) of object `nid`, held at payload bytes
// [offset, offset + payload_len) of the pack. `offset` is not stored: it is the sum of the
// lengths of the entries before it (DecodeRecordHeader sets it; EncodeRecordHeader
// ignores it).
struct PackEntry {
  uint32_t offset = 0;
  uint32_t payload_len = 0;
  uint32_t payload_crc = 0;  // crc32c of the entry's bytes
  uint64_t seq = 0;
  uint64_t collection_id = 0;
  uint64_t nid = 0;
  uint64_t logical_offset = 0;

  bool operator==(const PackEntry& o) const;
  bool operator!=(const PackEntry& o) const { return !(*this == o); }
};

struct RecordHeader {
  RecordType type = RecordType::kData;
  uint8_t flags = 0;             // recfmt::kFlag*
  uint32_t payload_len = 0;      // bytes, without padding
  uint32_t payload_crc = 0;      // PayloadCrc(payload); 0 when payload_len = 0
  uint64_t seq = 0;              // store transaction that wrote the record
  uint64_t collection_id = 0;
  uint64_t nid = 0;              // object (onode) id
  uint64_t logical_offset = 0;   // object byte offset of the payload (kData), new size
                                 // (kTombstone, truncate), entry count (kPack)
  std::string object_key;        // EncodeObjectKey bytes; empty when absent or omitted
  std::vector<PackEntry> pack;   // kPack only: the directory, in payload order

  uint64_t record_bytes() const { return RecordBytes(payload_len); }
  bool key_omitted() const { return (flags & recfmt::kFlagKeyOmitted) != 0; }
  bool operator==(const RecordHeader& o) const;
  bool operator!=(const RecordHeader& o) const { return !(*this == o); }
};

// crc32c of the payload bytes (0 for an empty payload).
uint32_t PayloadCrc(const void* data, size_t n);

// Writes the recfmt::kHeaderSize bytes of `h`'s header block to `block` (all of them:
// unused bytes are zeroed), computing header_crc. Sets kFlagKeyOmitted and stores no key
// when h.object_key is longer than recfmt::kMaxObjectKeyLen; clears it otherwise.
void EncodeRecordHeader(const RecordHeader& h, char* block);
// Decodes and checks the recfmt::kHeaderSize bytes at `block` (see the contract above).
Result<RecordHeader> DecodeRecordHeader(const char* block);
// kCorruption when crc32c of the h.payload_len bytes at `payload` is not h.payload_crc.
Status VerifyPayload(const RecordHeader& h, const void* payload);

// Appends a whole record (header block, payload, zero padding) to `out`, setting
// h.payload_len and h.payload_crc from `payload`. Precondition: payload.size() ≤
// recfmt::kMaxPayloadLen (checked; aborts otherwise, as the decoder would reject it).
void AppendRecord(RecordHeader h, std::string_view payload, std::string* out);

// ---- Zone footer (payload of a RecordType::kZoneFooter record) ----

struct ZoneFooterEntry {
  uint32_t block = 0;  // record start, in 4 KiB blocks from the zone start
  RecordType type = RecordType::kData;
  uint8_t flags = 0;   // the record's header flags (tells a removing tombstone apart)
  uint32_t payload_len = 0;
  uint64_t seq = 0;
  uint64_t collection_id = 0;
  uint64_t nid = 0;
  uint64_t logical_offset = 0;

  bool operator==(const ZoneFooterEntry& o) const;
  bool operator!=(const ZoneFooterEntry& o) const { return !(*this == o); }
};

// The footer entry describing the record with header `h` that starts at byte `offset` of
// its zone (offset a multiple of recfmt::kBlockSize).
ZoneFooterEntry FooterEntryFor(uint64_t offset, const RecordHeader& h);

// count (u32) | entries (48 bytes each) | crc32c (u32).
std::string EncodeZoneFooter(const std::vector<ZoneFooterEntry>& entries);
// kCorruption for a wrong size, crc, unknown type, nonzero reserved bytes, or blocks not
// strictly increasing.
Result<std::vector<ZoneFooterEntry>> DecodeZoneFooter(std::string_view payload);
// Bytes of the footer record for `n_entries` entries, so an allocator can reserve room.
size_t ZoneFooterRecordBytes(size_t n_entries);

// ---- Store superblock (payload of a RecordType::kSuperblock record) ----

using Uuid = std::array<uint8_t, 16>;

struct StoreSuperblock {
  Uuid store_uuid{};
  uint32_t format_version = recfmt::kStoreFormatVersion;  // checked by mount, not here
  uint32_t drive_index = 0;  // this drive's index in drive_uuids
  uint32_t nr_drives = 0;    // = drive_uuids.size()
  std::vector<Uuid> drive_uuids;
  uint64_t sequence = 0;     // increases with each rewrite; the newest valid one wins
  uint64_t created_unix_sec = 0;
  uint64_t mount_count = 0;
  bool clean_umount = false;
  std::string meta_path_hint;  // where the RocksDB metadata lived (a hint for tools)
  uint32_t max_record_payload = 0;
  uint32_t inline_max = 0;

  bool operator==(const StoreSuperblock& o) const;
  bool operator!=(const StoreSuperblock& o) const { return !(*this == o); }
};

// Encodes as version kSuperblockMajor.kSuperblockMinor. Writes the fields as given; a
// superblock whose drive_uuids.size() differs from nr_drives, or whose drive_index is out
// of range, encodes to bytes DecodeStoreSuperblock rejects.
std::string EncodeStoreSuperblock(const StoreSuperblock& sb);
// kCorruption for a wrong length (truncated or trailing bytes), crc, major version, or
// inconsistent fields (drive_index ≥ nr_drives, drive uuid count ≠ nr_drives, nr_drives 0
// or > kMaxDrives, clean_umount not 0/1, reserved bytes nonzero).
Result<StoreSuperblock> DecodeStoreSuperblock(std::string_view payload);

// Canonical lowercase "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
std::string UuidToString(const Uuid& uuid);
// Parses the canonical form (either case). kInvalidArgument otherwise.
Result<Uuid> UuidFromString(std::string_view s);
// A random (version 4, RFC 4122 variant) uuid from std::random_device.
Uuid NewRandomUuid();

// ---- Scanning a zone (recovery, fsck) ----

struct RecordScan {
  std::vector<std::pair<uint64_t, RecordHeader>> records;  // (offset, header), valid ones
  uint64_t end_offset = 0;  // where the scan stopped: the first byte not part of a record
  Status status;            // OK at a zero block or the buffer's end; else kCorruption
};

// Walks the records of `zone_bytes` (a zone's written bytes from its start) from offset 0.
// Stops at the first all-zero block or at the end of the buffer (OK), or at the first
// block that is not a valid header, a header whose record extends past the buffer, or a
// partial non-zero block at the end (kCorruption with the offset). Returns the valid
// prefix in every case. Does not verify payload crcs.
RecordScan ScanRecordPrefix(std::string_view zone_bytes);
// As ScanRecordPrefix, but any stop other than a clean end is returned as the error.
Result<std::vector<std::pair<uint64_t, RecordHeader>>> ScanRecords(std::string_view zone_bytes);

}  // namespace smr
