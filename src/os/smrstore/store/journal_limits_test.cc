// The metadata journal at its limits (issue 43): a commit group's journal record must fit
// in one zone. Found by the option-space run (store/store_matrix_test.cc): bursts of
// transactions whose metadata together passed a small zone made the group's journal record
// too large to place, and the store turned read-only; and a group of many small writes to
// one object logged that object's onode once per write.
#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <map>
#include <string>
#include <vector>

#include "common/pattern.h"
#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "store/store.h"
#include "store/testing/meta_dump.h"

namespace smr {
namespace {

using testing::ScratchDir;

ObjectId Obj(const std::string& name) {
  ObjectId o;
  o.pool = 1;
  o.name = name;
  o.hash = static_cast<uint32_t>(std::hash<std::string>()(name));
  return o;
}

std::string Bytes(uint64_t seed, size_t n) {
  std::string s(n, '\0');
  FillPattern(seed, 0, s.data(), n);
  return s;
}

class JournalLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Zones of 512 KiB: a journal record holds a little under that.
    specs_ = {"emu:" + dir_.path() + "/d0.img?zones=48&zone_kib=512&conv=1&max_open=12"};
    options_.gc_auto = false;
    options_.journal_with_data = false;
    options_.max_record_payload = 128u << 10;  // records fit in a zone (mkfs checks it)
    ASSERT_OK(Store::Mkfs(store_dir(), specs_, options_));
    auto s = Store::Open(store_dir());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    Transaction t;
    t.MkColl("1.0_head", 0);
    ASSERT_OK(store_->Apply(t));
  }
  std::string store_dir() const { return dir_.path() + "/store"; }

  // A transaction setting `keys` omap keys of `value` bytes on `name`.
  static Transaction OmapTxn(const std::string& name, int keys, size_t value, uint64_t seed) {
    Transaction t;
    t.Touch("1.0_head", Obj(name));
    std::map<std::string, std::string> kv;
    for (int i = 0; i < keys; ++i) kv["k" + std::to_string(i)] = Bytes(seed + i, value);
    t.OmapSetKeys("1.0_head", Obj(name), kv);
    return t;
  }

  // Submits all of `txns` at once (one commit group when nothing splits it); their results.
  std::vector<Status> SubmitTogether(std::vector<Transaction> txns) {
    std::vector<std::promise<Status>> done(txns.size());
    std::vector<std::future<Status>> results;
    for (auto& p : done) results.push_back(p.get_future());
    for (size_t i = 0; i < txns.size(); ++i) {
      store_->Submit(std::move(txns[i]), [&done, i](const Status& s) { done[i].set_value(s); });
    }
    std::vector<Status> out;
    for (auto& f : results) out.push_back(f.get());
    return out;
  }

  // The database rebuilt from the drive equals the live one, key by key. `report`, when
  // given, receives the rebuild's report.
  void ExpectRebuildEqual(RebuildReport* report = nullptr) {
    ASSERT_OK(store_->Close());
    store_.reset();
    const testing::MetaDump before = testing::DumpMeta(store_dir() + "/meta");
    std::filesystem::remove_all(store_dir() + "/meta");
    auto r = Store::RebuildMeta(store_dir(), specs_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if (report != nullptr) *report = *r;
    const testing::MetaDump after = testing::DumpMeta(store_dir() + "/meta");
    EXPECT_EQ(testing::DiffMetaDumps(before, after), "");
  }

  ScratchDir dir_;
  std::vector<std::string> specs_;
  StoreOptions options_;
  std::unique_ptr<Store> store_;
};

// Six transactions of ~150 KB of omap each, submitted together: one group would need a
// ~900 KB journal record in 512 KiB zones. Each commits (the group ends before the one
// that would pass the limit), the store keeps taking writes, and a rebuild gives the same
// database.
TEST_F(JournalLimitsTest, AGroupWhoseJournalWouldPassAZoneIsSplitAndEveryTransactionCommits) {
  std::vector<Transaction> txns;
  for (int i = 0; i < 6; ++i) txns.push_back(OmapTxn("o" + std::to_string(i), 150, 1000, i * 1000));
  const std::vector<Status> results = SubmitTogether(std::move(txns));
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_TRUE(results[i].ok()) << "transaction " << i << ": " << results[i].ToString();
  }
  for (int i = 0; i < 6; ++i) {
    auto v = store_->ListOmap("1.0_head", Obj("o" + std::to_string(i)), nullptr, 0);
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(v->size(), 150u);
  }
  Transaction after;
  after.Write("1.0_head", Obj("after"), 0, Bytes(7, 100000));
  ASSERT_OK(store_->Apply(after));
  ExpectRebuildEqual();
}

// One transaction whose metadata alone passes what a journal record may hold fails with a
// clear error and changes nothing; the store keeps taking writes.
TEST_F(JournalLimitsTest, ATransactionWhoseJournalPassesAZoneFailsAloneWithAClearError) {
  Status s = store_->Apply(OmapTxn("huge", 600, 1000, 1));
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("metadata journal"), std::string::npos) << s.ToString();
  auto exists = store_->Exists("1.0_head", Obj("huge"));
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(*exists);
  ASSERT_OK(store_->Apply(OmapTxn("fits", 300, 1000, 2)));
  ExpectRebuildEqual();
}

