// bench --oracle (bench_oracle.h): the WA floor is the lowest steady-state WA of the oracle
// placement over every victim policy, whatever policy the run itself used.
#include "bench_oracle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

namespace smr::tool::bench {
namespace {

// A zipf-delete trace on 48 zones of 16 MiB at 80 % (256 KiB objects), as bench records
// it: the shape gc/gc_sim_test.cc runs the oracle on.
std::vector<TraceRec> ZipfTrace(size_t* steady_start) {
  TraceSpec spec;
  spec.capacity_bytes = 48ull * (16 << 20);
  spec.utilization = 0.8;
  spec.deletes = DeletePattern::kZipf;
  spec.size_divisor = 16;
  spec.steady_ops = 3 * 2 * 2400;
  spec.seed = 3;
  std::vector<TraceRec> out;
  *steady_start = 0;
  std::map<uint64_t, uint64_t> size;  // a DELETE carries its object's size, as bench's do
  for (const TraceOp& op : MakeTrace(spec)) {
    TraceRec r;
    r.put = op.kind == TraceOp::kWrite;
    r.id = op.object;
    if (r.put) size[op.object] = op.bytes;
    r.bytes = size[op.object];
    r.name = op.name;
    if (!r.put && *steady_start == 0) *steady_start = out.size();  // the fill has no deletes
    out.push_back(r);
  }
  return out;
}

TEST(BenchOracle, TheFloorIsTheLowestOverEveryVictimPolicyWhateverTheRunUsed) {
  size_t steady_start = 0;
  const std::vector<TraceRec> trace = ZipfTrace(&steady_start);
  ASSERT_GT(steady_start, 0u);
  for (VictimPolicy run_policy : {VictimPolicy::kLifetime, VictimPolicy::kGreedy}) {
    SCOPED_TRACE(VictimPolicyName(run_policy));
    Config c;
    c.drives = 1;
    c.zones = 48;
    c.zone_mib = 16;
    c.store.gc_policy = run_policy;
    c.store.separate_streams = true;
    const OracleResult r = RunOracle(c, trace, steady_start, 48ull * (16 << 20));
    ASSERT_TRUE(r.ran) << "error: " << r.error;
    const Json& by = r.extra.at("oracle_wa_by_policy");
    double lowest = 1e9;
    for (const char* p : {"greedy", "cost-benefit", "lifetime"}) {
      ASSERT_TRUE(by.contains(p) && by.at(p).is_number()) << p;
      lowest = std::min(lowest, by.at(p).get<double>());
    }
    EXPECT_NEAR(r.wa_floor, lowest, 1e-4);  // the JSON figures are rounded
    EXPECT_NEAR(by.at(r.extra.at("oracle_policy").get<std::string>()).get<double>(), r.wa_floor,
                1e-4);
    EXPECT_GE(r.wa_floor, 1.0);
  }
}

}  // namespace
}  // namespace smr::tool::bench
