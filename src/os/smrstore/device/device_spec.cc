#include "device/device_spec.h"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <map>

#ifdef SMRSTORE_HAVE_LIBZBD
#include "device/libzbd_zoned_device.h"
#endif

namespace smr {

namespace {

constexpr uint64_t kKiB = 1ull << 10;
constexpr uint64_t kMiB = 1ull << 20;

Result<uint64_t> ParseUnsigned(std::string_view key, std::string_view value) {
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || ptr != value.data() + value.size()) {
    return Status::InvalidArgument("device spec: " + std::string(key) + "=" +
                                   std::string(value) + " is not a non-negative integer");
  }
  return v;
}

Result<double> ParseDouble(std::string_view key, std::string_view value) {
  // from_chars for double is available in GCC 11+, but keep strtod for portability.
  std::string s(value);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno != 0 || !(v >= 0)) {
    return Status::InvalidArgument("device spec: " + std::string(key) + "=" + s +
                                   " is not a non-negative number");
  }
  return v;
}

Result<uint32_t> ToU32(std::string_view key, uint64_t v) {
  if (v > UINT32_MAX) {
    return Status::InvalidArgument("device spec: " + std::string(key) + " is too large");
  }
  return static_cast<uint32_t>(v);
}

// v units of `unit` bytes; a product past 2^64 is refused, not wrapped (found writing the
// fuzz target fuzz/device_spec_fuzz.cc, whose 128-bit oracle flags it:
// zone_mib=17592186044417 meant 1 MiB).
Result<uint64_t> ToBytes(std::string_view key, uint64_t v, uint64_t unit) {
  if (v > UINT64_MAX / unit) {
    return Status::InvalidArgument("device spec: " + std::string(key) + "=" + std::to_string(v) +
                                   " is too large");
  }
  return v * unit;
}

