// Every guard checked at every byte it guards (issue 43, item 3): for each on-disk encoding
// the engine decodes, a realistic encoded sample is cut at every length and altered at every
// byte position in turn (xor 0x01, 0x80, 0xff), and the decoder must keep its contract:
//
//   * truncated (a shorter input; for the fixed-size blocks, a zeroed tail as a torn write
//     leaves it): rejected with kCorruption (the record scanner: OK exactly at a record
//     boundary, with the records before it);
//   * formats with a crc (record header, zone footer, store superblock, record payload,
//     emulated drive superblock and slots): every single-byte change of the bytes the crc
//     covers and of the crc itself is rejected;
//   * "re-sealed" (the crc recomputed after the change, as a buggy writer would leave it):
//     the structural rules behind the crc reject the change or the decoded value re-encodes
//     to exactly the altered bytes (no byte without a meaning is accepted silently);
//   * formats without a crc (journal payload, checkpoint chunk, object key): every altered
//     input is rejected or decodes to a value that re-encodes to exactly the altered bytes;
//   * bytes the contract says are ignored (record padding, the superblock's minor version and
//     a newer minor's appended fields, bytes 68.. of a version-1 emulated drive superblock)
//     are asserted to be ignored: the decoded value is the same.
// Every failure names the format, the byte position, its field and the alteration. Each
// input is a heap copy of exactly its size, so a sanitizer build catches a read past it.
// The figures (positions x alterations per format) are printed and kept in doc/testing.md,
// "Every byte of every guard".
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/coding.h"
#include "common/crc32c.h"
#include "device/emulated_format.h"
#include "format/journal.h"
#include "format/object_id.h"
#include "format/record.h"

namespace smr {
namespace {

using recfmt::kBlockSize;
using recfmt::kHeaderCrcOffset;
using recfmt::kHeaderSize;

constexpr uint8_t kMasks[] = {0x01, 0x80, 0xff};
constexpr size_t kNumMasks = sizeof(kMasks) / sizeof(kMasks[0]);

std::string MaskName(uint8_t m) {
  char b[8];
  std::snprintf(b, sizeof(b), "0x%02x", m);
  return b;
}

// A heap copy of exactly n bytes (no slack, no terminator): a read past it is a heap
// overflow a sanitizer reports.
class Exact {
 public:
  Exact(std::string_view s, size_t n) : n_(n), p_(new char[n == 0 ? 1 : n]) {
    if (n > 0) std::memcpy(p_.get(), s.data(), n);
  }
  explicit Exact(std::string_view s) : Exact(s, s.size()) {}
  const char* data() const { return p_.get(); }
  std::string_view view() const { return std::string_view(n_ == 0 ? nullptr : p_.get(), n_); }

