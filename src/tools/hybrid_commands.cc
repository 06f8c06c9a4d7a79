// smrstore-tool's hybrid-drive commands: convert, plan-conversion (hybrid_commands.h).
#include "hybrid_commands.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_common.h"
#include "quantile.h"
#include "store_command_util.h"

namespace smr::tool {

using storecmd::Fixed;
using storecmd::Human;
using storecmd::Mount;
using storecmd::P;
using storecmd::Unmount;

ConversionReport DiffHybrid(const HybridCounters& before, const HybridCounters& after,
                            double seconds) {
  ConversionReport r;
  r.seconds = seconds;
  r.moved_bytes = after.migrated_bytes - before.migrated_bytes;
  r.quanta = after.quanta - before.quanta;
  r.bound_violations = after.bound_violations - before.bound_violations;
  r.activation_ms = after.last_activation_ms;
  const std::vector<double>& recent = after.recent_quantum_ms;
  const size_t n = static_cast<size_t>(std::min<uint64_t>(r.quanta, recent.size()));
  const std::vector<double> mine(recent.end() - static_cast<std::ptrdiff_t>(n), recent.end());
  if (!mine.empty()) {
    r.quantum_ms_p99 = Quantile(mine, 0.99);
    r.quantum_ms_max = *std::max_element(mine.begin(), mine.end());
  }
  return r;
}

namespace {

// --to smr|cmr; false for anything else.
bool ParseDomain(const std::string& text, ZoneDomain* out) {
  if (text == "smr") {
    *out = ZoneDomain::kSmr;
    return true;
  }
  if (text == "cmr") {
    *out = ZoneDomain::kCmr;
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------
// convert

int CmdConvert(const Args& args) {
  auto drive = args.number("drive", 0);
  auto realm = args.number("realm", 0);
  if (!drive.ok()) return UsageFail("convert", drive.status());
  if (!realm.ok()) return UsageFail("convert", realm.status());
  if (!args.has("realm") || !args.has("to")) {
    return UsageFail("convert", Status::InvalidArgument("--realm and --to are required"));
  }
  if (*drive > UINT16_MAX || *realm > UINT32_MAX) {
    return UsageFail("convert", Status::InvalidArgument("--drive or --realm out of range"));
  }
  ZoneDomain to = ZoneDomain::kSmr;
  if (!ParseDomain(args.get("to"), &to)) {
    return UsageFail("convert", Status::InvalidArgument("--to must be smr or cmr, not '" +
                                                        args.get("to") + "'"));
  }
  const auto d = static_cast<uint16_t>(*drive);
  const auto r = static_cast<uint32_t>(*realm);
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("convert", store.status());
  std::string from = "?";
  uint64_t live_before = 0;
  for (const RealmUsage& u : (*store)->Realms()) {
    if (u.drive == d && u.realm == r) {
      from = ZoneDomainName(u.domain);
      live_before = u.live_bytes;
    }
  }
  const HybridCounters before = (*store)->Hybrid();
  const Clock::time_point t0 = Clock::now();
  Status st;
  {
    storecmd::Ticker ticker("convert", "converting realm " + std::to_string(r) + " of drive " +
                                           std::to_string(d) + " to " + ZoneDomainName(to));
    st = (*store)->ConvertRealm(d, r, to);
  }
  const double seconds = Seconds(Clock::now() - t0);
  if (!st.ok()) {
    Unmount("convert", std::move(*store));
    return Fail("convert", st);
  }
  const ConversionReport rep = DiffHybrid(before, (*store)->Hybrid(), seconds);
  const uint32_t bound = (*store)->options().hybrid_latency_bound_ms;
  if (args.has("json")) {
    const Json j = {{"drive", d},
                    {"realm", r},
                    {"from", from},
                    {"to", ZoneDomainName(to)},
                    {"seconds", JsonNum(rep.seconds)},
                    {"live_before", live_before},
                    {"moved_bytes", rep.moved_bytes},
                    {"quanta", rep.quanta},
                    {"quantum_ms_p99", JsonNum(rep.quantum_ms_p99)},
                    {"quantum_ms_max", JsonNum(rep.quantum_ms_max)},
                    {"bound_ms", bound},
                    {"bound_violations", rep.bound_violations},
                    {"activation_ms", JsonNum(rep.activation_ms)}};
    std::cout << storecmd::JsonText(j) << "\n";
  } else {
    std::cout << "convert: drive " << d << " realm " << r << ": " << from << " -> "
              << ZoneDomainName(to) << " done in " << Fixed(rep.seconds, 2) << " s: moved "
              << Human(rep.moved_bytes) << " of live data in " << rep.quanta
              << " quanta (quantum p99 " << Fixed(rep.quantum_ms_p99, 1) << " ms, max "
              << Fixed(rep.quantum_ms_max, 1) << " ms; bound " << bound << " ms, "
              << rep.bound_violations << " over it); the drive's conversion took "
              << Fixed(rep.activation_ms, 0) << " ms\n";
  }
  return Unmount("convert", std::move(*store));
}

}  // namespace

void AddHybridCommands(Cli* cli) {
  cli->Add({"convert", "STORE", "convert one realm of a hybrid drive (CMR <-> SMR) now",
            "Mounts the store and calls Store::ConvertRealm: the realm's live data is moved\n"
            "out in quanta sized to half the store's latency bound (mkfs option, default\n"
            "100 ms), then the drive converts the realm. Prints the time it took, the live\n"
            "bytes moved, the number of quanta and their p99/max duration, the quanta over\n"
            "the bound, and the drive's conversion time (from Store::Hybrid() before and\n"
            "after). Refused (exit 1): a drive that is not hybrid, no such realm, a realm\n"
            "in that domain already, live data that does not fit elsewhere. Hybrid drives\n"
            "exist only in the emulator. The engine logs its steps on stderr (smrstore: ...).",
            1,
            1,
            {{"drive", "D", "drive index in the store (default 0)"},
             {"realm", "R", "realm to convert (required)"},
             {"to", "smr|cmr", "target domain (required)"},
             {"json", "", "print JSON"}},
            CmdConvert});
}

}  // namespace smr::tool
