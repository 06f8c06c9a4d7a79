#include "common/json.h"
#include "rebuild_command.h"

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "store/store.h"

namespace smr::tool {

namespace {

double MiB(uint64_t b) { return static_cast<double>(b) / (1 << 20); }

int RunRebuild(const Args& args) {
  const std::string dir = args.positional()[0];
  const std::vector<std::string> specs(args.positional().begin() + 1, args.positional().end());
  const bool tty = ::isatty(STDERR_FILENO) == 1 && !args.has("quiet");
  auto progress = [&](const RebuildProgress& p) {
    if (!tty) return;
    const double pct = p.bytes_total ? 100.0 * static_cast<double>(p.bytes_done) /
                                           static_cast<double>(p.bytes_total)
                                     : 100.0;
    const double rate = p.seconds > 0 ? MiB(p.bytes_done) / p.seconds : 0.0;
    std::fprintf(stderr, "\rscanning zones: %llu/%llu  %.1f/%.1f MiB  %5.1f%%  %.0f MB/s   ",
                 static_cast<unsigned long long>(p.zones_done),
                 static_cast<unsigned long long>(p.zones_total), MiB(p.bytes_done),
                 MiB(p.bytes_total), pct, rate * 1.048576);
    std::fflush(stderr);
  };
  auto r = Store::RebuildMeta(dir, specs, progress);
  if (tty) std::fprintf(stderr, "\n");
  if (!r.ok()) return Fail("rebuild-meta", r.status());
  const double scan_mbs =
      r->scan_seconds > 0 ? static_cast<double>(r->bytes_scanned) / 1e6 / r->scan_seconds : 0.0;
  if (args.has("json")) {
    const Json out = {{"zones_scanned", r->zones_scanned},
                      {"bytes_scanned", r->bytes_scanned},
                      {"bytes_read", r->bytes_read},
                      {"scan_seconds", r->scan_seconds},
                      {"scan_mb_per_s", scan_mbs},
                      {"seconds", r->seconds},
                      {"records", r->records},
                      {"journal_bytes", r->journal_bytes},
                      {"checkpoint_id", r->checkpoint_id},
                      {"checkpoint_chunks", r->checkpoint_chunks},
                      {"replayed_records", r->replayed_records},
                      {"voided_records", r->voided_records},
                      {"dropped_tail_records", r->dropped_tail_records},
                      {"in_doubt_records", r->in_doubt_records},
                      {"torn_zones", r->torn_zones},
                      {"unreadable_zones", r->unreadable_zones},
                      {"cmr_zones", r->cmr_zones},
                      {"cmr_stale_records", r->cmr_stale_records},
                      {"collections", r->collections},
                      {"objects", r->objects}};
    std::printf("%s\n", out.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  std::printf("rebuilt %s/meta from %zu drive(s)\n", PrintableName(dir).c_str(), specs.size());
  std::printf("  scanned    %llu zones, %.1f MiB written, in %.2f s (%.1f MB/s of zones; "
              "%.1f MiB of headers and journal read); %llu records\n",
              static_cast<unsigned long long>(r->zones_scanned), MiB(r->bytes_scanned),
              r->scan_seconds, scan_mbs, MiB(r->bytes_read),
              static_cast<unsigned long long>(r->records));
  std::printf("  checkpoint %llu (%llu chunks), then %llu journal records replayed\n",
              static_cast<unsigned long long>(r->checkpoint_id),
              static_cast<unsigned long long>(r->checkpoint_chunks),
              static_cast<unsigned long long>(r->replayed_records));
  std::printf("  left out   %llu records of mounts that never committed them, %llu last "
              "records whose data the drives lack\n",
              static_cast<unsigned long long>(r->voided_records),
              static_cast<unsigned long long>(r->dropped_tail_records));
  if (r->in_doubt_records) {
    std::printf("  in doubt   the last commit before the crash was replayed: the drives cannot "
                "tell whether it committed (an op in flight at the crash may show applied)\n");
  }
  if (r->torn_zones || r->unreadable_zones) {
    std::printf("  zones      %llu ended at a torn record, %llu at a read error\n",
                static_cast<unsigned long long>(r->torn_zones),
                static_cast<unsigned long long>(r->unreadable_zones));
  }
  if (r->cmr_zones) {
    std::printf("  hybrid     %llu CMR zones walked to their end of records (%llu ended at an "
                "earlier use's record)\n",
                static_cast<unsigned long long>(r->cmr_zones),
                static_cast<unsigned long long>(r->cmr_stale_records));
  }
  std::printf("  metadata   %llu collections, %llu objects; total %.2f s\n",
              static_cast<unsigned long long>(r->collections),
              static_cast<unsigned long long>(r->objects), r->seconds);
  std::printf("next: smrstore-tool fsck %s --deep\n", PrintableName(dir).c_str());
  return kExitOk;
}

}  // namespace

void AddRebuildCommand(Cli* cli) {
  cli->Add({"rebuild-meta", "STORE SPEC...",
            "rebuild a store's metadata database (STORE/meta) from its drives alone",
            "Reads every drive's superblock and walks every written zone: the newest complete\n"
            "metadata checkpoint and the journal after it (both kept in the zones) give back\n"
            "collections, objects, xattrs, omap and the zone accounting. STORE/meta must not\n"
            "exist: move a damaged one aside first. Drives may be given in any order. Progress\n"
            "is shown on a terminal; the report gives the zone scan's MB/s. Exit 0 rebuilt, 1\n"
            "the drives hold no usable store (no superblock, no complete checkpoint, drives of\n"
            "different stores), 2 usage.",
            2, 4096,
            {{"json", "", "print the report as one line of JSON"},
             {"quiet", "", "no progress line"}},
            RunRebuild});
}

}  // namespace smr::tool
