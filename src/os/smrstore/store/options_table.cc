// The store's option table (options_table.h), built from store/options.def.
#include "store/options_table.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "store/store.h"

namespace smr {

namespace {

[[maybe_unused]] constexpr OptionType kTypeU32 = OptionType::kU32;
[[maybe_unused]] constexpr OptionType kTypeDouble = OptionType::kDouble;
[[maybe_unused]] constexpr OptionType kTypeBool = OptionType::kBool;
[[maybe_unused]] constexpr OptionType kTypeAutoBool = OptionType::kAutoBool;
[[maybe_unused]] constexpr OptionType kTypePolicy = OptionType::kPolicy;
[[maybe_unused]] constexpr OptionScope kScopeMkfs = OptionScope::kMkfs;
[[maybe_unused]] constexpr OptionScope kScopeMount = OptionScope::kMount;
[[maybe_unused]] constexpr OptionRange kRangeNone = OptionRange::kNone;
[[maybe_unused]] constexpr OptionRange kRangeClosed = OptionRange::kClosed;
[[maybe_unused]] constexpr OptionRange kRangeHalfOpen = OptionRange::kHalfOpen;
[[maybe_unused]] constexpr OptionRange kRangeZeroOr = OptionRange::kZeroOr;
[[maybe_unused]] constexpr OptionRange kRangeBlock = OptionRange::kBlock;

std::string Num(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e18) return std::to_string(static_cast<long long>(v));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // The shortest text that reads back as the same double.
  for (int prec = 1; prec <= 17; ++prec) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*g", prec, v);
    if (std::strtod(b, nullptr) == v) return b;
  }
  return buf;
}

std::string Format(uint32_t v) { return std::to_string(v); }
std::string Format(double v) { return Num(v); }
std::string Format(bool v) { return v ? "true" : "false"; }
std::string Format(const std::optional<bool>& v) { return !v ? "auto" : Format(*v); }
std::string Format(VictimPolicy v) { return VictimPolicyName(v); }

Status Bad(const OptionSpec& spec, const std::string& value, const std::string& expected) {
  return Status::InvalidArgument(spec.name + " = '" + value + "': expected " + expected);
}

// Whether `v` lies in `spec`'s range.
bool InRange(const OptionSpec& spec, double v) {
  switch (spec.range) {
    case OptionRange::kNone: return true;
    case OptionRange::kClosed: return v >= spec.lo && v <= spec.hi;
    case OptionRange::kHalfOpen: return v >= spec.lo && v < spec.hi;
    case OptionRange::kZeroOr: return v == 0 || (v >= spec.lo && v <= spec.hi);
    case OptionRange::kBlock:
      return v >= spec.lo && v <= spec.hi && std::fmod(v, 4096.0) == 0;
  }
  return false;
}

Status ParseUnsigned(const OptionSpec& spec, const std::string& value, uint64_t max,
                     uint64_t* out) {
  const std::string expected = OptionTypeText(spec);
  if (value.empty() || value.find_first_not_of("0123456789KMGkmg") != std::string::npos ||
      !std::isdigit(static_cast<unsigned char>(value[0]))) {
    return Bad(spec, value, expected);
  }
  size_t digits = value.find_first_not_of("0123456789");
  if (digits == std::string::npos) digits = value.size();
  if (digits > 19 || value.size() - digits > 1) return Bad(spec, value, expected);
  errno = 0;
  uint64_t v = std::strtoull(value.substr(0, digits).c_str(), nullptr, 10);
  if (errno != 0) return Bad(spec, value, expected);
  if (digits < value.size()) {
    const int shift = std::string("KMG").find(static_cast<char>(std::toupper(value[digits]))) * 10 + 10;
    if (v > (max >> shift)) return Bad(spec, value, expected);
    v <<= shift;
  }
  if (v > max || !InRange(spec, static_cast<double>(v))) return Bad(spec, value, expected);
  *out = v;
  return Status::OK();
}

// Levenshtein distance (for the nearest names of an unknown key).
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

