// The metadata journal's payloads: what the store writes into its zones so that its whole
// RocksDB can be rebuilt from the drives alone (store/rebuild.cc, `smrstore-tool
// rebuild-meta`). Byte layouts: format/record_format.h and doc/format.md, "Metadata
// journal".
//
// Contract
//   * A journal record (RecordType::kJournal) carries the metadata writes of one commit as
//     JournalOps, in the order they were made: raw key-value puts and deletes of the
//     metadata keyspace (meta/key_schema.h) except the derived kinds (zone accounting and
//     counters, which a rebuild recomputes), plus markers: kMount (a read-write mount and
//     the sequence number committed when it began: records of earlier mounts with a higher
//     sequence number never committed), kCheckpointDone (checkpoint `id`, taken at sequence
//     number `seq`, is complete in `chunks` chunks), kZoneOpen (a zone was opened for a
//     stream, for placement after a rebuild) and kCounters (the lifetime counters as of the
//     previous commit).
//   * A checkpoint chunk (RecordType::kCheckpoint) carries key-value pairs: a checkpoint is
//     the whole metadata keyspace but the derived kinds, at one sequence number, in chunks.
//   * Encode* produce exactly what Decode* accept; Decode* reject anything else with
//     kCorruption naming what is wrong (never read past the input). The record's payload
//     crc covers these bytes; these encodings carry a version byte of their own.
//
// Thread safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace smr {

namespace journalfmt {
// Version byte at the start of both payloads; bumped on any incompatible change.
constexpr uint8_t kVersion = 1;
// Op tags: never reused (retired tags stay listed as comments).
constexpr uint8_t kOpPut = 1;
constexpr uint8_t kOpDelete = 2;
constexpr uint8_t kOpMount = 3;
constexpr uint8_t kOpCheckpointDone = 4;
constexpr uint8_t kOpZoneOpen = 5;
constexpr uint8_t kOpCounters = 6;
constexpr uint8_t kOpIds = 7;
// Bound on one key or value (a sanity check of the decoder; RocksDB values of smrstore are
// far smaller: onodes, omap values).
constexpr uint32_t kMaxItemBytes = 1u << 30;
}  // namespace journalfmt

struct JournalOp {
  uint8_t kind = journalfmt::kOpPut;
  std::string key;    // kOpPut, kOpDelete
  std::string value;  // kOpPut
  // kOpMount: a = mount count, b = committed sequence number at mount.
  // kOpCheckpointDone: a = checkpoint id, b = checkpoint sequence number, c = chunks.
  // kOpZoneOpen: a = drive, b = zone, c = stream, d = opened_seq.
  // kOpCounters: a = lifetime user bytes, b = lifetime device bytes, c = lifetime txns,
  //              d = lifetime gc bytes.
  // kOpIds: a = highest onode id, b = highest collection id handed out (ids of objects and
  //         collections removed since are never reused).
  uint64_t a = 0, b = 0, c = 0, d = 0;

  static JournalOp Put(std::string k, std::string v);
  static JournalOp Delete(std::string k);
  bool operator==(const JournalOp& o) const;
};

// version (u8) | count (u32) | ops. Op: kind (u8) then
//   put: klen (u32) key vlen (u32) value | delete: klen (u32) key
//   mount, ids, checkpoint-done: a (u64) b (u64) [c (u64) for checkpoint-done]
//   zone-open, counters: a b c d (u64 each)
std::string EncodeJournalOps(const std::vector<JournalOp>& ops);
Result<std::vector<JournalOp>> DecodeJournalOps(std::string_view payload);
// Appends one encoded op (for callers building a payload incrementally; the count is
// written by FinishJournalPayload).
void AppendJournalOp(const JournalOp& op, std::string* out);
// version + count header over `encoded_ops` (AppendJournalOp output, `count` ops).
std::string FinishJournalPayload(uint32_t count, std::string_view encoded_ops);

// version (u8) | count (u32) | count * (klen (u32) key vlen (u32) value)
std::string EncodeCheckpointChunk(const std::vector<std::pair<std::string, std::string>>& kvs);
Result<std::vector<std::pair<std::string, std::string>>> DecodeCheckpointChunk(
    std::string_view payload);

}  // namespace smr
