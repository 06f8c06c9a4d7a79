// what_if.h: the capture -> store model -> trace conversion and the scaling rule on small
// hand-written captures with known answers; what-if end to end on a committed capture,
// prediction against the real store (--check).
#include "what_if.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

namespace smr::tool::whatif {
namespace {

constexpr uint64_t kMiB = 1 << 20;

CapOp Op(CapOp::Kind k, const std::string& oid, uint64_t off = 0, uint64_t len = 0) {
  CapOp op;
  op.kind = k;
  op.coll = "1.0_head";
  op.oid = oid;
  op.offset = off;
  op.length = len;
  return op;
}

// Counts the trace's writes and deletes and sums the written bytes.
struct Tally {
  size_t writes = 0, deletes = 0;
  uint64_t bytes = 0;
  explicit Tally(const std::vector<TraceOp>& t) {
    for (const TraceOp& op : t) {
      if (op.kind == TraceOp::kWrite) {
        ++writes;
        bytes += op.bytes;
      } else {
        ++deletes;
      }
    }
  }
};

TEST(WhatIfParse, OpsSeedAndCollections) {
  auto j = ParseJson(R"({"format": "smrstore.trace/1",
    "seed": {"collections": [{"coll": "meta", "bits": 0}],
             "objects": [{"coll": "meta", "oid": "#-1:1:::sb:0#"}]},
    "transactions": [{"ops": [
      {"op": "mkcoll", "coll": "2.0_head", "bits": 3},
      {"op": "write", "coll": "2.0_head", "oid": "o1", "offset": 0, "length": 8192},
      {"op": "setattrs", "coll": "2.0_head", "oid": "o1", "attrs": {"_": 257}},
      {"op": "omap_rmkeys", "coll": "2.0_head", "oid": "o1", "keys": ["a", "b"]},
      {"op": "coll_hint", "coll": "2.0_head", "type": 1}]}]})");
  ASSERT_TRUE(j.ok());
  auto cap = ParseCapture(*j);
  ASSERT_TRUE(cap.ok()) << cap.status().ToString();
  EXPECT_EQ(cap->collections, (std::vector<std::string>{"2.0_head", "meta"}));
  ASSERT_EQ(cap->seed_objects.size(), 1u);
  ASSERT_EQ(cap->txns.size(), 1u);
  ASSERT_EQ(cap->txns[0].size(), 5u);
  EXPECT_EQ(cap->txns[0][1].kind, CapOp::kWrite);
  EXPECT_EQ(cap->txns[0][1].length, 8192u);
  EXPECT_EQ(cap->txns[0][2].kv.at(0).second, 257u);
  EXPECT_EQ(cap->txns[0][3].kv.size(), 2u);
  EXPECT_EQ(cap->txns[0][4].kind, CapOp::kNone);
  EXPECT_EQ(cap->write_bytes, 8192u);
}

TEST(WhatIfParse, RejectsWhatItCannotModel) {
  auto bad_format = ParseJson(R"({"format": "other", "transactions": []})");
  EXPECT_EQ(ParseCapture(*bad_format).status().code(), Status::Code::kInvalidArgument);
  auto split = ParseJson(R"({"format": "smrstore.trace/1", "transactions": [{"ops": [
      {"op": "split_collection2", "coll": "a", "bits": 1, "rem": 0, "dest_coll": "b"}]}]})");
  EXPECT_EQ(ParseCapture(*split).status().code(), Status::Code::kInvalidArgument);
  auto bad_type = ParseJson(R"({"format": "smrstore.trace/1", "transactions": [{"ops": [
      {"op": "write", "coll": "a", "oid": "o", "offset": "x", "length": 1}]}]})");
  EXPECT_EQ(ParseCapture(*bad_type).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(LoadCapture("/nonexistent/what-if").status().code(), Status::Code::kNotFound);
}

