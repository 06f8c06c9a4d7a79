// fuzz_seeds OUTDIR: writes the seed corpus of every fuzz target, made with the real
// encoders, to OUTDIR/<target>/<name> (qa/fuzz/run.sh calls it before fuzzing). The text
// targets also get checked-in seeds (corpus/) and real files of the tree (qa/fuzz/run.sh).
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/coding.h"
#include "common/crc32c.h"
#include "device/emulated_format.h"
#include "format/journal.h"
#include "format/object_id.h"
#include "format/record.h"

namespace {

using namespace smr;

std::string g_out;

void Write(const std::string& target, const std::string& name, const std::string& bytes) {
  const std::string dir = g_out + "/" + target;
  ::mkdir(g_out.c_str(), 0755);
  ::mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
    std::perror(path.c_str());
    std::exit(1);
  }
  std::fclose(f);
}

Uuid U(uint8_t seed) {
  Uuid u{};
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<uint8_t>(seed * 17 + i);
  return u;
}

StoreSuperblock Superblock(uint32_t drives, const std::string& hint) {
  StoreSuperblock sb;
  sb.store_uuid = U(1);
  sb.nr_drives = drives;
  sb.drive_index = drives - 1;
  for (uint32_t i = 0; i < drives; ++i) sb.drive_uuids.push_back(U(static_cast<uint8_t>(2 + i)));
  sb.sequence = 42;
  sb.created_unix_sec = 1700000000;
  sb.mount_count = 3;
  sb.clean_umount = true;
  sb.meta_path_hint = hint;
  sb.max_record_payload = 1 << 20;
  sb.inline_max = 4096;
  return sb;
}

void RecordSeeds() {
  ObjectId oid;
  oid.pool = 1;
  oid.name = "rbd_data.1234.0000000000000001";
  oid.hash = 0xdeadbeef;
  std::string key;
  EncodeObjectKey(oid, &key);

  std::string zone;
  std::vector<ZoneFooterEntry> entries;
  auto add = [&](const RecordHeader& h, const std::string& payload) {
    const uint64_t off = zone.size();
    AppendRecord(h, payload, &zone);
    entries.push_back(FooterEntryFor(off, *DecodeRecordHeader(zone.data() + off)));
  };
  RecordHeader data;
  data.type = RecordType::kData;
  data.seq = 7;
  data.collection_id = 3;
  data.nid = 11;
  data.logical_offset = 8192;
  data.object_key = key;
  add(data, "hello, zone");
  std::string one;
  AppendRecord(data, "hello, zone", &one);
  Write("record_header", "data-with-key", one);

  RecordHeader omitted = data;
  omitted.object_key.clear();
  omitted.flags = recfmt::kFlagKeyOmitted;
  omitted.seq = 8;
  std::string om;
  AppendRecord(omitted, std::string(5000, 'x'), &om);
  Write("record_header", "data-key-omitted", om);

  RecordHeader tomb;
  tomb.type = RecordType::kTombstone;
  tomb.flags = recfmt::kFlagRemoved;
  tomb.seq = 9;
  tomb.collection_id = 3;
  tomb.nid = 11;
  tomb.object_key = key;
  add(tomb, "");
  std::string t1;
  AppendRecord(tomb, "", &t1);
  Write("record_header", "tombstone", t1);

  // A pack of three small writes (the directory in the header block).
  RecordHeader pack;
  pack.type = RecordType::kPack;
  pack.seq = 10;
  std::string pack_payload;
  for (int i = 0; i < 3; ++i) {
    const std::string bytes(1000 + 3000 * i, static_cast<char>('a' + i));
    PackEntry e;
    e.payload_len = static_cast<uint32_t>(bytes.size());
    e.payload_crc = PayloadCrc(bytes.data(), bytes.size());
    e.seq = 8 + i;
    e.collection_id = 3;
    e.nid = 12 + i;
    e.logical_offset = 4096 * i;
    pack.pack.push_back(e);
    pack_payload += bytes;
  }
  pack.logical_offset = pack.pack.size();
  add(pack, pack_payload);
  std::string p1;
  AppendRecord(pack, pack_payload, &p1);
  Write("record_header", "pack", p1);

  RecordHeader footer;
  footer.type = RecordType::kZoneFooter;
  footer.seq = 10;
  const std::string footer_payload = EncodeZoneFooter(entries);
  AppendRecord(footer, footer_payload, &zone);
  Write("record_header", "zone-with-footer", zone + std::string(recfmt::kBlockSize, '\0'));
  Write("record_header", "zone-torn-tail", zone + std::string(100, '\x5a'));
  Write("zone_footer", "four-entries", footer_payload);
  Write("zone_footer", "empty", EncodeZoneFooter({}));
  Write("zone_footer", "one-entry", EncodeZoneFooter({entries[0]}));

  RecordHeader sbh;
  sbh.type = RecordType::kSuperblock;
  sbh.seq = 42;
  std::string sbrec;
  AppendRecord(sbh, EncodeStoreSuperblock(Superblock(1, "")), &sbrec);
  Write("record_header", "superblock", sbrec);
}

