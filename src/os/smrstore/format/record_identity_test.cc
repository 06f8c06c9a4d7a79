// Identity in the record format: header equality (the store compares headers it read back
// with the ones it wrote) and the random uuids that name stores and drives.
#include "format/record.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <utility>
#include <vector>

namespace smr {
namespace {

RecordHeader Header() {
  RecordHeader h;
  h.type = RecordType::kData;
  h.payload_len = 4096;
  h.payload_crc = 7;
  h.seq = 11;
  h.collection_id = 5;
  h.nid = 9;
  h.logical_offset = 8192;
  h.object_key = "key";
  return h;
}

TEST(RecordIdentity, HeadersDifferingInOneFieldAreUnequalBothWays) {
  const RecordHeader base = Header();
  EXPECT_TRUE(base == Header());
  auto check = [&](RecordHeader bigger, RecordHeader smaller, const char* field) {
    EXPECT_FALSE(bigger == base) << field;
    EXPECT_FALSE(base == bigger) << field;
    EXPECT_FALSE(smaller == base) << field;
    EXPECT_FALSE(base == smaller) << field;
  };
  RecordHeader a = Header(), b = Header();
  a.collection_id = 6, b.collection_id = 4;
  check(a, b, "collection_id");
  a = Header(), b = Header();
  a.seq = 12, b.seq = 10;
  check(a, b, "seq");
  a = Header(), b = Header();
  a.nid = 10, b.nid = 8;
  check(a, b, "nid");
  a = Header(), b = Header();
  a.logical_offset = 12288, b.logical_offset = 4096;
  check(a, b, "logical_offset");
  a = Header(), b = Header();
  a.payload_len = 8192, b.payload_len = 512;
  check(a, b, "payload_len");
  a = Header(), b = Header();
  a.payload_crc = 8, b.payload_crc = 6;
  check(a, b, "payload_crc");
  a = Header(), b = Header();
  a.object_key = "kez", b.object_key = "kex";
  check(a, b, "object_key");
}

// The superblock comparison the store uses to tell its copies apart.
TEST(RecordIdentity, SuperblocksDifferingInOneFieldAreUnequalBothWays) {
  auto base = [] {
    StoreSuperblock sb;
    sb.store_uuid[0] = 1;
    sb.format_version = 1;
    sb.drive_index = 1;
    sb.nr_drives = 2;
    sb.drive_uuids.resize(2);
    sb.sequence = 10;
    sb.created_unix_sec = 1000;
    sb.mount_count = 5;
    sb.clean_umount = true;
    sb.meta_path_hint = "/m";
    sb.max_record_payload = 1 << 20;
    sb.inline_max = 4096;
    return sb;
  };
  EXPECT_TRUE(base() == base());
  std::vector<std::pair<const char*, std::function<void(StoreSuperblock*, int)>>> fields = {
      {"store_uuid", [](StoreSuperblock* s, int d) { s->store_uuid[0] += d; }},
      {"format_version", [](StoreSuperblock* s, int d) { s->format_version += d; }},
      {"drive_index", [](StoreSuperblock* s, int d) { s->drive_index += d; }},
      {"nr_drives", [](StoreSuperblock* s, int d) { s->nr_drives += d; }},
      {"drive_uuids", [](StoreSuperblock* s, int d) { s->drive_uuids[1][3] += d; }},
      {"sequence", [](StoreSuperblock* s, int d) { s->sequence += d; }},
      {"created_unix_sec", [](StoreSuperblock* s, int d) { s->created_unix_sec += d; }},
      {"mount_count", [](StoreSuperblock* s, int d) { s->mount_count += d; }},
      {"clean_umount", [](StoreSuperblock* s, int) { s->clean_umount = !s->clean_umount; }},
      {"meta_path_hint", [](StoreSuperblock* s, int d) { s->meta_path_hint = d > 0 ? "/n" : "/l"; }},
      {"max_record_payload", [](StoreSuperblock* s, int d) { s->max_record_payload += d; }},
      {"inline_max", [](StoreSuperblock* s, int d) { s->inline_max += d; }},
  };
  for (const auto& [name, change] : fields) {
    for (int d : {1, -1}) {
      StoreSuperblock other = base();
      change(&other, d);
      EXPECT_FALSE(other == base()) << name << " " << d;
      EXPECT_FALSE(base() == other) << name << " " << d;
      EXPECT_TRUE(other != base()) << name << " " << d;
    }
  }
}

// Version-4 (random) uuids: the version and variant bits are fixed, the other 122 bits
// random, and no byte is derived from another.
TEST(RecordIdentity, NewRandomUuidsAreVersion4AndRandomInEveryRandomNibble) {
  std::set<Uuid> seen;
  bool byte6_low_differs_from_byte0_low = false;
  bool byte8_low_differs_from_byte0_low = false;
  for (int i = 0; i < 64; ++i) {
    const Uuid u = NewRandomUuid();
    EXPECT_EQ(u[6] >> 4, 4) << UuidToString(u);
    EXPECT_EQ(u[8] >> 6, 2) << UuidToString(u);
    seen.insert(u);
    if ((u[6] & 0x0f) != (u[0] & 0x0f)) byte6_low_differs_from_byte0_low = true;
    if ((u[8] & 0x3f) != (u[0] & 0x3f)) byte8_low_differs_from_byte0_low = true;
  }
  EXPECT_EQ(seen.size(), 64u);
  // Chance that 64 random pairs all agree: 16^-64 (and 64^-64).
  EXPECT_TRUE(byte6_low_differs_from_byte0_low);
  EXPECT_TRUE(byte8_low_differs_from_byte0_low);
}

}  // namespace
}  // namespace smr
