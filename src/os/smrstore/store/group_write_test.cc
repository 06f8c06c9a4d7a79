// A commit group's records go to each zone as one device write (ZonedDevice::WriteV), and
// the store's counters say so: device_writes = the Write calls the drive saw, fewer than
// the buffers (record headers, payloads, padded tails) they gathered.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/engine_log.h"
#include "common/testing/test_util.h"
#include "format/record.h"
#include "store/store.h"
#include "store/testing/store_on_faulty_drive.h"

namespace smr {
namespace {

using testing::Data;
using testing::kColl;
using testing::Obj;

class GroupWriteTest : public testing::StoreOnFaultyDrive {
 protected:
  void SetUp() override {
    spec_ = "emu:" + dir_.path() + "/d0.img?zones=24&zone_mib=8&conv=1&max_open=8";
    options_.gc_auto = false;
    ASSERT_NO_FATAL_FAILURE(MkfsAndMount(dir_.path() + "/st", options_));
    Transaction t;
    t.MkColl(kColl, 0);
    ASSERT_OK(store_->Apply(std::move(t)));
  }
};

TEST_F(GroupWriteTest, EachZoneAGroupWritesIsOneDeviceWrite) {
  const StoreCounters c0 = store_->Counters();
  const uint64_t writes0 = fault_->writes();
  // One transaction, one group: eight records of 100 000 bytes (not block multiples: each
  // record is a header block, its whole blocks and a padded tail) and the journal record.
  Transaction t;
  for (uint64_t i = 0; i < 8; ++i) t.Write(kColl, Obj(i), 0, Data(i, 100000));
  ASSERT_OK(store_->Apply(std::move(t)));
  const StoreCounters c1 = store_->Counters();
  const uint64_t writes = fault_->writes() - writes0;
  const uint64_t counted = c1.device_writes - c0.device_writes;
  const uint64_t buffers = c1.device_write_buffers - c0.device_write_buffers;
  EXPECT_EQ(writes, counted) << "the store's count differs from the drive's";
  EXPECT_LE(writes, 3u) << "more device writes than zones written (data, journal)";
  EXPECT_GE(buffers, 8u * 3) << "each record is at least three buffers";
  for (uint64_t i = 0; i < 8; ++i) {
    auto got = store_->Read(kColl, Obj(i), 0, 0);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(*got == Data(i, 100000)) << i;
  }
  Remount();
  auto f = store_->Fsck(/*deep=*/true, /*repair=*/false);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->ok()) << (f->errors.empty() ? "" : f->errors.front());
}

// A group that fills its stream's zone and goes on in the next one writes the full zone's
// last records and its footer in one device write, then the next zone's records with the
// group's journal record after them (journal_with_data, on for a rotational drive): two
// device writes, in that order, the record where the head ends (LastDataZone). Before, the
// footer was a third write, issued after both zones' (the head went back to it).
class RotationalGroupWriteTest : public testing::StoreOnFaultyDrive {
 protected:
  void SetUp() override {
    spec_ = "emu:" + dir_.path() +
            "/d0.img?zones=24&zone_mib=8&conv=1&max_open=8&mbps=100000&seek_ms=0";
    options_.gc_auto = false;
    ASSERT_NO_FATAL_FAILURE(MkfsAndMount(dir_.path() + "/st", options_));
    Transaction t;
    t.MkColl(kColl, 0);
    ASSERT_OK(store_->Apply(std::move(t)));
  }
};

TEST_F(RotationalGroupWriteTest, AZoneSealedByAGroupGetsItsFooterInTheSameWrite) {
  ASSERT_TRUE(fault_->info().rotational);
  const uint64_t sizes[] = {(13u << 20) / 2, (19u << 20) / 10};
  Transaction first;  // 6.5 MiB of the 8 MiB zone
  first.Write(kColl, Obj(0), 0, Data(0, sizes[0]));
  ASSERT_OK(store_->Apply(std::move(first)));
  const uint64_t writes0 = fault_->writes();
  const StoreCounters c0 = store_->Counters();
  // 1.9 MiB: its first 1 MiB record fits in the zone, the 0.9 MiB one goes on in the next;
  // the zone the group wrote most to is the first one, the one it wrote last the second.
  Transaction t;
  t.Write(kColl, Obj(1), 0, Data(1, sizes[1]));
  ASSERT_OK(store_->Apply(std::move(t)));
  EXPECT_EQ(fault_->writes() - writes0, 2u)
      << "the footer (or the journal record) was a device write of its own";
  EXPECT_EQ(store_->Counters().device_writes - c0.device_writes, 2u);
  // The journal record is the last record of the second zone: the head ends there.
  const uint64_t zone = fault_->info().zone_size;
  auto report = fault_->ReportZones(0, 0);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  std::vector<uint32_t> full;
  for (const ZoneInfo& z : *report) {
    if (z.cond == ZoneCondition::kFull) full.push_back(static_cast<uint32_t>(z.start / zone));
  }
  ASSERT_EQ(full.size(), 1u) << "one zone filled";
  const ZoneInfo& next = (*report)[full[0] + 1];
  ASSERT_GT(next.wp, next.start) << "the stream did not go on in the next zone";
  std::string block(4096, '\0');
  uint64_t at = next.start;
  std::optional<RecordType> last;
  for (;;) {
    ASSERT_OK(fault_->Read(at, block.data(), block.size()));
    auto h = DecodeRecordHeader(block.data());
    if (!h.ok()) break;
    last = h->type;
    at += RecordBytes(h->payload_len);
  }
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(*last, RecordType::kJournal);
  for (uint64_t i = 0; i < 2; ++i) {
    auto got = store_->Read(kColl, Obj(i), 0, 0);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(*got == Data(i, sizes[i])) << i;
  }
  Remount();
  auto f = store_->Fsck(/*deep=*/true, /*repair=*/false);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->ok()) << (f->errors.empty() ? "" : f->errors.front());
}

