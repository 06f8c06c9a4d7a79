// Fuzz target: the device-spec parser (DeviceSpec::Parse, device/device_spec.h). The input is
// a spec string ("emu:PATH?key=value&..." / "zbd:/dev/NODE"). Parse never touches the file
// system, so any string is safe to feed.
// Properties, when Parse accepts:
//   * the canonical form round-trips: Parse(ToString()) has the same kind, path, given keys
//     and geometry, and ToString() is a fixed point (ToString(Parse(ToString())) ==
//     ToString()); timing values are exactly the same;
//   * each size key's value, as written in the input, times its unit equals the parsed
//     size (checked in 128-bit arithmetic: a value that does not fit must be refused, not
//     wrapped); each count key equals the parsed count (the hybrid keys realms, realm_cmr,
//     realm_smr, convert_ms too); realm_init=cmr|smr names the parsed initial domain, and
//     the hybrid-only keys are accepted only with realms > 0;
//   * the geometry of an accepted spec normalizes (EmulatedGeometry::Normalize is ok).
#include <cstdint>
#include <string>
#include <string_view>

#include "device/device_spec.h"
#include "fuzz_check.h"

namespace {

using namespace smr;

// Decimal digits as a 128-bit number; false when not all digits or more than 38
// significant digits (from_chars, which Parse uses, accepts leading zeros).
bool Digits128(std::string_view s, unsigned __int128* v) {
  if (s.empty()) return false;
  while (s.size() > 1 && s.front() == '0') s.remove_prefix(1);
  if (s.size() > 38) return false;
  *v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    *v = *v * 10 + static_cast<unsigned>(c - '0');
  }
  return true;
}

void CheckValuesAsWritten(std::string_view text, const DeviceSpec& spec) {
  const size_t q = text.find('?');
  if (q == std::string_view::npos) return;
  std::string_view query = text.substr(q + 1);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view kv = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const size_t eq = kv.find('=');
    FUZZ_CHECK(eq != std::string_view::npos);
    const std::string_view key = kv.substr(0, eq);
    unsigned __int128 v = 0;
    if (key == "mbps" || key == "seek_ms" || key == "drop_kib") continue;
    if (key == "direct" || key == "direct_reads") {
      const std::string_view value = kv.substr(eq + 1);
      FUZZ_CHECK(value == "0" || value == "1");
      continue;  // the last one given counts
    }
    if (key == "realm_init") {
      const std::string_view value = kv.substr(eq + 1);
      FUZZ_CHECK(value == "cmr" || value == "smr");
      FUZZ_CHECK(spec.geometry.initial_domain ==
                 (value == "cmr" ? ZoneDomain::kCmr : ZoneDomain::kSmr));
      FUZZ_CHECK(spec.geometry.nr_realms > 0);
      continue;
    }
    FUZZ_CHECK(Digits128(kv.substr(eq + 1), &v));
    const EmulatedGeometry& g = spec.geometry;
    const unsigned __int128 kib = 1024, mib = 1024 * 1024;
    if (key == "zone_mib") FUZZ_CHECK(v * mib == g.zone_size);
    if (key == "zone_kib") FUZZ_CHECK(v * kib == g.zone_size);
    if (key == "cap_mib") FUZZ_CHECK(v * mib == g.zone_capacity);
    if (key == "cap_kib") FUZZ_CHECK(v * kib == g.zone_capacity);
    if (key == "zones") FUZZ_CHECK(v == g.nr_zones);
    if (key == "conv") FUZZ_CHECK(v == g.nr_conventional);
    if (key == "max_open") FUZZ_CHECK(v == g.max_open_zones);
    if (key == "max_active") FUZZ_CHECK(v == g.max_active_zones);
    if (key == "lbs") FUZZ_CHECK(v == g.logical_block_size);
    if (key == "realms") FUZZ_CHECK(v == g.nr_realms);
    if (key == "realm_cmr") FUZZ_CHECK(v == g.cmr_zones_per_realm && g.nr_realms > 0);
    if (key == "realm_smr") FUZZ_CHECK(v == g.smr_zones_per_realm && g.nr_realms > 0);
    if (key == "convert_ms") FUZZ_CHECK(v == g.conversion_ms && g.nr_realms > 0);
  }
}

bool SameGeometry(const EmulatedGeometry& a, const EmulatedGeometry& b) {
  return a.nr_zones == b.nr_zones && a.zone_size == b.zone_size &&
         a.zone_capacity == b.zone_capacity && a.nr_conventional == b.nr_conventional &&
         a.logical_block_size == b.logical_block_size && a.max_open_zones == b.max_open_zones &&
         a.max_active_zones == b.max_active_zones && a.nr_realms == b.nr_realms &&
         a.cmr_zones_per_realm == b.cmr_zones_per_realm &&
         a.smr_zones_per_realm == b.smr_zones_per_realm && a.conversion_ms == b.conversion_ms &&
         a.initial_domain == b.initial_domain;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Result<DeviceSpec> spec = DeviceSpec::Parse(text);
  if (!spec.ok()) {
    FUZZ_CHECK(spec.status().IsInvalidArgument());
    return 0;
  }
  FUZZ_CHECK(!spec->path.empty());
  FUZZ_CHECK(spec->path.find('?') == std::string::npos);
  if (spec->kind == DeviceSpec::Kind::kEmulated) {
    CheckValuesAsWritten(text, *spec);
    EmulatedGeometry g = spec->geometry;
    FUZZ_CHECK(g.Normalize().ok());
  }
  const std::string canon = spec->ToString();
  Result<DeviceSpec> again = DeviceSpec::Parse(canon);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->kind == spec->kind);
  FUZZ_CHECK(again->path == spec->path);
  FUZZ_CHECK(again->given == spec->given);
  FUZZ_CHECK(SameGeometry(again->geometry, spec->geometry));
  FUZZ_CHECK(again->timing.seq_mbps == spec->timing.seq_mbps);
  FUZZ_CHECK(again->timing.seek_ms == spec->timing.seek_ms);
  FUZZ_CHECK(again->timing.drop_piece_bytes == spec->timing.drop_piece_bytes);
  FUZZ_CHECK(again->timing.direct_writes == spec->timing.direct_writes);
  FUZZ_CHECK(again->timing.direct_reads == spec->timing.direct_reads);
  FUZZ_CHECK(again->ToString() == canon);
  return 0;
}