const std::vector<OptionSpec>& StoreOptionSpecs() {
  static const std::vector<OptionSpec> specs = [] {
    const StoreOptions d;
    std::vector<OptionSpec> v;
#define SMR_OPTION(name, type, def, scope, lo, hi, range, help) \
  v.push_back(OptionSpec{#name, kType##type, kScope##scope, lo, hi, kRange##range, help, Format(d.name), ""});
#include "store/options.def"
#undef SMR_OPTION
    return v;
  }();
  return specs;
}

const OptionSpec* FindOptionSpec(const std::vector<OptionSpec>& specs, const std::string& name) {
  for (const OptionSpec& s : specs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Status UnknownOption(const std::vector<OptionSpec>& specs, const std::string& key) {
  std::vector<std::pair<size_t, std::string>> near;
  for (const OptionSpec& s : specs) near.emplace_back(EditDistance(key, s.name), s.name);
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string names;
  for (size_t i = 0; i < near.size() && i < 3; ++i) names += (i ? ", " : "") + near[i].second;
  return Status::InvalidArgument("unknown key '" + key + "' (nearest: " + names +
                                 "; all: doc/options.md)");
}

Status ParseOptionValue(const OptionSpec& spec, const std::string& value, uint32_t* out) {
  uint64_t v = 0;
  SMR_RETURN_IF_ERROR(ParseUnsigned(spec, value, UINT32_MAX, &v));
  *out = static_cast<uint32_t>(v);
  return Status::OK();
}

Status ParseOptionValue(const OptionSpec& spec, const std::string& value, uint64_t* out) {
  return ParseUnsigned(spec, value, UINT64_MAX, out);
}

Status ParseOptionValue(const OptionSpec& spec, const std::string& value, double* out) {
  if (value.empty() || value.find_first_not_of("0123456789.eE+-") != std::string::npos) {
    return Bad(spec, value, OptionTypeText(spec));
  }
  char* end = nullptr;
  errno = 0;
  const double d = std::strtod(value.c_str(), &end);
  if (errno != 0 || end != value.c_str() + value.size() || !std::isfinite(d) ||
      !InRange(spec, d)) {
    return Bad(spec, value, OptionTypeText(spec));
  }
  *out = d;
  return Status::OK();
}

Status ParseOptionValue(const OptionSpec& spec, const std::string& value, bool* out) {
  if (value == "true" || value == "yes" || value == "on" || value == "1") return *out = true, Status::OK();
  if (value == "false" || value == "no" || value == "off" || value == "0") return *out = false, Status::OK();
  return Bad(spec, value, OptionTypeText(spec));
}

Status ParseOptionValue(const OptionSpec& spec, const std::string& value,
                        std::optional<bool>* out) {
  if (value == "auto") return out->reset(), Status::OK();
  bool on = false;
  if (!ParseOptionValue(spec, value, &on).ok()) return Bad(spec, value, OptionTypeText(spec));
  *out = on;
  return Status::OK();
}

Status ParseOptionValue(const OptionSpec& spec, const std::string& value, VictimPolicy* out) {
  auto p = ParseVictimPolicy(value);
  if (!p.ok()) return Bad(spec, value, OptionTypeText(spec));
  *out = *p;
  return Status::OK();
}

Status ParseOptionValue(const OptionSpec& spec, const std::string& value, std::string* out) {
  if (!spec.choices.empty()) {
    std::istringstream in(spec.choices);
    std::string c;
    bool found = false;
    while (in >> c) found = found || (c != "/" && c == value);
    if (!found) return Bad(spec, value, OptionTypeText(spec));
  } else if (value.empty() || value.find_first_of(" \t/") != std::string::npos) {
    return Bad(spec, value, OptionTypeText(spec));
  }
  *out = value;
  return Status::OK();
}

Status SetStoreOption(StoreOptions* o, const std::string& key, const std::string& value) {
  const auto& specs = StoreOptionSpecs();
#define SMR_OPTION(name, type, def, scope, lo, hi, range, help)                        \
  if (key == #name) {                                                                  \
    auto v = o->name;                                                                  \
    SMR_RETURN_IF_ERROR(ParseOptionValue(*FindOptionSpec(specs, #name), value, &v));   \
    o->name = v;                                                                       \
    return Status::OK();                                                               \
  }
#include "store/options.def"
#undef SMR_OPTION
  return UnknownOption(specs, key);
}

Result<std::string> GetStoreOption(const StoreOptions& o, const std::string& key) {
#define SMR_OPTION(name, type, def, scope, lo, hi, range, help) \
  if (key == #name) return Format(o.name);
#include "store/options.def"
#undef SMR_OPTION
  return UnknownOption(StoreOptionSpecs(), key);
}

bool StoreOptionsEqual(const StoreOptions& a, const StoreOptions& b) {
#define SMR_OPTION(name, type, def, scope, lo, hi, range, help) \
  if (!(a.name == b.name)) return false;
#include "store/options.def"
#undef SMR_OPTION
  return true;
}

Status ValidateStoreOptions(const StoreOptions& o) {
  // The cross-option rules first: their messages name the whole rule.
  if (!(o.gc_urgent_free >= 0 && o.gc_urgent_free <= o.gc_start_free &&
        o.gc_start_free <= o.gc_stop_free && o.gc_stop_free < 1)) {
    return Status::InvalidArgument("GC watermarks must satisfy 0 <= urgent <= start <= stop < 1");
  }
  if (!(o.hybrid_shrink_free == 0 ||
        (o.hybrid_shrink_free >= o.hybrid_convert_free + 0.1 && o.hybrid_shrink_free < 1))) {
    return Status::InvalidArgument(
        "hybrid_shrink_free must be 0 (never convert back to CMR) or at least "
        "hybrid_convert_free + 0.1 and below 1");
  }
  for (const OptionSpec& spec : StoreOptionSpecs()) {
    if (spec.range == OptionRange::kNone) continue;
    const std::string text = *GetStoreOption(o, spec.name);
    const double v = std::strtod(text.c_str(), nullptr);
    if (!InRange(spec, v)) {
      return Status::InvalidArgument(spec.name + " = " + text + ": expected " +
                                     OptionTypeText(spec));
    }
  }
  return Status::OK();
}

std::string EncodeStoreOptions(const StoreOptions& o) {
  std::string out;
  for (const OptionSpec& spec : StoreOptionSpecs()) {
    std::string v = *GetStoreOption(o, spec.name);
    // Booleans as 1/0, as stores have always kept them.
    if (v == "true" || v == "false") v = v == "true" ? "1" : "0";
    out += spec.name + "=" + v + "\n";
  }
  return out;
}

Result<StoreOptions> DecodeStoreOptions(const std::string& text) {
  StoreOptions o;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    // A line without '=' (damage, or a newer version's note) is skipped, not read as a key.
    if (eq == std::string::npos) continue;
    Status s = SetStoreOption(&o, line.substr(0, eq), line.substr(eq + 1));
    if (!s.ok()) return Status::Corruption("stored store options are invalid: " + s.message());
  }
  Status s = ValidateStoreOptions(o);
  if (!s.ok()) return Status::Corruption("stored store options are invalid: " + s.message());
  return o;
}

std::string OptionTypeText(const OptionSpec& spec) {
  std::string r = OptionRangeText(spec);
  switch (spec.type) {
    case OptionType::kU32:
    case OptionType::kU64:
      return "an integer (K/M/G suffixes: binary multiples)" + (r.empty() ? "" : ", " + r);
    case OptionType::kDouble: return "a number" + (r.empty() ? "" : ", " + r);
    case OptionType::kBool: return "true or false";
    case OptionType::kAutoBool: return "auto, true or false";
    case OptionType::kPolicy: return "greedy, cost-benefit or lifetime";
    case OptionType::kEnum: return "one of " + spec.choices;
    case OptionType::kString: return "a name without spaces or '/'";
  }
  return "";
}

std::string OptionRangeText(const OptionSpec& spec) {
  const std::string lo = Num(spec.lo), hi = Num(spec.hi);
  switch (spec.range) {
    case OptionRange::kNone: return "";
    case OptionRange::kClosed: return "in [" + lo + ", " + hi + "]";
    case OptionRange::kHalfOpen: return "in [" + lo + ", " + hi + ")";
    case OptionRange::kZeroOr: return "0 or in [" + lo + ", " + hi + "]";
    case OptionRange::kBlock: return "a multiple of 4096 in [" + lo + ", " + hi + "]";
  }
  return "";
}

std::string RenderOptionsMarkdown(const std::string& title, const std::vector<OptionSpec>& specs) {
  auto type_name = [](const OptionSpec& s) -> std::string {
    switch (s.type) {
      case OptionType::kU32: return "u32";
      case OptionType::kU64: return "u64";
      case OptionType::kDouble: return "fraction";
      case OptionType::kBool: return "bool";
      case OptionType::kAutoBool: return "auto/bool";
      case OptionType::kPolicy: return "greedy / cost-benefit / lifetime";
      case OptionType::kEnum: return s.choices;
      case OptionType::kString: return "name";
    }
    return "";
  };
  std::string out = "## " + title + "\n\n| option | type | default | scope | range | help |\n"
                    "|---|---|---|---|---|---|\n";
  for (const OptionSpec& s : specs) {
    std::string range = OptionRangeText(s);
    out += "| `" + s.name + "` | " + type_name(s) + " | `" + s.default_text + "` | " +
           (s.scope == OptionScope::kMkfs ? "mkfs" : "mount") + " | " +
           (range.empty() ? "—" : range) + " | " + s.help + " |\n";
  }
  return out;
}

}  // namespace smr