void SuperblockSeeds() {
  Write("store_superblock", "one-drive", EncodeStoreSuperblock(Superblock(1, "")));
  Write("store_superblock", "three-drives-hint",
        EncodeStoreSuperblock(Superblock(3, "/var/lib/ceph/osd/ceph-0/smrstore")));
  // A newer minor (1.1) with a field appended after meta_path_hint: a 1.0 reader accepts it.
  std::string newer = EncodeStoreSuperblock(Superblock(2, "meta"));
  newer.resize(newer.size() - 4);
  newer += std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8);
  EncodeFixed16(newer.data() + 2, 1);
  EncodeFixed32(newer.data() + 4, static_cast<uint32_t>(newer.size() - recfmt::kSuperblockPrefixSize));
  newer.resize(newer.size() + 4);
  EncodeFixed32(newer.data() + newer.size() - 4, crc32c::Value(newer.data(), newer.size() - 4));
  Write("store_superblock", "minor-1-appended", newer);
}

void EmulatedSeeds() {
  auto sb_bytes = [](uint32_t zones, uint64_t zone_size, uint64_t cap, uint32_t conv) {
    emufmt::Superblock sb;
    sb.nr_zones = zones;
    sb.zone_size = zone_size;
    sb.zone_capacity = cap;
    sb.nr_conventional = conv;
    sb.logical_block_size = 4096;
    sb.max_open_zones = 128;
    sb.data_offset = emufmt::DataOffsetFor(zones);
    std::string b(emufmt::kSuperblockSize, '\0');
    emufmt::EncodeSuperblock(sb, b.data());
    return b;
  };
  // Byte 0 is the zone index the slot decoder expects; the slot is bytes 1..32.
  Write("emulated_format", "default-geometry", std::string(1, '\0') + sb_bytes(64, 256 << 20, 256 << 20, 1));
  Write("emulated_format", "zns-like", std::string(1, '\0') + sb_bytes(8, 1 << 20, 768 << 10, 0));
  emufmt::Slot slot;
  slot.seq = 5;
  slot.wp = 1 << 20;
  slot.cond = ZoneCondition::kImplicitOpen;
  slot.zone = 2;
  std::string s(emufmt::kSlotSize, '\0');
  emufmt::EncodeSlot(slot, s.data());
  Write("emulated_format", "slot-zone-2", std::string(1, '\x02') + s);
}

void DeviceSpecSeeds() {
  const char* specs[] = {
      "emu:/tmp/smr/drive.img",
      "emu:rel/path.img?zone_kib=512&cap_kib=384&max_open=0&conv=0",
      "emu:/x?zones=64&zone_mib=256&cap_mib=128&conv=1&max_open=14&max_active=14&lbs=512",
      "emu:/x?mbps=250&seek_ms=8.5",
      "emu:/x?zones=8&direct=1",
      "zbd:/dev/sdz",
  };
  int i = 0;
  for (const char* s : specs) Write("device_spec", "spec-" + std::to_string(i++), s);
}

}  // namespace

// Journal payloads: the first byte picks the decoder (journal_fuzz.cc): 0 ops, 1 chunk.
void JournalSeeds() {
  std::vector<JournalOp> ops;
  ops.push_back(JournalOp::Put("O\x00\x00\x00\x00\x00\x00\x00\x01obj", "onode-bytes"));
  ops.push_back(JournalOp::Delete("M\x00\x00\x00\x00\x00\x00\x00\x07key"));
  JournalOp m;
  m.kind = journalfmt::kOpMount;
  m.a = 3;
  m.b = 99;
  ops.push_back(m);
  JournalOp z;
  z.kind = journalfmt::kOpZoneOpen;
  z.a = 1;
  z.b = 17;
  z.c = 6;
  z.d = 100;
  ops.push_back(z);
  Write("journal", "ops", std::string(1, '\0') + EncodeJournalOps(ops));
  Write("journal", "no-ops", std::string(1, '\0') + EncodeJournalOps({}));
  Write("journal", "chunk",
        std::string(1, '\1') + EncodeCheckpointChunk({{"Cc", "meta"}, {"Sjournal", "id=1"}}));
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds OUTDIR\n");
    return 2;
  }
  g_out = argv[1];
  RecordSeeds();
  SuperblockSeeds();
  JournalSeeds();
  EmulatedSeeds();
  DeviceSpecSeeds();
  return 0;
}
