#include "objectstore/smrstore_settings.h"

#include <cerrno>
#include <cstring>
#include <cmath>
#include <optional>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gc/victim_policy.h"

namespace smr::ceph_adapter {
namespace {

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

bool ParseBool(const std::string& v, bool* out) {
  if (v == "true" || v == "yes" || v == "1") return *out = true, true;
  if (v == "false" || v == "no" || v == "0") return *out = false, true;
  return false;
}

// auto (unset: the store decides by its drives) or a boolean.
bool ParseAutoBool(const std::string& v, std::optional<bool>* out) {
  if (v == "auto") return out->reset(), true;
  bool on = false;
  if (!ParseBool(v, &on)) return false;
  *out = on;
  return true;
}

// A free fraction in [0, 1) (the GC watermarks; their order is checked by Store::Mkfs).
bool ParseFraction(const std::string& v, double* out) {
  if (v.empty() || v.find_first_not_of("0123456789.") != std::string::npos) return false;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (end != v.c_str() + v.size() || !(d >= 0 && d < 1)) return false;
  *out = d;
  return true;
}

bool ParseU32(const std::string& v, uint32_t* out) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9) {
    return false;
  }
  *out = static_cast<uint32_t>(std::stoul(v));
  return true;
}

}  // namespace

Result<AdapterSettings> ParseAdapterSettings(const std::string& text, const std::string& name) {
  AdapterSettings s;
  std::istringstream in(text);
  std::string line;
  int no = 0;
  while (std::getline(in, line)) {
    ++no;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    line = Trim(line);
    if (line.empty()) continue;
    const size_t eq = line.find('=');
    const std::string where = name + ":" + std::to_string(no) + ": ";
    if (eq == std::string::npos) {
      return Status::InvalidArgument(where + "expected 'key = value', got '" + line + "'");
    }
    const std::string key = Trim(line.substr(0, eq));
    const std::string value = Trim(line.substr(eq + 1));
    auto bad = [&](const std::string& expected) {
      return Status::InvalidArgument(where + key + " = '" + value + "': expected " + expected);
    };
    if (key == "on_transaction_error") {
      if (value == "abort") {
        s.abort_on_error = true;
      } else if (value == "report") {
        s.abort_on_error = false;
      } else {
        return bad("abort or report");
      }
    } else if (key == "throttle_bytes") {
      uint32_t v = 0;
      if (!ParseU32(value, &v) || v < 4096) return bad("a size in bytes >= 4096");
      s.throttle_bytes = v;
    } else if (key == "device_class") {
      if (value.empty() || value.find_first_of(" \t/") != std::string::npos) {
        return bad("a class name (e.g. hdd, smr)");
      }
      s.device_class = value;
    } else if (key == "gc_policy") {
      auto policy = ParseVictimPolicy(value);
      if (!policy.ok()) return bad("greedy, cost-benefit or lifetime");
      s.store.gc_policy = *policy;
      s.mkfs_keys[key] = value;
    } else if (key == "gc_reserve_zones") {
      if (!ParseU32(value, &s.store.gc_reserve_zones) || s.store.gc_reserve_zones < 1) {
        return bad("a number of zones >= 1");
      }
      s.mkfs_keys[key] = value;
    } else if (key == "gc_free_zones_max") {
      if (!ParseU32(value, &s.store.gc_free_zones_max)) {
        return bad("a number of zones per drive (0: no cap)");
      }
      s.mkfs_keys[key] = value;
    } else if (key == "inline_max") {
      if (!ParseU32(value, &s.store.inline_max)) return bad("a size in bytes");
      s.mkfs_keys[key] = value;
    } else if (key == "separate_streams") {
      if (!ParseBool(value, &s.store.separate_streams)) return bad("true or false");
      s.mkfs_keys[key] = value;
    } else if (key == "pack_max") {
      if (!ParseU32(value, &s.store.pack_max) || s.store.pack_max > kMaxPackPayload) {
        return bad("a size in bytes up to " + std::to_string(kMaxPackPayload));
      }
      s.mkfs_keys[key] = value;
    } else if (key == "gc_idle_slice") {
      if (!ParseU32(value, &s.store.gc_idle_slice) ||
          (s.store.gc_idle_slice != 0 && (s.store.gc_idle_slice < kMinGcIdleSlice ||
                                          s.store.gc_idle_slice > kMaxGcIdleSlice))) {
        return bad("0 (1 MiB while cleaning is ahead, 4 MiB behind) or a size in bytes from " +
                   std::to_string(kMinGcIdleSlice) + " to " + std::to_string(kMaxGcIdleSlice));
      }
      s.mkfs_keys[key] = value;
    } else if (key == "gc_idle_yield") {
      if (!ParseBool(value, &s.store.gc_idle_yield)) return bad("true or false");
      s.mkfs_keys[key] = value;
    } else if (key == "gc_read_ahead" || key == "journal_with_data") {
      auto* v = key == "gc_read_ahead" ? &s.store.gc_read_ahead : &s.store.journal_with_data;
      if (!ParseAutoBool(value, v)) return bad("auto, true or false");
      s.mkfs_keys[key] = value;
    } else if (key == "gc_start_free" || key == "gc_urgent_free" || key == "gc_stop_free") {
      double* w = key == "gc_start_free"    ? &s.store.gc_start_free
                  : key == "gc_urgent_free" ? &s.store.gc_urgent_free
                                            : &s.store.gc_stop_free;
      if (!ParseFraction(value, w)) return bad("a free fraction in [0, 1), e.g. 0.03");
      s.mkfs_keys[key] = value;
    } else {
      return Status::InvalidArgument(
          where + "unknown key '" + key +
          "' (known: on_transaction_error, throttle_bytes, device_class, gc_policy, gc_reserve_zones, "
          "gc_start_free, gc_urgent_free, gc_stop_free, gc_free_zones_max, gc_idle_slice, gc_idle_yield, gc_read_ahead, journal_with_data, inline_max, pack_max, separate_streams)");
    }
  }
  return s;
}