Status ApplyKey(DeviceSpec* spec, const std::string& key, std::string_view value) {
  EmulatedGeometry& g = spec->geometry;
  if (key == "drop_kib") {
    SMR_ASSIGN_OR_RETURN(uint64_t kib, ParseUnsigned(key, value));
    SMR_ASSIGN_OR_RETURN(spec->timing.drop_piece_bytes, ToBytes(key, kib, kKiB));
    if (kib == 0) {
      return Status::InvalidArgument("device spec: drop_kib=0 (leave the key out to keep "
                                     "every write)");
    }
    return Status::OK();
  }
  if (key == "direct") {
    if (value != "0" && value != "1") {
      return Status::InvalidArgument("device spec: direct=" + std::string(value) +
                                     " is neither 1 (O_DIRECT writes) nor 0");
    }
    spec->timing.direct_writes = value == "1";
    return Status::OK();
  }
  if (key == "direct_reads") {
    if (value != "0" && value != "1") {
      return Status::InvalidArgument("device spec: direct_reads=" + std::string(value) +
                                     " is neither 1 (O_DIRECT reads) nor 0");
    }
    spec->timing.direct_reads = value == "1";
    return Status::OK();
  }
  if (key == "mbps" || key == "seek_ms") {
    SMR_ASSIGN_OR_RETURN(double d, ParseDouble(key, value));
    (key == "mbps" ? spec->timing.seq_mbps : spec->timing.seek_ms) = d;
    return Status::OK();
  }
  if (key == "realm_init") {
    if (value == "cmr") {
      g.initial_domain = ZoneDomain::kCmr;
    } else if (value == "smr") {
      g.initial_domain = ZoneDomain::kSmr;
    } else {
      return Status::InvalidArgument("device spec: realm_init=" + std::string(value) +
                                     " is neither cmr nor smr");
    }
    if (!spec->given.insert(key).second) {
      return Status::InvalidArgument("device spec: '" + key + "' given twice");
    }
    return Status::OK();
  }
  SMR_ASSIGN_OR_RETURN(uint64_t v, ParseUnsigned(key, value));
  if (key == "zones") {
    SMR_ASSIGN_OR_RETURN(g.nr_zones, ToU32(key, v));
  } else if (key == "zone_mib" || key == "zone_kib") {
    SMR_ASSIGN_OR_RETURN(g.zone_size, ToBytes(key, v, key == "zone_mib" ? kMiB : kKiB));
  } else if (key == "cap_mib" || key == "cap_kib") {
    SMR_ASSIGN_OR_RETURN(g.zone_capacity, ToBytes(key, v, key == "cap_mib" ? kMiB : kKiB));
    if (v == 0) return Status::InvalidArgument("device spec: zone capacity must be > 0");
  } else if (key == "conv") {
    SMR_ASSIGN_OR_RETURN(g.nr_conventional, ToU32(key, v));
  } else if (key == "max_open") {
    SMR_ASSIGN_OR_RETURN(g.max_open_zones, ToU32(key, v));
  } else if (key == "max_active") {
    SMR_ASSIGN_OR_RETURN(g.max_active_zones, ToU32(key, v));
  } else if (key == "lbs") {
    SMR_ASSIGN_OR_RETURN(g.logical_block_size, ToU32(key, v));
  } else if (key == "realms") {
    SMR_ASSIGN_OR_RETURN(g.nr_realms, ToU32(key, v));
  } else if (key == "realm_cmr") {
    SMR_ASSIGN_OR_RETURN(g.cmr_zones_per_realm, ToU32(key, v));
  } else if (key == "realm_smr") {
    SMR_ASSIGN_OR_RETURN(g.smr_zones_per_realm, ToU32(key, v));
  } else if (key == "convert_ms") {
    SMR_ASSIGN_OR_RETURN(g.conversion_ms, ToU32(key, v));
  } else {
    return Status::InvalidArgument(
        "device spec: unknown key '" + key +
        "' (known: zones, zone_mib, zone_kib, cap_mib, cap_kib, conv, max_open, max_active, "
        "lbs, mbps, seek_ms, drop_kib, direct, direct_reads, realms, realm_cmr, realm_smr, convert_ms, realm_init)");
  }
  // Both spellings of a size name one setting.
  std::string canonical = key;
  if (key == "zone_kib") canonical = "zone_mib";
  if (key == "cap_kib") canonical = "cap_mib";
  if (!spec->given.insert(canonical).second) {
    return Status::InvalidArgument("device spec: '" + key + "' given twice");
  }
  return Status::OK();
}

std::string SizeKey(const char* base, uint64_t bytes) {
  if (bytes % kMiB == 0) return std::string(base) + "_mib=" + std::to_string(bytes / kMiB);
  return std::string(base) + "_kib=" + std::to_string(bytes / kKiB);
}