TEST(WhatIfModel, RecordsInlineOverwritesAndRemoves) {
  StoreModel m(ModelConfig{});
  std::vector<TraceOp> t;
  // Tiny: inline in RocksDB, nothing in the zones.
  m.Apply({Op(CapOp::kWrite, "tiny", 0, 100)}, &t);
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(m.counters().inline_bytes, 100u);
  // 3 MiB: three records of 1 MiB.
  m.Apply({Op(CapOp::kWrite, "big", 0, 3 * kMiB)}, &t);
  EXPECT_EQ(Tally(t).writes, 3u);
  EXPECT_EQ(m.live_bytes(), 3 * kMiB);
  // Overwrite of the middle record exactly: it dies, a new one is written.
  t.clear();
  m.Apply({Op(CapOp::kWrite, "big", kMiB, kMiB)}, &t);
  EXPECT_EQ(Tally(t).writes, 1u);
  EXPECT_EQ(Tally(t).deletes, 1u);
  EXPECT_EQ(m.stranded_bytes(), 0u);
  // A partial overwrite: the old record lives on (approximation), its dead part stranded.
  t.clear();
  m.Apply({Op(CapOp::kWrite, "big", 0, 8192)}, &t);
  EXPECT_EQ(Tally(t).deletes, 0u);
  EXPECT_EQ(m.stranded_bytes(), 8192u);
  EXPECT_EQ(m.live_bytes(), 3 * kMiB);
  // Truncate to 1 MiB: the last two 1 MiB records die; the first lives (its 8 KiB
  // overwrite record too).
  t.clear();
  m.Apply({Op(CapOp::kTruncate, "big", kMiB)}, &t);
  EXPECT_EQ(Tally(t).deletes, 2u);
  EXPECT_EQ(m.live_bytes(), kMiB);
  // Overwriting the rest of the first record kills it whole: nothing stranded any more.
  t.clear();
  m.Apply({Op(CapOp::kWrite, "big", 8192, kMiB - 8192)}, &t);
  EXPECT_EQ(Tally(t).deletes, 1u);
  EXPECT_EQ(m.stranded_bytes(), 0u);
  // The tiny object outgrows inline_max: its 100 bytes move to a record (device, not
  // user, bytes), then the write's record.
  t.clear();
  const uint64_t user_before = m.counters().user_bytes;
  m.Apply({Op(CapOp::kWrite, "tiny", 100, 10000)}, &t);
  EXPECT_EQ(Tally(t).writes, 2u);
  EXPECT_EQ(m.counters().uninline_bytes, 100u);
  EXPECT_EQ(m.counters().user_bytes - user_before, 10000u);
  // Remove: every record of the object dies.
  t.clear();
  m.Apply({Op(CapOp::kRemove, "big"), Op(CapOp::kRemove, "tiny")}, &t);
  EXPECT_EQ(Tally(t).deletes, 4u);  // big's 2 records, tiny's 2
  EXPECT_EQ(m.live_bytes(), 0u);
  // Clone copies data into new records.
  m.Apply({Op(CapOp::kWrite, "src", 0, 65536)}, &t);
  t.clear();
  CapOp clone = Op(CapOp::kClone, "src");
  clone.dest_oid = "dst";
  m.Apply({clone}, &t);
  EXPECT_EQ(Tally(t).writes, 1u);
  EXPECT_EQ(Tally(t).bytes, 65536u);
  EXPECT_TRUE(m.Exists("1.0_head", "dst"));
}

TEST(WhatIfModel, MetadataIsNotZoneBytesButIsJournaled) {
  StoreModel m(ModelConfig{});
  std::vector<TraceOp> t;
  CapOp attrs = Op(CapOp::kSetAttrs, "o");
  attrs.kv = {{"_", 257}, {"snapset", 35}};
  CapOp omap = Op(CapOp::kOmapSetKeys, "o");
  omap.kv = {{"k", 5000}};
  m.Apply({Op(CapOp::kTouch, "o"), attrs, omap}, &t);
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(m.counters().xattr_bytes, 1u + 257 + 7 + 35);
  EXPECT_EQ(m.counters().omap_bytes, 1u + 5000);
  // One journal record: a header block plus the payload (over 5000 bytes) in 2 blocks.
  EXPECT_EQ(m.counters().journal_bytes, 3u * 4096);
}

// One pass: A (1 MiB) survives, B (2 MiB) is written then removed.
Capture HandCapture(bool a_survives) {
  Capture c;
  c.collections = {"1.0_head"};
  c.txns.push_back({Op(CapOp::kWrite, "A", 0, kMiB)});
  c.txns.push_back({Op(CapOp::kWrite, "B", 0, 2 * kMiB)});
  c.txns.push_back({Op(CapOp::kRemove, "B")});
  if (!a_survives) c.txns.push_back({Op(CapOp::kRemove, "A")});
  return c;
}

