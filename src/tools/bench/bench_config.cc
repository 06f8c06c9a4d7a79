// smrstore-tool bench: ParseConfig, the command line as a Config (bench_config.h).
#include "bench_config.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <tuple>
#include <utility>

#include "bench_common.h"
#include "bench_workload.h"
#include "device/device_spec.h"
#include "fs_target.h"
#include "store/options_table.h"
#include "store/store.h"

namespace smr::tool::bench {

namespace {

bool ParseDouble(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// The value named `text` in `names`; nothing when no name matches.
template <typename T>
std::optional<T> Lookup(const std::string& text,
                        std::initializer_list<std::pair<const char*, T>> names) {
  for (const auto& [name, value] : names) {
    if (text == name) return value;
  }
  return std::nullopt;
}

// The bench's named flags that take an option's own values (store/options.def).
const std::vector<std::pair<std::string, std::string>> kBenchOptionFlags = {
    {"policy", "gc_policy"},
    {"gc-idle-slice", "gc_idle_slice"},
    {"gc-idle-yield", "gc_idle_yield"},
    {"gc-read-ahead", "gc_read_ahead"},
    {"gc-free-zones-max", "gc_free_zones_max"},
    {"journal", "journal"},
    {"journal-with-data", "journal_with_data"},
};

bool IsDir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

Result<Config> ParseConfig(const Args& args) {
  Config c;
  auto bad = [](const std::string& m) -> Status { return Status::InvalidArgument(m); };
  c.dir = args.get("dir", "/var/tmp");
  if (!IsDir(c.dir)) return bad("--dir: '" + c.dir + "' is not a directory");
  auto num = [&](const char* name, uint64_t fallback, uint64_t lo, uint64_t hi,
                 uint64_t* out) -> Status {
    auto v = args.number(name, fallback);
    if (!v.ok()) return bad(v.status().message());
    if (*v < lo || *v > hi) {
      return bad(std::string("--") + name + ": " + std::to_string(*v) + " is out of range [" +
                 std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    *out = *v;
    return Status::OK();
  };
  SMR_RETURN_IF_ERROR(num("drives", 1, 1, 64, &c.drives));
  SMR_RETURN_IF_ERROR(num("zones", 64, 8, 1u << 20, &c.zones));
  SMR_RETURN_IF_ERROR(num("zone-mib", 64, 1, 4096, &c.zone_mib));
  SMR_RETURN_IF_ERROR(num("clients", 4, 1, 256, &c.clients));
  SMR_RETURN_IF_ERROR(num("seed", 1, 0, UINT64_MAX, &c.seed));
  if (args.has("rate")) {
    if (!ParseDouble(args.get("rate"), &c.rate) || !(c.rate > 0) || c.rate > 1e6) {
      return bad("--rate: '" + args.get("rate") + "' is not an arrival rate in ops/s (> 0)");
    }
  }
  if (args.has("mbps")) {
    if (!ParseDouble(args.get("mbps"), &c.mbps) || c.mbps <= 0 || c.mbps > 1e6) {
      return bad("--mbps: '" + args.get("mbps") + "' is not a bandwidth in MB/s (> 0)");
    }
    c.seek_ms = 8;
  }
  if (args.has("seek-ms")) {
    if (!args.has("mbps")) return bad("--seek-ms needs --mbps (the timing model is off)");
    if (!ParseDouble(args.get("seek-ms"), &c.seek_ms) || c.seek_ms < 0 || c.seek_ms > 1000) {
      return bad("--seek-ms: '" + args.get("seek-ms") + "' is not a time in ms (0..1000)");
    }
  }
  c.size_text = args.get("size-dist", "mixed");
  if (c.size_text == "mixed") {
    c.size_kind = SizeKind::kMixed;
  } else if (c.size_text == "oss") {
    c.size_kind = SizeKind::kOss;
  } else if (c.size_text.rfind("fixed:", 0) == 0) {
    auto v = ParseSize(c.size_text.substr(6));
    if (!v.ok()) return bad("--size-dist: " + v.status().message());
    if (*v == 0 || *v > (256ull << 20)) return bad("--size-dist: fixed size must be 1..256M");
    c.size_kind = SizeKind::kFixed;
    c.fixed_bytes = *v;
  } else {
    return bad("--size-dist: '" + c.size_text + "' is not fixed:BYTES, mixed or oss");
  }
  if (args.has("util")) {
    if (!ParseDouble(args.get("util"), &c.util) || c.util <= 0 || c.util > 0.95) {
      return bad("--util: '" + args.get("util") + "' is not a fraction in (0, 0.95]");
    }
  }
  c.mix_text = args.get("mix", "1:4:4");
  {
    const auto parts = Split(c.mix_text, ':');
    double w[3];
    bool ok = parts.size() == 3;
    for (size_t i = 0; ok && i < 3; ++i) ok = ParseDouble(parts[i], &w[i]) && w[i] >= 0;
    if (!ok || w[1] <= 0) {
      return bad("--mix: '" + c.mix_text +
                 "' is not R:W:D (three non-negative weights, W > 0), e.g. 1:4:4");
    }
    c.mix_read = w[0];
    c.mix_write = w[1];
    c.mix_delete = w[2];
  }
  c.del_text = args.get("delete", "uniform");
  const auto del = Lookup<DelPattern>(c.del_text, {{"uniform", DelPattern::kUniform},
                                                   {"zipf", DelPattern::kZipf},
                                                   {"zipf-random", DelPattern::kZipfRandom},
                                                   {"fifo", DelPattern::kFifo}});
  if (!del) return bad("--delete: '" + c.del_text + "' is not uniform, zipf, zipf-random or fifo");
  c.del = *del;
  if (args.has("duration") && args.has("ops")) return bad("give --duration or --ops, not both");
  if (args.has("duration")) {
    if (!ParseDouble(args.get("duration"), &c.duration) || c.duration <= 0 ||
        c.duration > 7 * 86400) {
      return bad("--duration: '" + args.get("duration") + "' is not a number of seconds (> 0)");
    }
  }
  if (args.has("ops")) SMR_RETURN_IF_ERROR(num("ops", 0, 1, UINT64_MAX / 2, &c.ops));
  // Flags whose words differ from the option's values.
  for (const auto& [flag, key, on, off] :
       {std::tuple{"placement", "separate_streams", "separated", "single"},
        std::tuple{"gc-commits", "gc_in_groups", "ride", "separate"}}) {
    if (!args.has(flag)) continue;
    const std::string v = args.get(flag);
    if (v != on && v != off) {
      return bad(std::string("--") + flag + ": '" + v + "' is not " + on + " or " + off);
    }
    if (Status st = SetStoreOption(&c.store, key, v == on ? "true" : "false"); !st.ok()) {
      return st;
    }
    c.store_given.insert(key);
  }
  if (Status st = ApplyStoreOptionArgs(args, kBenchOptionFlags, /*gc_free=*/true, &c.store, &c.store_given);
      !st.ok()) {
    return bad(st.message());
  }
  if (Status st = ValidateStoreOptions(c.store); !st.ok()) return bad(st.message());
  c.json = args.has("json");
  c.oracle = args.has("oracle");
  auto list = [](const std::string& v) {
    std::vector<std::string> out;
    for (const auto& x : Split(v, ',')) {
      if (!x.empty()) out.push_back(x);
    }
    return out;
  };
  if (args.has("devices")) {
    c.devices = list(args.get("devices"));
    if (c.devices.empty()) return bad("--devices: give device specs, e.g. zbd:/dev/nullb0");
    for (const auto& d : c.devices) {
      if (auto spec = DeviceSpec::Parse(d); !spec.ok()) {
        return bad("--devices: " + spec.status().message());
      }
    }
  }
  c.fs_dir = args.get("fs-dir", "");
  if (args.has("fs-dir")) {
    if (!IsDir(c.fs_dir)) return bad("--fs-dir: '" + c.fs_dir + "' is not a directory");
    if (!c.devices.empty()) return bad("give --devices or --fs-dir, not both");
  }
  c.raw_only = args.has("raw-only");
  if (c.raw_only && c.devices.empty()) return bad("--raw-only needs --devices");
  if (args.has("stat-dev")) {
    c.stat_devs = list(args.get("stat-dev"));
    for (const auto& d : c.stat_devs) {
      if (auto b = BlockDevBytesWritten(d); !b.ok()) return bad("--stat-dev: " + b.status().message());
    }
  }
  if (c.oracle && (!c.devices.empty() || !c.fs_dir.empty())) {
    return bad("--oracle works with the emulated drives only (not --devices or --fs-dir)");
  }
  if (args.has("plot")) {
    c.plot = args.get("plot");
    const std::filesystem::path p(c.plot);
    if (p.extension() != ".png") return bad("--plot: '" + c.plot + "' must end in .png");
    const auto parent = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(parent, ec)) {
      return bad("--plot: directory '" + parent.string() + "' does not exist");
    }
  }
  // Geometry sanity: the store must hold several of the largest objects above its target
  // (for --devices and --fs-dir: checked against the real capacity once it is known).
  const uint64_t zone_bytes = c.zone_mib << 20;
  const uint64_t capacity = c.drives * c.zones * zone_bytes;
  if (c.devices.empty() && c.fs_dir.empty() &&
      MaxObjectBytes(c) * 8 > static_cast<uint64_t>(c.util * static_cast<double>(capacity))) {
    return bad("the drives are too small for --size-dist " + c.size_text + " at --util " +
               Num(c.util) + " (need room for at least 8 of the largest objects)");
  }
  return c;
}

}  // namespace smr::tool::bench