Result<AdapterSettings> LoadAdapterSettings(const std::string& path) {
  std::ifstream f(path);
  if (!f) {
    if (errno == ENOENT) return AdapterSettings();
    return Status::IOError(path + ": " + std::strerror(errno));
  }
  std::stringstream buf;
  buf << f.rdbuf();
  return ParseAdapterSettings(buf.str(), path);
}

Status CheckMkfsKeys(const AdapterSettings& s, const StoreOptions& actual,
                     const std::string& name) {
  for (const auto& [key, value] : s.mkfs_keys) {
    std::string have;
    if (key == "gc_policy") {
      have = VictimPolicyName(actual.gc_policy);
      if (actual.gc_policy == s.store.gc_policy) continue;
    } else if (key == "gc_reserve_zones") {
      have = std::to_string(actual.gc_reserve_zones);
      if (actual.gc_reserve_zones == s.store.gc_reserve_zones) continue;
    } else if (key == "gc_free_zones_max") {
      have = std::to_string(actual.gc_free_zones_max);
      if (actual.gc_free_zones_max == s.store.gc_free_zones_max) continue;
    } else if (key == "gc_idle_slice") {
      have = std::to_string(actual.gc_idle_slice);
      if (actual.gc_idle_slice == s.store.gc_idle_slice) continue;
    } else if (key == "gc_idle_yield") {
      have = actual.gc_idle_yield ? "true" : "false";
      if (actual.gc_idle_yield == s.store.gc_idle_yield) continue;
    } else if (key == "gc_read_ahead") {
      have = !actual.gc_read_ahead ? "auto" : *actual.gc_read_ahead ? "true" : "false";
      if (actual.gc_read_ahead == s.store.gc_read_ahead) continue;
    } else if (key == "journal_with_data") {
      auto name_of = [](const std::optional<bool>& v) {
        return !v ? std::string("auto") : *v ? std::string("true") : std::string("false");
      };
      have = name_of(actual.journal_with_data);
      if (actual.journal_with_data == s.store.journal_with_data) continue;
    } else if (key == "inline_max") {
      have = std::to_string(actual.inline_max);
      if (actual.inline_max == s.store.inline_max) continue;
    } else if (key == "pack_max") {
      have = std::to_string(actual.pack_max);
      if (actual.pack_max == s.store.pack_max) continue;
    } else if (key == "separate_streams") {
      have = actual.separate_streams ? "true" : "false";
      if (actual.separate_streams == s.store.separate_streams) continue;
    } else if (key == "gc_start_free" || key == "gc_urgent_free" || key == "gc_stop_free") {
      const double made = key == "gc_start_free"    ? actual.gc_start_free
                          : key == "gc_urgent_free" ? actual.gc_urgent_free
                                                    : actual.gc_stop_free;
      const double want = key == "gc_start_free"    ? s.store.gc_start_free
                          : key == "gc_urgent_free" ? s.store.gc_urgent_free
                                                    : s.store.gc_stop_free;
      have = std::to_string(made);
      if (std::fabs(made - want) < 1e-9) continue;
    }
    return Status::InvalidArgument(name + ": " + key + " = " + value +
                                   " is a mkfs-time setting; this store was made with " +
                                   have + " (edit the file or make a new OSD)");
  }
  return Status::OK();
}

}  // namespace smr::ceph_adapter