// A step that holds the commit thread 250 ms or more is logged (kWarning, into the OSD log
// through the adapter's sink) with what it was: a group writing 8 MiB to a drive modelled
// at 25 MB/s (at least 335 ms of transfer) is; a 4 KiB one (inline) is not.
class SlowStepLogTest : public testing::StoreOnFaultyDrive {
 protected:
  void SetUp() override {
    spec_ = "emu:" + dir_.path() + "/d0.img?zones=16&zone_mib=16&conv=1&mbps=25&seek_ms=1";
    options_.gc_auto = false;
    ASSERT_NO_FATAL_FAILURE(MkfsAndMount(dir_.path() + "/st", options_));
    Transaction t;
    t.MkColl(kColl, 0);
    ASSERT_OK(store_->Apply(std::move(t)));
  }
};

TEST_F(SlowStepLogTest, AGroupThatHoldsTheCommitThreadIsLoggedWithWhatItWas) {
  std::vector<std::pair<LogLevel, std::string>> lines;
  LogSink old_sink =
      SetLogSink([&lines](LogLevel l, const std::string& s) { lines.emplace_back(l, s); });
  Transaction small;
  small.Write(kColl, Obj(1), 0, Data(1, 4096));
  Status s1 = store_->Apply(std::move(small));
  const size_t after_small = lines.size();
  Transaction big;
  big.Write(kColl, Obj(2), 0, Data(2, 8 << 20));
  Status s2 = store_->Apply(std::move(big));
  SetLogSink(std::move(old_sink));
  ASSERT_OK(s1);
  ASSERT_OK(s2);
  EXPECT_EQ(after_small, 0u) << lines.front().second;
  bool logged = false;
  for (const auto& [level, text] : lines) {
    logged |= level == LogLevel::kWarning &&
              text.find("slow commit-thread step: a commit group of 1 transactions took ") !=
                  std::string::npos;
  }
  EXPECT_TRUE(logged) << "no slow-step line for an 8 MiB group at 25 MB/s (" << lines.size()
                      << " lines)";
}

}  // namespace
}  // namespace smr