// The shortest text strtod reads back as exactly `v`: the 6-decimal form when it is exact
// (150, 8.5), else %.<n>g with the fewest digits that are (found by fuzzing: mbps=1e-9
// printed as "mbps=0", which turns the timing model off).
std::string FormatNumber(double v) {
  std::string s = std::to_string(v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (std::strtod(s.c_str(), nullptr) == v) return s;
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// Compares the geometry keys given in `spec` with an opened drive's geometry.
Status CheckGivenGeometry(const DeviceSpec& spec, const EmulatedGeometry& actual) {
  EmulatedGeometry want = spec.geometry;
  auto mismatch = [&](const char* key, uint64_t w, uint64_t a) {
    return Status::InvalidArgument(spec.path + ": spec says " + key + "=" + std::to_string(w) +
                                   " but the drive has " + std::to_string(a));
  };
  const auto& g = spec.given;
  if (g.count("zones") && want.nr_zones != actual.nr_zones) {
    return mismatch("zones", want.nr_zones, actual.nr_zones);
  }
  if (g.count("zone_mib") && want.zone_size != actual.zone_size) {
    return mismatch("zone size (bytes)", want.zone_size, actual.zone_size);
  }
  if (g.count("cap_mib") && want.zone_capacity != actual.zone_capacity) {
    return mismatch("zone capacity (bytes)", want.zone_capacity, actual.zone_capacity);
  }
  if (g.count("conv") && want.nr_conventional != actual.nr_conventional) {
    return mismatch("conv", want.nr_conventional, actual.nr_conventional);
  }
  if (g.count("max_open") && want.max_open_zones != actual.max_open_zones) {
    return mismatch("max_open", want.max_open_zones, actual.max_open_zones);
  }
  if (g.count("max_active") && want.max_active_zones != actual.max_active_zones) {
    return mismatch("max_active", want.max_active_zones, actual.max_active_zones);
  }
  if (g.count("lbs") && want.logical_block_size != actual.logical_block_size) {
    return mismatch("lbs", want.logical_block_size, actual.logical_block_size);
  }
  if (g.count("realms") && want.nr_realms != actual.nr_realms) {
    return mismatch("realms", want.nr_realms, actual.nr_realms);
  }
  // The other hybrid keys need realms=N > 0 (Parse), so `actual` is hybrid here.
  if (g.count("realm_cmr") && want.cmr_zones_per_realm != actual.cmr_zones_per_realm) {
    return mismatch("realm_cmr", want.cmr_zones_per_realm, actual.cmr_zones_per_realm);
  }
  if (g.count("realm_smr") && want.smr_zones_per_realm != actual.smr_zones_per_realm) {
    return mismatch("realm_smr", want.smr_zones_per_realm, actual.smr_zones_per_realm);
  }
  if (g.count("convert_ms") && want.conversion_ms != actual.conversion_ms) {
    return mismatch("convert_ms", want.conversion_ms, actual.conversion_ms);
  }
  if (g.count("realm_init") && want.initial_domain != actual.initial_domain) {
    return Status::InvalidArgument(spec.path + ": spec says realm_init=" +
                                   ZoneDomainName(want.initial_domain) +
                                   " but the drive was created with " +
                                   ZoneDomainName(actual.initial_domain));
  }
  return Status::OK();
}

}  // namespace

Result<DeviceSpec> DeviceSpec::Parse(std::string_view text) {
  DeviceSpec spec;
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return Status::InvalidArgument("device spec '" + std::string(text) +
                                   "' has no scheme (use emu:PATH?... or zbd:/dev/NODE)");
  }
  const std::string_view scheme = text.substr(0, colon);
  std::string_view rest = text.substr(colon + 1);
  if (scheme == "emu") {
    spec.kind = Kind::kEmulated;
  } else if (scheme == "zbd") {
    spec.kind = Kind::kZbd;
  } else {
    return Status::InvalidArgument("device spec: unknown scheme '" + std::string(scheme) +
                                   "' (use emu: or zbd:)");
  }
  const size_t q = rest.find('?');
  spec.path = std::string(rest.substr(0, q));
  if (spec.path.empty()) return Status::InvalidArgument("device spec: empty path");
  if (q != std::string_view::npos && spec.kind == Kind::kZbd) {
    return Status::InvalidArgument("device spec: zbd: devices take no options");
  }
  if (spec.kind == Kind::kZbd) return spec;
  std::string_view query = q == std::string_view::npos ? std::string_view() : rest.substr(q + 1);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view kv = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const size_t eq = kv.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return Status::InvalidArgument("device spec: '" + std::string(kv) +
                                     "' is not key=value");
    }
    SMR_RETURN_IF_ERROR(ApplyKey(&spec, std::string(kv.substr(0, eq)), kv.substr(eq + 1)));
  }
  if (spec.geometry.nr_realms == 0) {
    for (const char* key : {"realm_cmr", "realm_smr", "convert_ms", "realm_init"}) {
      if (spec.given.count(key)) {
        return Status::InvalidArgument(std::string("device spec: ") + key +
                                       " applies to hybrid drives only (give realms=N > 0)");
      }
    }
  }
  if (spec.timing.direct_reads && !spec.timing.direct_writes) {
    return Status::InvalidArgument("device spec: direct_reads=1 needs direct=1");
  }
  EmulatedGeometry check = spec.geometry;
  SMR_RETURN_IF_ERROR(check.Normalize().WithContext("device spec"));
  // The zone count the drive gets: 64, or derived from the realms of a hybrid drive.
  if (!spec.given.count("zones")) spec.geometry.nr_zones = check.nr_zones;
  return spec;
}