 private:
  size_t n_;
  std::unique_ptr<char[]> p_;
};

// The figures of one format, printed at the end of its test.
struct Figures {
  std::string what;
  size_t bytes = 0;
  size_t truncations = 0;
  size_t raw_inputs = 0, raw_rejected = 0, raw_ignored = 0, raw_canonical = 0;
  size_t sealed_inputs = 0, sealed_rejected = 0, sealed_ignored = 0, sealed_canonical = 0;
  void Print() const {
    std::printf(
        "[ every-byte ] %s: %zu B; %zu truncations; raw %zu positions x %zu = %zu inputs "
        "(%zu rejected, %zu ignored as documented, %zu accepted re-encoding exactly)",
        what.c_str(), bytes, truncations, raw_inputs / kNumMasks, kNumMasks, raw_inputs,
        raw_rejected, raw_ignored, raw_canonical);
    if (sealed_inputs > 0) {
      std::printf("; re-sealed %zu positions x %zu = %zu inputs (%zu rejected, %zu ignored, "
                  "%zu accepted re-encoding exactly)",
                  sealed_inputs / kNumMasks, kNumMasks, sealed_inputs, sealed_rejected,
                  sealed_ignored, sealed_canonical);
    }
    std::printf("\n");
  }
};

std::string Pattern(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng() | 1);  // never zero
  return s;
}

ObjectId RichId() {
  ObjectId id;
  id.pool = 5;
  id.nspace = std::string("ns\0x", 4);
  id.key = "locator";
  id.name = std::string("rbd_data.1f2e\0tail", 18);
  id.snap = 42;
  id.hash = 0x12345678;
  id.generation = 7;
  id.shard = 2;
  return id;
}

ObjectId PlainId() {
  ObjectId id;
  id.pool = -3;
  id.name = "benchmark_data_host_1234_object_77";
  id.hash = 0xdeadbeef;
  return id;
}

std::string KeyOf(const ObjectId& id) {
  std::string k;
  EncodeObjectKey(id, &k);
  return k;
}

std::vector<JournalOp> SomeOps() {
  std::vector<JournalOp> ops;
  ops.push_back(JournalOp::Put("O" + KeyOf(RichId()), std::string("onode\0value", 11)));
  ops.push_back(JournalOp::Put("M\x01\x02omap-key", Pattern(40, 7)));
  ops.push_back(JournalOp::Delete("X" + KeyOf(PlainId())));
  JournalOp m;
  m.kind = journalfmt::kOpMount;
  m.a = 3;
  m.b = 123456789;
  ops.push_back(m);
  JournalOp c;
  c.kind = journalfmt::kOpCheckpointDone;
  c.a = 2;
  c.b = 99;
  c.c = 4;
  ops.push_back(c);
  JournalOp z;
  z.kind = journalfmt::kOpZoneOpen;
  z.a = 1;
  z.b = 77;
  z.c = 5;
  z.d = 1000;
  ops.push_back(z);
  JournalOp k;
  k.kind = journalfmt::kOpCounters;
  k.a = 1ull << 40;
  k.b = 2;
  k.c = 3;
  k.d = 4;
  ops.push_back(k);
  JournalOp ids;
  ids.kind = journalfmt::kOpIds;
  ids.a = 1001;
  ids.b = 78;
  ops.push_back(ids);
  ops.push_back(JournalOp::Put("", ""));
  return ops;
}

std::vector<std::pair<std::string, std::string>> SomePairs() {
  return {{"C\x00\x01" "coll", std::string("\0\0\x05", 3)},
          {"O" + KeyOf(PlainId()), Pattern(60, 9)},
          {"M" + KeyOf(RichId()) + "omapkey", ""},
          {"", "empty key"},
          {"Z\xff\xfe", Pattern(5, 11)}};
}

StoreSuperblock SomeSuperblock() {
  StoreSuperblock sb;
  for (size_t i = 0; i < 16; ++i) sb.store_uuid[i] = static_cast<uint8_t>(0xa0 + i);
  sb.nr_drives = 3;
  sb.drive_index = 1;
  for (uint32_t d = 0; d < 3; ++d) {
    Uuid u{};
    for (size_t i = 0; i < 16; ++i) u[i] = static_cast<uint8_t>(d * 16 + i + 1);
    sb.drive_uuids.push_back(u);
  }
  sb.sequence = 12345;
  sb.created_unix_sec = 1764000000;
  sb.mount_count = 3;
  sb.clean_umount = true;
  sb.meta_path_hint = "/var/lib/ceph/osd/ceph-0/smrstore-meta";
  sb.max_record_payload = 1u << 20;
  sb.inline_max = 4096;
  return sb;
}

// ---- Store records ----

struct Sample {
  std::string name;
  RecordHeader header;  // as decoded
  std::string record;   // header block + payload + padding
};

// A zone as the store writes it: data (with a key, with an omitted key), a removing
// tombstone, a pack of five writes, a journal record, a checkpoint chunk, a superblock
// record and the footer over all of them.
std::vector<Sample> ZoneSamples() {
  std::vector<std::pair<std::string, std::pair<RecordHeader, std::string>>> in;
  {
    RecordHeader h;
    h.type = RecordType::kData;
    h.seq = 10;
    h.collection_id = 77;
    h.nid = 1001;
    h.logical_offset = 8192;
    h.object_key = KeyOf(RichId());
    in.push_back({"data", {h, Pattern(300, 1)}});
  }
  {
    RecordHeader h;
    h.type = RecordType::kData;
    h.seq = 11;
    h.collection_id = 77;
    h.nid = 1003;
    ObjectId id = PlainId();
    id.name.assign(4500, 'n');
    h.object_key = KeyOf(id);  // too long: omitted, kFlagKeyOmitted set by the encoder
    in.push_back({"data with omitted key", {h, Pattern(100, 2)}});
  }
  {
    // A key of exactly kMaxObjectKeyLen bytes: the header has no unused byte, so its last
    // crc-covered byte (4091) has a meaning of its own (the key's has-locator byte).
    RecordHeader h;
    h.type = RecordType::kData;
    h.seq = 11;
    h.collection_id = 78;
    h.nid = 1004;
    ObjectId id = PlainId();
    id.nspace = "x";
    id.name.assign(1995, 'f');
    h.object_key = KeyOf(id);
    EXPECT_EQ(h.object_key.size(), recfmt::kMaxObjectKeyLen);
    in.push_back({"data with a header-filling key", {h, Pattern(4096, 3)}});
  }
  {
    RecordHeader h;
    h.type = RecordType::kTombstone;
    h.flags = recfmt::kFlagRemoved;
    h.seq = 12;
    h.collection_id = 77;
    h.nid = 1002;
    h.object_key = KeyOf(PlainId());
    in.push_back({"tombstone", {h, ""}});
  }
  {
    RecordHeader h;
    h.type = RecordType::kPack;
    h.seq = 17;
    const uint32_t lens[] = {10, 200, 1, 4000, 37};
    std::string payload;
    for (size_t i = 0; i < 5; ++i) {
      PackEntry e;
      e.offset = static_cast<uint32_t>(payload.size());
      const std::string bytes = Pattern(lens[i], 20 + static_cast<uint32_t>(i));
      e.payload_len = lens[i];
      e.payload_crc = PayloadCrc(bytes.data(), bytes.size());
      e.seq = 13 + i;
      e.collection_id = 77 + i % 2;
      e.nid = 2000 + i;
      e.logical_offset = uint64_t{i} * 65536 + 512;
      h.pack.push_back(e);
      payload += bytes;
    }
    h.logical_offset = h.pack.size();
    in.push_back({"pack (5 entries)", {h, payload}});
  }
  {
    RecordHeader h;
    h.type = RecordType::kJournal;
    h.seq = 18;
    h.collection_id = 3;  // mount count
    in.push_back({"journal", {h, EncodeJournalOps(SomeOps())}});
  }
  {
    RecordHeader h;
    h.type = RecordType::kCheckpoint;
    h.seq = 18;
    h.collection_id = 3;
    h.nid = 2;             // checkpoint id
    h.logical_offset = 1;  // chunk index
    in.push_back({"checkpoint", {h, EncodeCheckpointChunk(SomePairs())}});
  }
  {
    RecordHeader h;
    h.type = RecordType::kSuperblock;
    h.seq = 19;
    in.push_back({"superblock", {h, EncodeStoreSuperblock(SomeSuperblock())}});
  }
  std::vector<Sample> out;
  std::vector<ZoneFooterEntry> footer;
  uint64_t off = 0;
  for (auto& [name, hp] : in) {
    Sample s;
    s.name = name;
    AppendRecord(hp.first, hp.second, &s.record);
    Result<RecordHeader> d = DecodeRecordHeader(s.record.data());
    EXPECT_TRUE(d.ok()) << name << ": " << d.status().ToString();
    if (d.ok()) s.header = *d;
    footer.push_back(FooterEntryFor(off, s.header));
    off += s.record.size();
    out.push_back(std::move(s));
  }
  RecordHeader fh;
  fh.type = RecordType::kZoneFooter;
  fh.seq = 20;
  Sample f;
  f.name = "zone footer";
  AppendRecord(fh, EncodeZoneFooter(footer), &f.record);
  Result<RecordHeader> d = DecodeRecordHeader(f.record.data());
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  if (d.ok()) f.header = *d;
  out.push_back(std::move(f));
  return out;
}

const char* kPackFields[] = {"payload_len", "payload_crc", "seq", "collection_id", "nid",
                             "logical_offset"};
const uint32_t kPackFieldAt[] = {0, 4, 8, 16, 24, 32, 40};

// The field of the record header block at byte `pos`.
std::string HeaderField(const RecordHeader& h, size_t pos) {
  using namespace recfmt;  // NOLINT
  if (pos < 4) return "magic";
  if (pos < 6) return "version";
  if (pos == kTypeOffset) return "type";
  if (pos == kFlagsOffset) return "flags";
  if (pos < 12) return "payload_len";
  if (pos < 16) return "payload_crc";
  if (pos < 24) return "seq";
  if (pos < 32) return "collection_id";
  if (pos < 40) return "nid";
  if (pos < 48) return "logical_offset";
  if (pos < 50) return "object_key_len";
  if (pos < 64) return "reserved";
  if (pos >= kHeaderCrcOffset) return "header crc";
  const size_t rel = pos - kObjectKeyOffset;
  if (h.type == RecordType::kPack && rel < h.pack.size() * kPackEntrySize) {
    const size_t in = rel % kPackEntrySize;
    size_t f = 0;
    while (in >= kPackFieldAt[f + 1]) ++f;
    return "pack entry " + std::to_string(rel / kPackEntrySize) + " " + kPackFields[f];
  }
  if (rel < h.object_key.size()) return "object key byte " + std::to_string(rel);
  return "unused (zero) byte";
}

std::string Where(const std::string& format, size_t pos, const std::string& field, uint8_t m) {
  return "byte " + std::to_string(pos) + " (" + field + ") of the " + format + " after xor " +
         MaskName(m);
}

// The per-type rules of format/record.h's contract that a decoded header must satisfy
// (empty when it does): a rule the decoder skips lets a canonical but invalid header through.
std::string BrokenHeaderRule(const RecordHeader& h) {
  const bool object_fields = h.collection_id != 0 || h.nid != 0 || h.logical_offset != 0;
  const bool keyed = !h.object_key.empty() || h.key_omitted();
  if ((h.flags & ~recfmt::kKnownFlags) != 0) return "unknown flags";
  if (h.payload_len > recfmt::kMaxPayloadLen) return "payload length";
  if (h.payload_len == 0 && h.payload_crc != 0) return "payload crc without a payload";
  switch (h.type) {
    case RecordType::kData:
      if (h.flags & recfmt::kFlagRemoved) return "removed flag in a data record";
      break;
    case RecordType::kTombstone:
      if (h.payload_len != 0) return "tombstone with a payload";
      break;
    case RecordType::kZoneFooter:
    case RecordType::kSuperblock:
      if (h.flags != 0 || object_fields || keyed) return "object fields in a structural record";
      if (h.payload_len < (h.type == RecordType::kZoneFooter ? recfmt::kFooterFixedSize : 1u)) {
        return "payload too short";
      }
      break;
    case RecordType::kJournal:
    case RecordType::kCheckpoint:
      if (h.flags != 0 || keyed) return "flags or key in a metadata record";
      if (h.type == RecordType::kJournal && (h.nid != 0 || h.logical_offset != 0)) {
        return "object fields in a journal record";
      }
      if (h.payload_len == 0) return "empty metadata record";
      break;
    case RecordType::kPack: {
      if (h.flags != 0 || h.collection_id != 0 || h.nid != 0 || keyed) {
        return "object fields in a pack record";
      }
      if (h.logical_offset == 0 || h.logical_offset > recfmt::kMaxPackEntries ||
          h.pack.size() != h.logical_offset) {
        return "pack entry count";
      }
      uint64_t sum = 0;
      for (const PackEntry& e : h.pack) {
        if (e.offset != sum) return "pack entry offset";
        if (e.payload_len == 0 || e.nid == 0 || e.seq > h.seq) return "pack entry rule";
        sum += e.payload_len;
      }
      if (sum != h.payload_len) return "pack entry lengths do not sum to the payload length";
      break;
    }
  }
  if (!h.object_key.empty() && !DecodeObjectKey(h.object_key).ok()) return "object key";
  return "";
}

void ResealHeader(char* block) {
  EncodeFixed32(block + kHeaderCrcOffset, crc32c::Value(block, kHeaderCrcOffset));
}

// The header block the writer produces for decoded header `h` (a key-omitted header was
// written with a key too long for the header: the encoder sets the flag itself).
std::string ReencodeHeader(const RecordHeader& h) {
  RecordHeader in = h;
  if (h.key_omitted()) in.object_key.assign(recfmt::kMaxObjectKeyLen + 1, 'k');
  std::string block(kHeaderSize, '\0');
  EncodeRecordHeader(in, block.data());
  return block;
}

TEST(FormatEveryByte, RecordHeaderRejectsEveryAlteredByteAndEveryReSealedMeaninglessOne) {
  for (const Sample& s : ZoneSamples()) {
    const std::string what = s.name + " record header";
    const std::string block = s.record.substr(0, kHeaderSize);
    ASSERT_EQ(ReencodeHeader(s.header), block) << what << ": the sample is not canonical";
    Figures fig;
    fig.what = what;
    fig.bytes = kHeaderSize;
    for (size_t pos = 0; pos < kHeaderSize; ++pos) {
      for (uint8_t m : kMasks) {
        // Raw: the header crc covers [0, 4092) and is itself at 4092.
        std::string alt = block;
        alt[pos] = static_cast<char>(alt[pos] ^ m);
        {
          Exact in(alt);
          Result<RecordHeader> r = DecodeRecordHeader(in.data());
          ++fig.raw_inputs;
          if (r.ok() || !r.status().IsCorruption()) {
            ADD_FAILURE() << Where(what, pos, HeaderField(s.header, pos), m) << " -> "
                          << (r.ok() ? "accepted" : r.status().ToString());
          } else {
            ++fig.raw_rejected;
          }
        }
        // Re-sealed: what the rules behind the crc let through must re-encode exactly.
        if (pos >= kHeaderCrcOffset) continue;
        ResealHeader(alt.data());
        Exact in(alt);
        Result<RecordHeader> r = DecodeRecordHeader(in.data());
        ++fig.sealed_inputs;
        if (!r.ok()) {
          EXPECT_TRUE(r.status().IsCorruption())
              << Where(what, pos, HeaderField(s.header, pos), m) << " (crc re-sealed) -> "
              << r.status().ToString();
          ++fig.sealed_rejected;
          continue;
        }
        const std::string broken = BrokenHeaderRule(*r);
        if (!broken.empty()) {
          ADD_FAILURE() << Where(what, pos, HeaderField(s.header, pos), m)
                        << " (crc re-sealed) accepted although it breaks a rule: " << broken;
        } else if (ReencodeHeader(*r) != alt) {
          ADD_FAILURE() << Where(what, pos, HeaderField(s.header, pos), m)
                        << " (crc re-sealed) accepted, but the decoded header re-encodes to "
                           "other bytes (a byte without a meaning was accepted)";
        } else {
          ++fig.sealed_canonical;
          // Bytes the contract says must be zero never get here.
          const std::string field = HeaderField(s.header, pos);
          EXPECT_TRUE(field != "reserved" && field != "unused (zero) byte" &&
                      field != "magic" && field != "version")
              << Where(what, pos, field, m) << " (crc re-sealed) accepted";
        }
      }
    }
    fig.Print();
  }
}

TEST(FormatEveryByte, RecordHeaderWithATornTailIsRejected) {
  // The header block is a fixed 4096 bytes; a torn write leaves zeros from some byte on.
  for (const Sample& s : ZoneSamples()) {
    const std::string block = s.record.substr(0, kHeaderSize);
    for (size_t n = 0; n < kHeaderSize; ++n) {
      std::string torn = block.substr(0, n) + std::string(kHeaderSize - n, '\0');
      if (torn == block) continue;  // the zeroed tail was zero already (never: crc != 0)
      Exact in(torn);
      Result<RecordHeader> r = DecodeRecordHeader(in.data());
      ASSERT_FALSE(r.ok()) << s.name << " record header torn after byte " << n << " accepted";
      if (n == 0) {
        EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
      } else {
        EXPECT_TRUE(r.status().IsCorruption())
            << s.name << " torn after " << n << ": " << r.status().ToString();
      }
    }
  }
}

TEST(FormatEveryByte, RecordPayloadCrcCoversEveryPayloadByteAndPaddingIsIgnored) {
  Figures fig;
  fig.what = "record payloads (payload crc) + padding";
  for (const Sample& s : ZoneSamples()) {
    const size_t len = s.header.payload_len;
    fig.bytes += s.record.size() - kHeaderSize;
    for (size_t pos = kHeaderSize; pos < s.record.size(); ++pos) {
      for (uint8_t m : kMasks) {
        std::string alt = s.record;
        alt[pos] = static_cast<char>(alt[pos] ^ m);
        Exact in(alt);
        ++fig.raw_inputs;
        RecordScan scan = ScanRecordPrefix(in.view());
        Status v = Status::OK();
        if (scan.status.ok() && scan.records.size() == 1) {
          v = VerifyPayload(scan.records[0].second, in.data() + kHeaderSize);
        }
        const size_t rel = pos - kHeaderSize;
        if (rel < len) {
          if (v.ok() || !v.IsCorruption()) {
            ADD_FAILURE() << Where(s.name + " record", pos,
                                   "payload byte " + std::to_string(rel), m)
                          << " passes the payload crc";
          } else {
            ++fig.raw_rejected;
          }
        } else {
          // doc/format.md: "the padding after the payload is zeros and is not covered by
          // any crc": ignored, the record reads back the same.
          ASSERT_TRUE(scan.status.ok()) << scan.status.ToString();
          ASSERT_EQ(scan.records.size(), 1u);
          EXPECT_EQ(scan.records[0].second, s.header);
          EXPECT_TRUE(v.ok()) << Where(s.name + " record", pos, "padding", m) << ": "
                              << v.ToString();
          ++fig.raw_ignored;
        }
      }
    }
  }
  fig.Print();
}

TEST(FormatEveryByte, ZoneScanOfEveryTruncationStopsAtTheLastWholeRecord) {
  const std::vector<Sample> samples = ZoneSamples();
  std::string zone;
  std::vector<size_t> ends;
  for (const Sample& s : samples) {
    zone += s.record;
    ends.push_back(zone.size());
  }
  Figures fig;
  fig.what = "zone of " + std::to_string(samples.size()) + " records (ScanRecordPrefix)";
  fig.bytes = zone.size();
  for (size_t n = 0; n < zone.size(); ++n) {
    Exact in(zone, n);
    RecordScan scan = ScanRecordPrefix(in.view());
    ++fig.truncations;
    size_t whole = 0;
    while (whole < ends.size() && ends[whole] <= n) ++whole;
    const size_t end = whole == 0 ? 0 : ends[whole - 1];
    ASSERT_EQ(scan.records.size(), whole) << "zone cut at " << n;
    EXPECT_EQ(scan.end_offset, end) << "zone cut at " << n;
    for (size_t i = 0; i < whole; ++i) EXPECT_EQ(scan.records[i].second, samples[i].header);
    if (n == end) {
      EXPECT_TRUE(scan.status.ok()) << "zone cut at record boundary " << n << ": "
                                    << scan.status.ToString();
    } else {
      EXPECT_TRUE(scan.status.IsCorruption())
          << "zone cut at byte " << n << " (inside the " << samples[whole].name
          << " record) -> " << scan.status.ToString();
    }
  }
  fig.Print();
}

// ---- Zone footer payload ----

TEST(FormatEveryByte, ZoneFooterPayload) {
  const std::vector<Sample> samples = ZoneSamples();
  const Sample& fs = samples.back();
  const std::string payload = fs.record.substr(kHeaderSize, fs.header.payload_len);
  Result<std::vector<ZoneFooterEntry>> orig = DecodeZoneFooter(payload);
  ASSERT_TRUE(orig.ok()) << orig.status().ToString();
  ASSERT_EQ(orig->size(), samples.size() - 1);
  const size_t crc_at = payload.size() - 4;
  auto field = [&](size_t pos) -> std::string {
    if (pos < 4) return "count";
    if (pos >= crc_at) return "crc";
    const size_t e = (pos - 4) / recfmt::kFooterEntrySize, in = (pos - 4) % recfmt::kFooterEntrySize;
    const char* f = in < 4 ? "block" : in < 8 ? "payload_len" : in == 8 ? "type" : in == 9 ? "flags"
                  : in < 16 ? "reserved" : in < 24 ? "seq" : in < 32 ? "collection_id"
                  : in < 40 ? "nid" : "logical_offset";
    return "entry " + std::to_string(e) + " " + f;
  };
  Figures fig;
  fig.what = "zone footer payload (" + std::to_string(orig->size()) + " entries)";
  fig.bytes = payload.size();
  for (size_t n = 0; n < payload.size(); ++n) {
    Exact in(payload, n);
    ++fig.truncations;
    auto r = DecodeZoneFooter(in.view());
    EXPECT_TRUE(!r.ok() && r.status().IsCorruption()) << "zone footer cut to " << n << " bytes";
  }
  EXPECT_FALSE(DecodeZoneFooter(payload + std::string(1, '\0')).ok());
  for (size_t pos = 0; pos < payload.size(); ++pos) {
    for (uint8_t m : kMasks) {
      std::string alt = payload;
      alt[pos] = static_cast<char>(alt[pos] ^ m);
      {
        Exact in(alt);
        auto r = DecodeZoneFooter(in.view());
        ++fig.raw_inputs;
        if (r.ok() || !r.status().IsCorruption()) {
          ADD_FAILURE() << Where("zone footer payload", pos, field(pos), m) << " accepted";
        } else {
          ++fig.raw_rejected;
        }
      }
      if (pos >= crc_at) continue;
      EncodeFixed32(alt.data() + crc_at, crc32c::Value(alt.data(), crc_at));
      Exact in(alt);
      auto r = DecodeZoneFooter(in.view());
      ++fig.sealed_inputs;
      if (!r.ok()) {
        EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
        ++fig.sealed_rejected;
      } else if ([&] {
                   for (size_t i = 1; i < r->size(); ++i) {
                     if ((*r)[i].block <= (*r)[i - 1].block) return true;
                   }
                   for (const ZoneFooterEntry& e : *r) {
                     if (!IsKnownRecordType(static_cast<uint8_t>(e.type)) ||
                         (e.flags & ~recfmt::kKnownFlags) != 0) {
                       return true;
                     }
                   }
                   return false;
                 }()) {
        ADD_FAILURE() << Where("zone footer payload", pos, field(pos), m)
                      << " (crc re-sealed) accepted with blocks out of order or an unknown "
                         "type/flag";
      } else if (EncodeZoneFooter(*r) != alt) {
        ADD_FAILURE() << Where("zone footer payload", pos, field(pos), m)
                      << " (crc re-sealed) accepted as other bytes";
      } else {
        ++fig.sealed_canonical;
        EXPECT_EQ(field(pos).find("reserved"), std::string::npos)
            << Where("zone footer payload", pos, field(pos), m) << " (crc re-sealed) accepted";
      }
    }
  }
  fig.Print();
}

// ---- Store superblock payload ----

// A 1.1 superblock: the 1.0 body followed by `extra` bytes of fields this reader does not
// know.
std::string NewerMinor(const std::string& v10, const std::string& extra) {
  const uint32_t body = DecodeFixed32(v10.data() + 4);
  std::string out = v10.substr(0, recfmt::kSuperblockPrefixSize + body) + extra;
  EncodeFixed16(out.data() + 2, 1);
  EncodeFixed32(out.data() + 4, static_cast<uint32_t>(body + extra.size()));
  char crc[4];
  EncodeFixed32(crc, crc32c::Value(out.data(), out.size()));
  return out + std::string(crc, 4);
}

// The 1.0 encoding a superblock payload of any minor holds: its prefix through the fields
// 1.0 knows (lengths as its own fields give them), as minor 0 with its own crc. A 1.0
// payload is its own prefix.
std::string Prefix10(const std::string& b) {
  const char* body = b.data() + recfmt::kSuperblockPrefixSize;
  const size_t known = recfmt::kSuperblockFixedBody + 16ull * DecodeFixed32(body + 64) +
                       DecodeFixed32(body + 68);
  std::string out = b.substr(0, recfmt::kSuperblockPrefixSize + known);
  EncodeFixed16(out.data() + 2, 0);
  EncodeFixed32(out.data() + 4, static_cast<uint32_t>(known));
  char crc[4];
  EncodeFixed32(crc, crc32c::Value(out.data(), out.size()));
  return out + std::string(crc, 4);
}

TEST(FormatEveryByte, StoreSuperblockPayload) {
  const StoreSuperblock sb = SomeSuperblock();
  const std::string v10 = EncodeStoreSuperblock(sb);
  const std::string v11 = NewerMinor(v10, Pattern(12, 5));
  const size_t body10 = DecodeFixed32(v10.data() + 4);
  for (const bool newer : {false, true}) {
    const std::string& enc = newer ? v11 : v10;
    Result<StoreSuperblock> orig = DecodeStoreSuperblock(enc);
    ASSERT_TRUE(orig.ok()) << orig.status().ToString();
    ASSERT_EQ(*orig, sb);
    const size_t crc_at = enc.size() - 4;
    const size_t appended_at = recfmt::kSuperblockPrefixSize + body10;  // 1.1 only
    auto field = [&](size_t pos) -> std::string {
      if (pos < 2) return "major";
      if (pos < 4) return "minor";
      if (pos < 8) return "body_len";
      if (pos >= crc_at) return "crc";
      if (pos >= appended_at) return "newer minor's field";
      const size_t b = pos - 8;
      if (b < 16) return "store_uuid";
      if (b < 28) return b < 20 ? "format_version" : b < 24 ? "drive_index" : "nr_drives";
      if (b == 28) return "clean_umount";
      if (b < 32) return "reserved";
      if (b < 56) return b < 40 ? "sequence" : b < 48 ? "created_unix_sec" : "mount_count";
      if (b < 72) {
        return b < 60 ? "max_record_payload" : b < 64 ? "inline_max"
               : b < 68 ? "drive_uuid_count" : "meta_path_hint_len";
      }
      if (b < 72 + 16 * sb.drive_uuids.size()) return "drive_uuids";
      return "meta_path_hint";
    };
    const std::string what = newer ? "store superblock payload 1.1" : "store superblock payload 1.0";
    Figures fig;
    fig.what = what;
    fig.bytes = enc.size();
    for (size_t n = 0; n < enc.size(); ++n) {
      Exact in(enc, n);
      ++fig.truncations;
      auto r = DecodeStoreSuperblock(in.view());
      EXPECT_TRUE(!r.ok() && r.status().IsCorruption()) << what << " cut to " << n << " bytes";
    }
    EXPECT_FALSE(DecodeStoreSuperblock(enc + std::string(1, '\0')).ok());
    for (size_t pos = 0; pos < enc.size(); ++pos) {
      for (uint8_t m : kMasks) {
        std::string alt = enc;
        alt[pos] = static_cast<char>(alt[pos] ^ m);
        {
          Exact in(alt);
          auto r = DecodeStoreSuperblock(in.view());
          ++fig.raw_inputs;
          if (r.ok() || !r.status().IsCorruption()) {
            ADD_FAILURE() << Where(what, pos, field(pos), m) << " accepted";
          } else {
            ++fig.raw_rejected;
          }
        }
        if (pos >= crc_at) continue;
        EncodeFixed32(alt.data() + crc_at, crc32c::Value(alt.data(), crc_at));
        Exact in(alt);
        auto r = DecodeStoreSuperblock(in.view());
        ++fig.sealed_inputs;
        const std::string f = field(pos);
        if (f == "minor" || f == "newer minor's field") {
          // The compat rule: any minor of the reader's major; fields it does not know are
          // ignored.
          if (!r.ok() || *r != sb) {
            ADD_FAILURE() << Where(what, pos, f, m) << " (crc re-sealed) not ignored: "
                          << r.status().ToString();
          } else {
            ++fig.sealed_ignored;
          }
          continue;
        }
        if (!r.ok()) {
          EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
          ++fig.sealed_rejected;
          continue;
        }
        // Accepted: consistent, and the decoded value encodes (as 1.0) to the altered bytes'
        // 1.0 prefix.
        if (r->nr_drives == 0 || r->nr_drives > recfmt::kMaxDrives ||
            r->drive_uuids.size() != r->nr_drives || r->drive_index >= r->nr_drives ||
            r->meta_path_hint.size() > recfmt::kMaxMetaPathHint) {
          ADD_FAILURE() << Where(what, pos, f, m) << " (crc re-sealed) accepted inconsistent";
        } else if (EncodeStoreSuperblock(*r) != Prefix10(alt)) {
          ADD_FAILURE() << Where(what, pos, f, m)
                        << " (crc re-sealed) accepted as a value that encodes otherwise";
        } else {
          ++fig.sealed_canonical;
          EXPECT_NE(f, "reserved") << Where(what, pos, f, m) << " (crc re-sealed) accepted";
        }
      }
    }
    fig.Print();
  }
}

// ---- Payloads without a crc of their own: journal ops, checkpoint chunk, object key ----

// Every truncation rejected with kCorruption; every altered byte rejected with kCorruption or
// decoded to a value whose encoding is exactly the altered bytes.
template <typename Decode, typename Encode>
void NoCrcEveryByte(const std::string& what, const std::string& enc, Decode decode,
                    Encode encode, const std::function<std::string(size_t)>& field) {
  Figures fig;
  fig.what = what;
  fig.bytes = enc.size();
  {
    auto r = decode(Exact(enc).view());
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().ToString();
    ASSERT_EQ(encode(*r), enc) << what << ": the sample is not canonical";
  }
  for (size_t n = 0; n < enc.size(); ++n) {
    Exact in(enc, n);
    ++fig.truncations;
    auto r = decode(in.view());
    EXPECT_TRUE(!r.ok() && r.status().IsCorruption())
        << what << " cut to " << n << " bytes (in " << field(n) << ") -> "
        << (r.ok() ? "accepted" : r.status().ToString());
  }
  EXPECT_FALSE(decode(Exact(enc + std::string(1, '\0')).view()).ok())
      << what << " with a trailing byte accepted";
  for (size_t pos = 0; pos < enc.size(); ++pos) {
    for (uint8_t m : kMasks) {
      std::string alt = enc;
      alt[pos] = static_cast<char>(alt[pos] ^ m);
      Exact in(alt);
      auto r = decode(in.view());
      ++fig.raw_inputs;
      if (!r.ok()) {
        EXPECT_TRUE(r.status().IsCorruption())
            << Where(what, pos, field(pos), m) << " -> " << r.status().ToString();
        ++fig.raw_rejected;
      } else if (encode(*r) != alt) {
        ADD_FAILURE() << Where(what, pos, field(pos), m)
                      << " accepted as a value that encodes to other bytes";
      } else {
        ++fig.raw_canonical;
      }
    }
  }
  fig.Print();
}

// Names the byte of a journal payload: header, or which op/field.
std::string JournalField(const std::vector<JournalOp>& ops, size_t pos) {
  if (pos == 0) return "version";
  if (pos < 5) return "count";
  size_t at = 5;
  for (size_t i = 0; i < ops.size(); ++i) {
    std::string one;
    AppendJournalOp(ops[i], &one);
    if (pos < at + one.size()) {
      const size_t in = pos - at;
      return "op " + std::to_string(i) + (in == 0 ? " kind" : " byte " + std::to_string(in));
    }
    at += one.size();
  }
  return "end";
}

TEST(FormatEveryByte, JournalPayload) {
  const std::vector<JournalOp> ops = SomeOps();
  NoCrcEveryByte(
      "journal payload (" + std::to_string(ops.size()) + " ops)", EncodeJournalOps(ops),
      [](std::string_view in) { return DecodeJournalOps(in); },
      [](const std::vector<JournalOp>& v) { return EncodeJournalOps(v); },
      [&](size_t pos) { return JournalField(ops, pos); });
}

TEST(FormatEveryByte, CheckpointChunk) {
  const auto kvs = SomePairs();
  const std::string enc = EncodeCheckpointChunk(kvs);
  NoCrcEveryByte(
      "checkpoint chunk (" + std::to_string(kvs.size()) + " pairs)", enc,
      [](std::string_view in) { return DecodeCheckpointChunk(in); },
      [](const std::vector<std::pair<std::string, std::string>>& v) {
        return EncodeCheckpointChunk(v);
      },
      [&](size_t pos) -> std::string {
        if (pos == 0) return "version";
        if (pos < 5) return "count";
        size_t at = 5;
        for (size_t i = 0; i < kvs.size(); ++i) {
          const size_t klen_end = at + 4, key_end = klen_end + kvs[i].first.size();
          const size_t vlen_end = key_end + 4, val_end = vlen_end + kvs[i].second.size();
          const std::string p = "pair " + std::to_string(i) + " ";
          if (pos < klen_end) return p + "key length";
          if (pos < key_end) return p + "key";
          if (pos < vlen_end) return p + "value length";
          if (pos < val_end) return p + "value";
          at = val_end;
        }
        return "end";
      });
}

TEST(FormatEveryByte, ObjectKey) {
  ObjectId same = PlainId();
  same.key = same.name;  // a locator key equal to the name: flag 1, effective key = name
  const std::vector<std::pair<std::string, ObjectId>> ids = {
      {"rich (nspace, locator key, NUL bytes, snap, generation, shard)", RichId()},
      {"plain (negative pool, head, no generation/shard)", PlainId()},
      {"locator key equal to the name", same},
      {"Min()", ObjectId::Min()},
      {"max", ObjectId::Max()}};
  for (const auto& [name, id] : ids) {
    const std::string enc = KeyOf(id);
    // Field names from the layout of doc/format.md, "Object key".
    auto field = [&, &id = id, &enc = enc](size_t pos) -> std::string {
      if (id.max || pos == 0) return "max byte";
      if (pos == 1) return "shard";
      if (pos < 10) return "pool";
      if (pos < 14) return "reversed hash";
      if (pos + 17 == enc.size()) return "has-locator-key";
      if (pos + 17 > enc.size()) return pos + 9 > enc.size() ? "generation" : "snap";
      return "escaped strings (nspace, effective key, name)";
    };
    NoCrcEveryByte(
        "object key " + name, enc,
        [](std::string_view in) { return DecodeObjectKey(in); },
        [](const ObjectId& v) { return KeyOf(v); }, field);
  }
}

// ---- Emulated drive file (device/emulated_format.h) ----

std::string EncodedEmuSuperblock(const emufmt::Superblock& sb) {
  std::string b(emufmt::kSuperblockSize, '\0');
  emufmt::EncodeSuperblock(sb, b.data());
  return b;
}

emufmt::Superblock EmuV1() {
  emufmt::Superblock sb;
  sb.nr_zones = 64;
  sb.zone_size = 256ull << 20;
  sb.zone_capacity = (256ull << 20) - (4ull << 20);
  sb.nr_conventional = 4;
  sb.logical_block_size = 4096;
  sb.max_open_zones = 14;
  sb.max_active_zones = 14;
  sb.data_offset = emufmt::DataOffsetFor(64);
  return sb;
}

emufmt::Superblock EmuV2() {
  emufmt::Superblock sb = EmuV1();
  sb.version = emufmt::kHybridVersion;
  sb.nr_conventional = 2;
  sb.nr_realms = 3;
  sb.cmr_zones_per_realm = 2;
  sb.smr_zones_per_realm = 4;
  sb.nr_zones = 2 + 3 * (2 + 4);
  sb.conversion_ms = 1500;
  sb.initial_domain = ZoneDomain::kSmr;
  sb.realm_table_offset = emufmt::RealmTableOffsetFor(sb.nr_zones);
  sb.data_offset = emufmt::DataOffsetFor(sb.nr_zones, sb.nr_realms);
  return sb;
}

std::string EmuField(size_t pos) {
  static const std::pair<size_t, const char*> kFields[] = {
      {8, "magic"}, {12, "version"}, {16, "nr_zones"}, {24, "zone_size"},
      {32, "zone_capacity"}, {36, "nr_conventional"}, {40, "logical_block_size"},
      {44, "max_open_zones"}, {48, "max_active_zones"}, {56, "slot_table_offset"},
      {64, "data_offset"}, {68, "crc of [0, 64)"}, {72, "zero (v2)"}, {76, "nr_realms"},
      {80, "cmr_zones_per_realm"}, {84, "smr_zones_per_realm"}, {88, "conversion_ms"},
      {89, "initial domain"}, {96, "zero (v2)"}, {104, "realm_table_offset"},
      {108, "crc of [0, 104)"}};
  for (const auto& [end, name] : kFields) {
    if (pos < end) return name;
  }
  return "tail";
}

TEST(FormatEveryByte, EmulatedDriveSuperblock) {
  for (const int version : {1, 2}) {
    const emufmt::Superblock sb = version == 1 ? EmuV1() : EmuV2();
    const std::string enc = EncodedEmuSuperblock(sb);
    // Bytes a decoder of this version verifies; the rest is ignored: version 1 "bytes 68..
    // are ignored, as version 1 always did"; version 2 checks up to its second crc (bytes
    // 108.. are written zero but not checked: reported in doc/testing.md).
    const size_t covered = version == 1 ? 68 : 108;
    const std::string what = "emulated drive superblock v" + std::to_string(version);
    auto same_as_sample = [&](const Result<emufmt::Superblock>& r) {
      return r.ok() && r->version == static_cast<uint32_t>(version) &&
             EncodedEmuSuperblock(*r) == enc;
    };
    ASSERT_TRUE(same_as_sample(emufmt::DecodeSuperblock(Exact(enc).data())));
    Figures fig;
    fig.what = what;
    fig.bytes = enc.size();
    for (size_t n = 0; n < enc.size(); ++n) {
      std::string torn = enc.substr(0, n) + std::string(enc.size() - n, '\0');
      Exact in(torn);
      ++fig.truncations;
      auto r = emufmt::DecodeSuperblock(in.data());
      if (n < covered) {
        EXPECT_TRUE(!r.ok() && r.status().IsCorruption()) << what << " torn after byte " << n;
      } else {
        EXPECT_TRUE(same_as_sample(r)) << what << " torn after byte " << n;
      }
    }
    for (size_t pos = 0; pos < enc.size(); ++pos) {
      for (uint8_t m : kMasks) {
        std::string alt = enc;
        alt[pos] = static_cast<char>(alt[pos] ^ m);
        {
          Exact in(alt);
          auto r = emufmt::DecodeSuperblock(in.data());
          ++fig.raw_inputs;
          if (pos < covered) {
            if (r.ok() || !r.status().IsCorruption()) {
              ADD_FAILURE() << Where(what, pos, EmuField(pos), m) << " accepted";
            } else {
              ++fig.raw_rejected;
            }
          } else if (!same_as_sample(r)) {
            ADD_FAILURE() << Where(what, pos, "ignored tail", m) << " changed the result: "
                          << r.status().ToString();
          } else {
            ++fig.raw_ignored;
          }
        }
        // Re-sealed: both crcs recomputed (not the crc fields themselves).
        const bool crc_field = (pos >= 64 && pos < 68) || (version == 2 && pos >= 104 && pos < 108);
        if (pos >= covered || crc_field) continue;
        EncodeFixed32(alt.data() + emufmt::kSuperblockCrcOffset,
                      crc32c::Value(alt.data(), emufmt::kSuperblockCrcOffset));
        if (version == 2) {
          EncodeFixed32(alt.data() + emufmt::kHybridCrcOffset,
                        crc32c::Value(alt.data(), emufmt::kHybridCrcOffset));
        }
        Exact in(alt);
        auto r = emufmt::DecodeSuperblock(in.data());
        ++fig.sealed_inputs;
        if (!r.ok()) {
          EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
          ++fig.sealed_rejected;
        } else if (EncodedEmuSuperblock(*r).compare(0, covered, alt, 0, covered) != 0) {
          ADD_FAILURE() << Where(what, pos, EmuField(pos), m)
                        << " (crcs re-sealed) accepted as a value that encodes otherwise";
        } else {
          ++fig.sealed_canonical;
          EXPECT_EQ(EmuField(pos).find("zero"), std::string::npos)
              << Where(what, pos, EmuField(pos), m) << " (crcs re-sealed) accepted";
        }
      }
    }
    fig.Print();
  }
}

TEST(FormatEveryByte, EmulatedDriveZoneAndRealmSlots) {
  for (const bool realm : {false, true}) {
    const uint32_t index = 17;
    std::string enc(emufmt::kSlotSize, '\0');
    if (realm) {
      emufmt::RealmSlot s;
      s.seq = 0x0102030405;
      s.domain = ZoneDomain::kSmr;
      s.realm = index;
      emufmt::EncodeRealmSlot(s, enc.data());
    } else {
      emufmt::Slot s;
      s.seq = 0x0102030405;
      s.wp = 0x3a5000;
      s.cond = ZoneCondition::kImplicitOpen;
      s.zone = index;
      emufmt::EncodeSlot(s, enc.data());
    }
    std::string at;  // the input being decoded, for the messages
    // Decodes `b` and re-encodes what it accepted; nullopt when refused.
    auto decode = [&](const std::string& b, uint32_t want) -> std::optional<std::string> {
      Exact in(b);
      std::string out(emufmt::kSlotSize, '\0');
      // An accepted slot also names a known domain / condition (an unknown one would
      // re-encode as given and so pass the byte comparison).
      if (realm) {
        auto s = emufmt::DecodeRealmSlot(in.data(), want);
        if (!s) return std::nullopt;
        EXPECT_LE(static_cast<uint8_t>(s->domain), static_cast<uint8_t>(ZoneDomain::kSmr))
            << at << ": realm slot accepted with an unknown domain";
        emufmt::EncodeRealmSlot(*s, out.data());
      } else {
        auto s = emufmt::DecodeSlot(in.data(), want);
        if (!s) return std::nullopt;
        EXPECT_LE(static_cast<uint8_t>(s->cond), static_cast<uint8_t>(ZoneCondition::kOffline))
            << at << ": zone slot accepted with an unknown condition";
        emufmt::EncodeSlot(*s, out.data());
      }
      return out;
    };
    auto field = [&](size_t pos) -> std::string {
      if (pos < 8) return "seq";
      if (pos >= 28) return "crc";
      if (realm) {
        return pos == 8 ? "domain" : pos < 12 ? "zero" : pos < 16 ? "realm index" : "zero";
      }
      return pos < 16 ? "wp" : pos == 16 ? "condition" : pos < 20 ? "zero" : pos < 24 ? "zone index"
                                                                                      : "zero";
    };
    const std::string what = realm ? "emulated drive realm slot" : "emulated drive zone slot";
    ASSERT_EQ(decode(enc, index), enc);
    EXPECT_EQ(decode(enc, index + 1), std::nullopt) << what << " accepted in the wrong place";
    Figures fig;
    fig.what = what;
    fig.bytes = enc.size();
    for (size_t n = 0; n < enc.size(); ++n) {
      ++fig.truncations;
      EXPECT_EQ(decode(enc.substr(0, n) + std::string(enc.size() - n, '\0'), index), std::nullopt)
          << what << " torn after byte " << n;
    }
    for (size_t pos = 0; pos < enc.size(); ++pos) {
      for (uint8_t m : kMasks) {
        std::string alt = enc;
        alt[pos] = static_cast<char>(alt[pos] ^ m);
        ++fig.raw_inputs;
        at = Where(what, pos, field(pos), m);
        if (decode(alt, index)) {
          ADD_FAILURE() << Where(what, pos, field(pos), m) << " accepted";
        } else {
          ++fig.raw_rejected;
        }
        if (pos >= 28) continue;
        EncodeFixed32(alt.data() + 28, crc32c::Value(alt.data(), 28));
        ++fig.sealed_inputs;
        at += " (crc re-sealed)";
        std::optional<std::string> r = decode(alt, index);
        if (!r) {
          ++fig.sealed_rejected;
        } else if (!realm && field(pos) == "zero") {
          // doc/format.md: a zone slot is valid when its crc and zone index match and seq is
          // not 0; its zero bytes are not part of the rule (a realm slot's are).
          EXPECT_EQ(*r, enc) << Where(what, pos, "zero", m) << " (crc re-sealed)";
          ++fig.sealed_ignored;
        } else if (*r != alt) {
          ADD_FAILURE() << Where(what, pos, field(pos), m)
                        << " (crc re-sealed) accepted as a value that encodes otherwise";
        } else {
          ++fig.sealed_canonical;
          EXPECT_NE(field(pos), "zero") << Where(what, pos, "zero", m) << " (crc re-sealed)";
        }
      }
    }
    fig.Print();
  }
}

}  // namespace
}  // namespace smr