// 60 transactions of 5 small writes each to one object, committed as one group: the
// object's onode (its extent map growing to 300 extents) is written by each of them, and
// the group's journal record carries it once (the last write of each key).
TEST_F(JournalLimitsTest, AGroupRewritingOneObjectJournalsItsOnodeOnce) {
  std::vector<Transaction> txns;
  for (int i = 0; i < 60; ++i) {
    Transaction t;
    for (int j = 0; j < 5; ++j) {
      const int n = i * 5 + j;
      t.Write("1.0_head", Obj("many"), n * 8192, Bytes(n, 100));
    }
    txns.push_back(std::move(t));
  }
  const StoreCounters before = store_->Counters();
  for (const Status& s : SubmitTogether(std::move(txns))) ASSERT_OK(s);
  const StoreCounters after = store_->Counters();
  const uint64_t journal = after.journal_bytes_written - before.journal_bytes_written;
  const uint64_t groups = after.groups_committed - before.groups_committed;
  // Once per group, the onode is a few KiB per group; once per transaction it would be
  // hundreds of KiB.
  EXPECT_LT(journal, groups * (16u << 10))
      << "journal records of " << journal << " bytes for " << groups << " groups";
  auto r = store_->Read("1.0_head", Obj("many"), 299 * 8192, 100);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, Bytes(299, 100));
  ExpectRebuildEqual();
}

// Metadata of several zones in 512 KiB zones: the checkpoint is written in chunks over
// several zones. (Chunks were max_record_payload long; with 1 MiB records on 512 KiB zones,
// which mkfs now refuses, every checkpoint failed, the journal zones were never freed, and
// writes ran out of space.)
TEST_F(JournalLimitsTest, ACheckpointLargerThanAZoneIsWrittenInChunksThatFit) {
  for (int i = 0; i < 12; ++i) {
    ASSERT_OK(store_->Apply(OmapTxn("meta" + std::to_string(i), 250, 1000, i * 7)));
  }
  const StoreCounters c = store_->Counters();
  EXPECT_GE(c.checkpoints, 1u);
  EXPECT_GT(c.checkpoint_bytes_written, 1u << 20) << "a checkpoint of the whole metadata";
  // The journal zones the checkpoints made obsolete were freed: writing goes on.
  for (int i = 0; i < 20; ++i) {
    Transaction t;
    t.Write("1.0_head", Obj("data" + std::to_string(i)), 0, Bytes(i, 300000));
    ASSERT_OK(store_->Apply(t));
  }
  RebuildReport r;
  ASSERT_NO_FATAL_FAILURE(ExpectRebuildEqual(&r));
  EXPECT_GE(r.checkpoint_chunks, 2u);  // more than one zone's worth
}

// A long explicit GC (`RunGc` of many victims, `smrstore-tool gc --zones N`) takes
// checkpoints as commit groups do: relocations rewrite onodes, which the journal records,
// and without checkpoints the journal's zones grew until no zone was free (found by the
// option-space run: 107 of 154 data zones journal, GC failing NoSpace for its own journal
// record).
TEST_F(JournalLimitsTest, ALongGcRunTakesCheckpoints) {
  // Objects with 48 KiB of xattrs (in their onodes), their data overwritten so that most
  // zones hold dead records.
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 24; ++i) {
      Transaction t;
      t.Write("1.0_head", Obj("g" + std::to_string(i)), 0, Bytes(round * 100 + i, 160000));
      if (round == 0) {
        t.SetAttrs("1.0_head", Obj("g" + std::to_string(i)),
                   {{"a", Bytes(i, 16000)}, {"b", Bytes(i + 1, 16000)}, {"c", Bytes(i + 2, 16000)}});
      }
      ASSERT_OK(store_->Apply(t));
    }
  }
  const StoreCounters before = store_->Counters();
  auto gc = store_->RunGc(400);
  ASSERT_TRUE(gc.ok()) << gc.status().ToString();
  const StoreCounters after = store_->Counters();
  EXPECT_GT(gc->zones_cleaned, 20u);
  EXPECT_GT(after.checkpoints, before.checkpoints)
      << "GC cleaned " << gc->zones_cleaned << " zones and wrote "
      << after.journal_bytes_written - before.journal_bytes_written
      << " journal bytes without a checkpoint";
  ExpectRebuildEqual();
}

// One transaction that sets the same omap key 700 times (1000-byte values): its journal
// operations add up to more than a zone, but only the last write of the key is journaled,
// which fits: it commits (a group is split, or a transaction refused, only when what is
// journaled passes the limit), and the key holds its last value.
TEST_F(JournalLimitsTest, ATransactionRewritingOneKeyPastAZoneCommitsItsLastValue) {
  Transaction t;
  t.Touch("1.0_head", Obj("rewritten"));
  for (int i = 0; i < 700; ++i) {
    t.OmapSetKeys("1.0_head", Obj("rewritten"), {{"k", Bytes(i, 1000)}});
  }
  ASSERT_OK(store_->Apply(std::move(t)));
  auto v = store_->ListOmap("1.0_head", Obj("rewritten"), nullptr, 0);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_EQ(v->size(), 1u);
  EXPECT_EQ((*v)[0].second, Bytes(699, 1000));
  ExpectRebuildEqual();
}

}  // namespace
}  // namespace smr
