// smrstore-tool bench: the run's configuration (Config) and its parsing from the command
// line: every option's default, range and one-line error message. ParseConfig decides what
// can be decided without touching a device; CmdBench (workload_bench.cc) checks the rest
// (the real capacity of --devices and --fs-dir, --publish).
// Thread safety: ParseConfig is a pure function of its arguments and the file system.
#pragma once

#include <cstdint>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/result.h"
#include "gc/victim_policy.h"
#include "store/store.h"

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
  // The store's options (store/options.def): defaults, then --opt KEY=VALUE[,...] and the
  // named flags that stand for one option each (--policy, --placement, --gc-commits,
  // --gc-free, --gc-idle-slice, --gc-idle-yield, --gc-read-ahead, --gc-free-zones-max,
  // --journal, --journal-with-data: kBenchOptionFlags in bench_config.cc). `store_given`:
  // the keys given (the report shows the others as the store's defaults, null).
  StoreOptions store;
  std::set<std::string> store_given;
  uint64_t seed = 1;
  bool json = false, oracle = false;
  std::string plot;
};

// The options of `args` as a Config; an error is kInvalidArgument whose message is the
// one line to print.
Result<Config> ParseConfig(const Args& args);
// The run's victim policy and placement as the report prints them.
inline const char* PolicyText(const Config& c) { return VictimPolicyName(c.store.gc_policy); }
inline const char* PlacementText(const Config& c) {
  return c.store.separate_streams ? "separated" : "single";
}

}  // namespace smr::tool::bench
