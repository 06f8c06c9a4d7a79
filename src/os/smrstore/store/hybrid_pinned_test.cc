// Hybrid drives with the journal written after the data (journal_with_data), and the data
// zones that pins (issue 43, semantic mutants, doc/testing.md "Semantic mutants"): such a
// zone holds journal records a rebuild replays until the next checkpoint, so a realm
// conversion's drain (store/hybrid_manager.cc, the conversion step) must not empty and reset it
// without a checkpoint first. Relocation re-puts the onodes it moves, so only the other
// keys of those records (omap here) show the loss; the rebuilt database must equal the
// live one key by key. Killed mutant: the drain's `z.stream == kJournal || z.journal_pinned`
// without the pin (every other test passed with it). The same mutant in MaybeEvict's
// candidate test (H-Buffer eviction) is not killed by this test (see doc/testing.md).
#include <cstdint>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "common/testing/test_util.h"
#include "store/store.h"
#include "store/testing/meta_dump.h"
#include "store/testing/store_on_faulty_drive.h"

namespace smr {
namespace {

using testing::Data;
using testing::kColl;
using testing::Obj;

class HybridPinnedTest : public testing::StoreOnFaultyDrive {
 protected:
  void SetUp() override {
    // One hybrid drive: 6 realms of 4 CMR / 5 SMR zones of 4 MiB (hybrid_test.cc's drive).
    spec_ = "emu:" + dir_.path() + "/h0.img?zone_mib=4&conv=2&realms=6&realm_cmr=4&realm_smr=5"
            "&convert_ms=20&max_open=16";
    options_.gc_auto = false;
    options_.hybrid_auto = false;
    options_.hybrid_latency_bound_ms = 50;
    options_.journal_with_data = true;         // journal records after the data: pins
    options_.journal_pinned_zones_max = 1000;  // no checkpoint unpins them meanwhile
  }
  void Start(bool hbuffer) {
    options_.hybrid_hbuffer = hbuffer;
    ASSERT_NO_FATAL_FAILURE(MkfsAndMount(dir_.path() + "/st", options_));
    Transaction t;
    t.MkColl(kColl, 0);
    ASSERT_OK(store_->Apply(std::move(t)));
  }
  Status PutWithOmap(uint64_t i, size_t bytes) {
    Transaction t;
    t.Write(kColl, Obj(i), 0, Data(i, bytes));
    t.OmapSetKeys(kColl, Obj(i), {{"k" + std::to_string(i), "v" + std::to_string(i)}});
    return store_->Apply(std::move(t));
  }
  // Closes the store, rebuilds its metadata from the drive and compares, key by key.
  void ExpectRebuildEqualsLive() {
    ASSERT_OK(store_->Close());
    store_.reset();
    fault_.reset();
    const testing::MetaDump before = testing::DumpMeta(store_dir_ + "/meta");
    std::filesystem::rename(store_dir_ + "/meta", dir_.path() + "/meta.lost");
    auto report = Store::RebuildMeta(store_dir_, {spec_});
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    const testing::MetaDump after = testing::DumpMeta(store_dir_ + "/meta");
    const testing::JournaledDiff diff = testing::DiffJournaled(before, after);
    EXPECT_EQ(diff.lost, 0u) << "keys the rebuild lost (of " << before.journaled.size() << ")";
    EXPECT_EQ(diff.differ, 0u) << "keys the rebuild got wrong";
    EXPECT_EQ(after.journaled.size(), before.journaled.size());
  }
};

TEST_F(HybridPinnedTest, AConversionDrainsNoZonePinnedByJournalRecords) {
  ASSERT_NO_FATAL_FAILURE(Start(/*hbuffer=*/false));
  // 16 MiB: realm 0's three data zones (its fourth is the journal's) and realm 1's, the
  // journal records beside the data; then realm 1 converts. Its zones are all pinned and
  // it holds no journal zone (whose drain would take a checkpoint anyway): the drain must
  // take the checkpoint that unpins them rather than empty them.
  for (uint64_t i = 0; i < 64; ++i) ASSERT_OK(PutWithOmap(i, 256 << 10));
  ASSERT_OK(store_->ConvertRealm(0, 1, ZoneDomain::kSmr));
  ASSERT_NO_FATAL_FAILURE(ExpectRebuildEqualsLive());
}

}  // namespace
}  // namespace smr