TEST(WhatIfScale, ProfileAndWindow) {
  const Capture cap = HandCapture(true);
  auto p = ProfilePass(cap, ModelConfig{});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->record_bytes, 3 * kMiB);  // W
  EXPECT_EQ(p->peak_live, 3 * kMiB);     // T
  EXPECT_EQ(p->survivor_bytes, kMiB);    // S
  ASSERT_EQ(p->survivors.size(), 1u);
  EXPECT_EQ(p->survivors[0].second, "A");
  // 100 MiB at fill 0.5: (N - 1) x 1 MiB + 3 MiB <= 50 MiB -> N = 48, no cold set.
  auto s = PlanScale(*p, 100 * kMiB, 0.5, 2, 1000);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->window, 48u);
  EXPECT_EQ(s->cold_objects, 0u);
  EXPECT_EQ(s->warm_passes, 48u + 34);    // N + ceil(100 / 3)
  EXPECT_EQ(s->measured_passes, 67u);     // ceil(2 x 100 / 3)
  // The window capped: the cold set makes up the rest.
  auto capped = PlanScale(*p, 100 * kMiB, 0.5, 2, 10);
  ASSERT_TRUE(capped.ok());
  EXPECT_EQ(capped->window, 10u);
  EXPECT_TRUE(capped->window_capped);
  EXPECT_EQ(capped->cold_objects, 50u - 3 - 9);
  // Too full for one pass; a fill out of range.
  EXPECT_EQ(PlanScale(*p, 4 * kMiB, 0.5, 2, 1000).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(PlanScale(*p, 100 * kMiB, 1.0, 2, 1000).status().code(), Status::Code::kInvalidArgument);
}

TEST(WhatIfScale, NothingSurvives) {
  auto p = ProfilePass(HandCapture(false), ModelConfig{});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->survivor_bytes, 0u);
  EXPECT_TRUE(p->survivors.empty());
  auto s = PlanScale(*p, 100 * kMiB, 0.5, 2, 1000);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->window, 1u);
  EXPECT_EQ(s->cold_objects, 47u);  // 50 MiB - T
}

// The scaled workload holds exactly the planned live data: at most cold + (N-1) S + T,
// reached in every steady pass, and survivors do die N passes later.
TEST(WhatIfScale, ScaledWorkloadPeaksAtTheFill) {
  const Capture cap = HandCapture(true);
  auto p = ProfilePass(cap, ModelConfig{});
  ASSERT_TRUE(p.ok());
  auto s = PlanScale(*p, 100 * kMiB, 0.5, 2, 10);  // window 10, 38 cold objects
  ASSERT_TRUE(s.ok());
  StoreModel m(ModelConfig{});
  std::vector<TraceOp> t;
  uint64_t peak = 0, removals = 0;
  const uint64_t txns = GenerateScaled(cap, *p, *s, [&](int64_t pass, const std::vector<CapOp>& ops) {
    if (pass >= 0 && ops[0].kind == CapOp::kRemove && ops[0].oid.rfind("A~", 0) == 0) {
      EXPECT_EQ(ops[0].oid, "A~" + std::to_string(pass - 10));
      ++removals;
    }
    m.Apply(ops, &t);
    peak = std::max(peak, m.live_bytes());
  });
  const uint64_t passes = s->warm_passes + s->measured_passes;
  EXPECT_EQ(txns, 1 + s->cold_objects + passes * 3 + (passes - 10));
  EXPECT_EQ(removals, passes - 10);
  EXPECT_EQ(peak, s->cold_objects * kMiB + 9 * kMiB + 3 * kMiB);
  EXPECT_EQ(peak, 50 * kMiB);
  // At the end: the cold set plus the last N passes' survivors.
  EXPECT_EQ(m.live_bytes(), s->cold_objects * kMiB + 10 * kMiB);
}

// --- End to end: the tool on a committed capture, --check against the real store. ---

