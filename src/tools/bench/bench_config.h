// smrstore-tool bench: the run's configuration (Config) and its parsing from the command
// line: every option's default, range and one-line error message. ParseConfig decides what
// can be decided without touching a device; CmdBench (workload_bench.cc) checks the rest
// (the real capacity of --devices and --fs-dir, --publish).
// Thread safety: ParseConfig is a pure function of its arguments and the file system.
#pragma once

#include <cstdint>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/result.h"
#include "gc/victim_policy.h"

namespace smr::tool::bench {

enum class SizeKind { kFixed, kMixed, kOss };
// kZipf: skew over names (keys): every name keeps a popularity rank for the whole run, the
// victim is the k-th live name in rank order (k ~ zipf), and the PUT paired with a delete
// re-uses the victim's name as one overwrite transaction (truncate + write, what an object
// gateway's write_full does). Hot names are rewritten often: their lifetimes repeat.
// kZipfRandom: a fresh random rank per incarnation and fresh names, so nothing about a new
// object predicts its lifetime (the harder, less realistic case).
enum class DelPattern { kUniform, kZipf, kFifo, kZipfRandom };
inline bool ReusesNames(DelPattern d) { return d == DelPattern::kZipf; }

struct Config {
  std::string dir = "/var/tmp";
  // Targets: emulated drives made in --dir (default), existing devices (--devices: the
  // store on them, RocksDB in --dir), or a directory of files (--fs-dir, a peer file
  // system). --raw-only: only the raw leg on --devices.
  std::vector<std::string> devices;
  std::string fs_dir;
  bool raw_only = false;
  // --stat-dev: block devices whose kernel write counters give device-level WA.
  std::vector<std::string> stat_devs;
  uint64_t drives = 1, zones = 64, zone_mib = 64;
  double mbps = 0, seek_ms = 0;
  SizeKind size_kind = SizeKind::kMixed;
  uint64_t fixed_bytes = 0;
  std::string size_text = "mixed";
  double util = 0.8;
  double mix_read = 1, mix_write = 4, mix_delete = 4;
  std::string mix_text = "1:4:4";
  DelPattern del = DelPattern::kUniform;
  std::string del_text = "uniform";
  uint64_t clients = 4;
  // Steady-state arrivals: 0 = closed loop (each client issues its next op when the last
  // one ends); > 0 = open loop at this many ops/s in all (each client a Poisson stream of
  // rate/clients; an op's latency counts from its scheduled arrival, so time spent waiting
  // behind the client's previous op is in it: no coordinated omission).
  double rate = 0;
  double duration = 60;  // seconds; used when ops == 0
  uint64_t ops = 0;
  VictimPolicy policy = VictimPolicy::kLifetime;
  std::string policy_text = "lifetime";
  bool separated = true;
  bool gc_in_groups = true;  // --gc-commits ride (StoreOptions::gc_in_groups) | separate
  // --gc-free START:URGENT:STOP: the store's GC watermarks (StoreOptions::gc_*_free);
  // empty = the store's defaults.
  std::optional<std::array<double, 3>> gc_free;
  // --gc-idle-slice BYTES (StoreOptions::gc_idle_slice; 0 = by how far ahead cleaning is); empty = the default.
  std::optional<uint64_t> gc_idle_slice;
  // --gc-idle-yield on|off (StoreOptions::gc_idle_yield); empty = the default.
  std::optional<bool> gc_idle_yield;
  // --gc-read-ahead on|off (StoreOptions::gc_read_ahead); empty = the default.
  std::optional<bool> gc_read_ahead;
  // --gc-free-zones-max N (StoreOptions::gc_free_zones_max; 0 = no cap); empty = the default.
  std::optional<uint64_t> gc_free_zones_max;
  // --journal on|off (StoreOptions::journal: the metadata journal in the zones).
  bool journal = true;
  // --journal-with-data on|off (StoreOptions::journal_with_data); empty = the default.
  std::optional<bool> journal_with_data;
  uint64_t seed = 1;
  bool json = false, oracle = false;
  std::string plot;
};

// The options of `args` as a Config; an error is kInvalidArgument whose message is the
// one line to print.
Result<Config> ParseConfig(const Args& args);

}  // namespace smr::tool::bench