std::string DeviceSpec::ToString() const {
  if (kind == Kind::kZbd) return "zbd:" + path;
  std::string out = "emu:" + path;
  std::vector<std::string> parts;
  const EmulatedGeometry& g = geometry;
  if (given.count("zones")) parts.push_back("zones=" + std::to_string(g.nr_zones));
  if (given.count("zone_mib")) parts.push_back(SizeKey("zone", g.zone_size));
  if (given.count("cap_mib")) parts.push_back(SizeKey("cap", g.zone_capacity));
  if (given.count("conv")) parts.push_back("conv=" + std::to_string(g.nr_conventional));
  if (given.count("max_open")) parts.push_back("max_open=" + std::to_string(g.max_open_zones));
  if (given.count("max_active")) {
    parts.push_back("max_active=" + std::to_string(g.max_active_zones));
  }
  if (given.count("lbs")) parts.push_back("lbs=" + std::to_string(g.logical_block_size));
  if (given.count("realms")) parts.push_back("realms=" + std::to_string(g.nr_realms));
  if (given.count("realm_cmr")) {
    parts.push_back("realm_cmr=" + std::to_string(g.cmr_zones_per_realm));
  }
  if (given.count("realm_smr")) {
    parts.push_back("realm_smr=" + std::to_string(g.smr_zones_per_realm));
  }
  if (given.count("convert_ms")) parts.push_back("convert_ms=" + std::to_string(g.conversion_ms));
  if (given.count("realm_init")) {
    parts.push_back(std::string("realm_init=") + ZoneDomainName(g.initial_domain));
  }
  if (timing.seq_mbps > 0) parts.push_back("mbps=" + FormatNumber(timing.seq_mbps));
  if (timing.seek_ms > 0) parts.push_back("seek_ms=" + FormatNumber(timing.seek_ms));
  if (timing.drop_piece_bytes > 0) {
    parts.push_back("drop_kib=" + std::to_string(timing.drop_piece_bytes / kKiB));
  }
  if (timing.direct_writes) parts.push_back("direct=1");
  if (timing.direct_reads) parts.push_back("direct_reads=1");
  for (size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "?" : "&") + parts[i];
  return out;
}

Result<std::unique_ptr<ZonedDevice>> OpenDevice(std::string_view text) {
  SMR_ASSIGN_OR_RETURN(DeviceSpec spec, DeviceSpec::Parse(text));
  if (spec.kind == DeviceSpec::Kind::kZbd) {
#ifdef SMRSTORE_HAVE_LIBZBD
    return OpenLibzbdDevice(spec.path);
#else
    return Status::NotSupported("this build has no libzbd backend (install libzbd-dev and "
                                "rebuild) for " + spec.path);
#endif
  }
  SMR_ASSIGN_OR_RETURN(auto dev, EmulatedZonedDevice::Open(spec.path, spec.timing));
  SMR_RETURN_IF_ERROR(CheckGivenGeometry(spec, dev->geometry()));
  return std::unique_ptr<ZonedDevice>(std::move(dev));
}

Result<std::unique_ptr<ZonedDevice>> CreateDevice(std::string_view text) {
  SMR_ASSIGN_OR_RETURN(DeviceSpec spec, DeviceSpec::Parse(text));
  if (spec.kind == DeviceSpec::Kind::kZbd) {
    return Status::NotSupported("zbd:" + spec.path +
                                " is a kernel device; only emu: drives can be created");
  }
  SMR_ASSIGN_OR_RETURN(auto dev,
                       EmulatedZonedDevice::Create(spec.path, spec.geometry, spec.timing));
  return std::unique_ptr<ZonedDevice>(std::move(dev));
}

bool HaveLibzbd() {
#ifdef SMRSTORE_HAVE_LIBZBD
  return true;
#else
  return false;
#endif
}

}  // namespace smr