std::string RunTool(const std::string& args, int* rc) {
  const std::string cmd = std::string(SMRSTORE_TOOL) + " " + args + " 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while (f != nullptr && (n = fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  const int status = f ? pclose(f) : -1;
  *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST(WhatIfTool, BadInputIsOneLineAndWritesNothing) {
  const std::string work = "/tmp/what-if-test-bad-" + std::to_string(getpid());  // never made
  const std::string cap = std::string(SMRSTORE_SOURCE_DIR) + "/qa/traces/captures/rgw";
  int rc = 0;
  RunTool("what-if " + cap + " --fill 1.5 --check --work " + work, &rc);
  EXPECT_EQ(rc, 2);
  RunTool("what-if " + cap + " --zone-size 5M --check --work " + work, &rc);
  EXPECT_EQ(rc, 2);
  RunTool("what-if " + cap + " --zones 18 --zone-size 4M --fill 0.2 --check --work " + work, &rc);
  EXPECT_EQ(rc, 2);  // one pass holds more than fits
  RunTool("what-if " + cap + " --zones 20 --zone-size 4M --check --work " + work, &rc);
  EXPECT_EQ(rc, 2);  // the simulator runs out of zones
  RunTool("what-if " + cap + " --check --gc-free 0.05:0.01:0.03 --work " + work, &rc);
  EXPECT_EQ(rc, 2);  // start above stop
  RunTool("what-if " + cap + " --check --gc-free 0.03:0.01 --work " + work, &rc);
  EXPECT_EQ(rc, 2);
  RunTool("what-if " + cap + " --gc-free 0.03:0.01:0.05", &rc);
  EXPECT_EQ(rc, 2);  // without --check
  RunTool("what-if /nonexistent/capture --check --work " + work, &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_FALSE(std::filesystem::exists(work));
}

// The prediction for the rgw capture on one drive of 34 x 32 MiB zones at 70 % (the cell of
// doc/performance.md, "What-if") against a replay into a real store. There the prediction
// was low by 13 % (WA), 24 % (GC bytes per user byte) and 13 % (GC resets per TB); the
// store's timing (idle GC, lifetimes in wall-clock time) moves these by a few points from
// run to run, so the tolerances are 25 %, 40 % and 25 %.
// The store syncs RocksDB every commit: on tmpfs (when there is one) that costs nothing.
std::string WorkDir(const std::string& name) {
  const char* base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
  return std::string(base) + "/" + name + "-" + std::to_string(getpid());
}

TEST(WhatIfTool, RgwPredictionAgreesWithTheStore) {
  const std::string work = WorkDir("what-if-test");
  int rc = 0;
  const std::string out =
      RunTool("what-if " + std::string(SMRSTORE_SOURCE_DIR) +
                  "/qa/traces/captures/rgw --zones 34 --zone-size 32M --fill 0.7 --check --json "
                  "--no-oracle --work " + work,
              &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_FALSE(std::filesystem::exists(work));
  auto j = ParseJson(out);
  ASSERT_TRUE(j.ok()) << out;
  for (const char* k : {"capture", "geometry", "fill", "ingest_mbps", "scaling", "workload",
                        "predicted", "context", "measured", "error_pct"}) {
    EXPECT_TRUE(j->contains(k)) << k;
  }
  for (const char* k : {"wa", "data_wa", "gc_per_user_byte", "gc_mbps", "zone_resets_per_tb",
                        "zone_resets_per_day", "journal_per_user_byte", "user_bytes"}) {
    EXPECT_TRUE(j->at("predicted").contains(k)) << k;
    EXPECT_TRUE(j->at("measured").contains(k)) << k;
  }
  EXPECT_EQ(j->at("measured").at("failed_transactions").get<uint64_t>(), 0u);
  const Json& e = j->at("error_pct");
  EXPECT_LT(std::fabs(e.at("wa").get<double>()), 25.0) << out;
  EXPECT_LT(std::fabs(e.at("data_wa").get<double>()), 25.0) << out;
  EXPECT_LT(std::fabs(e.at("gc_per_user_byte").get<double>()), 40.0) << out;
  EXPECT_LT(std::fabs(e.at("zone_resets_per_tb").get<double>()), 25.0) << out;
  // The prediction is not trivial: GC does work at this fill.
  EXPECT_GT(j->at("predicted").at("gc_per_user_byte").get<double>(), 0.1);
}

}  // namespace
}  // namespace smr::tool::whatif
