// format/journal.h: journal and checkpoint payloads round-trip and refuse damage; journal
// and checkpoint record headers follow their per-type rules.
#include "format/journal.h"

#include <gtest/gtest.h>

#include "format/record.h"

namespace smr {
namespace {

std::vector<JournalOp> SomeOps() {
  std::vector<JournalOp> ops;
  ops.push_back(JournalOp::Put("Ckey", std::string("v\0al", 4)));
  ops.push_back(JournalOp::Delete("O\x01\x02"));
  JournalOp m;
  m.kind = journalfmt::kOpMount;
  m.a = 7;
  m.b = 123456789;
  ops.push_back(m);
  JournalOp c;
  c.kind = journalfmt::kOpCheckpointDone;
  c.a = 3;
  c.b = 99;
  c.c = 12;
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
  k.a = 1;
  k.b = 2;
  k.c = 3;
  k.d = 4;
  ops.push_back(k);
  JournalOp ids;
  ids.kind = journalfmt::kOpIds;
  ids.a = 10;
  ids.b = 3;
  ops.push_back(ids);
  ops.push_back(JournalOp::Put("", ""));
  return ops;
}

TEST(JournalFormatTest, OpsRoundTrip) {
  const auto ops = SomeOps();
  const std::string enc = EncodeJournalOps(ops);
  auto dec = DecodeJournalOps(enc);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_EQ(*dec, ops);
  // Built incrementally: the same bytes.
  std::string body;
  for (const JournalOp& op : ops) AppendJournalOp(op, &body);
  EXPECT_EQ(FinishJournalPayload(static_cast<uint32_t>(ops.size()), body), enc);
  auto empty = DecodeJournalOps(EncodeJournalOps({}));
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(JournalFormatTest, EveryTruncationAndTrailingByteIsRefused) {
  const std::string enc = EncodeJournalOps(SomeOps());
  for (size_t n = 0; n < enc.size(); ++n) {
    EXPECT_FALSE(DecodeJournalOps(enc.substr(0, n)).ok()) << "prefix of " << n << " bytes";
  }
  EXPECT_FALSE(DecodeJournalOps(enc + "x").ok());
  std::string bad = enc;
  bad[0] = 2;  // version
  EXPECT_NE(DecodeJournalOps(bad).status().ToString().find("unsupported version"),
            std::string::npos);
  bad = enc;
  bad[5] = 9;  // the first op's kind
  EXPECT_NE(DecodeJournalOps(bad).status().ToString().find("unknown op 9"), std::string::npos);
  bad = enc;
  bad[1] = '\xff';  // count
  bad[2] = '\xff';
  EXPECT_FALSE(DecodeJournalOps(bad).ok());
}

TEST(JournalFormatTest, CheckpointChunksRoundTripAndRefuseDamage) {
  const std::vector<std::pair<std::string, std::string>> kvs = {
      {"Ca", "1"}, {"Ob", std::string(5000, 'x')}, {"", ""}};
  const std::string enc = EncodeCheckpointChunk(kvs);
  auto dec = DecodeCheckpointChunk(enc);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_EQ(*dec, kvs);
  for (size_t n = 0; n < enc.size(); n += 7) {
    EXPECT_FALSE(DecodeCheckpointChunk(enc.substr(0, n)).ok()) << n;
  }
  EXPECT_FALSE(DecodeCheckpointChunk(enc + "\x01").ok());
}

TEST(JournalFormatTest, JournalAndCheckpointHeadersFollowTheirRules) {
  RecordHeader h;
  h.type = RecordType::kJournal;
  h.seq = 42;
  h.collection_id = 3;  // mount count
  std::string rec;
  AppendRecord(h, "payload", &rec);
  auto d = DecodeRecordHeader(rec.data());
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->type, RecordType::kJournal);
  EXPECT_EQ(d->collection_id, 3u);
  EXPECT_STREQ(RecordTypeName(RecordType::kJournal), "journal");

  RecordHeader bad = h;
  bad.nid = 1;
  rec.clear();
  AppendRecord(bad, "p", &rec);
  EXPECT_NE(DecodeRecordHeader(rec.data()).status().ToString().find("object fields"),
            std::string::npos);
  bad = h;
  rec.clear();
  AppendRecord(bad, "", &rec);
  EXPECT_NE(DecodeRecordHeader(rec.data()).status().ToString().find("payload length 0"),
            std::string::npos);

  RecordHeader c;
  c.type = RecordType::kCheckpoint;
  c.seq = 42;
  c.nid = 9;             // checkpoint id
  c.logical_offset = 2;  // chunk index
  rec.clear();
  AppendRecord(c, "chunk", &rec);
  auto dc = DecodeRecordHeader(rec.data());
  ASSERT_TRUE(dc.ok()) << dc.status().ToString();
  EXPECT_EQ(dc->nid, 9u);
  EXPECT_EQ(dc->logical_offset, 2u);
  c.flags = recfmt::kFlagRemoved;
  rec.clear();
  AppendRecord(c, "chunk", &rec);
  EXPECT_FALSE(DecodeRecordHeader(rec.data()).ok());
}

}  // namespace
}  // namespace smr
