// The store's option table (store/options.def): one row per StoreOptions field with its
// name, type, default, scope (mkfs or mount), range and one-line help. Everything that
// reads or writes options as text goes through it: the store's own encoding of the options
// it was made with, smrstore.conf (objectstore/smrstore_settings.cc), smrstore-tool mkfs
// and bench (--opt KEY=VALUE), and doc/options.md (RenderOptionsMarkdown).
//
// Errors (kInvalidArgument, nothing changed): an unknown key names the key and the nearest
// valid names; a value of the wrong type or outside the range names the option, the value
// and what is expected.
// Thread safety: the table is immutable; the functions are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "gc/victim_policy.h"

namespace smr {

struct StoreOptions;

enum class OptionType { kU32, kU64, kDouble, kBool, kAutoBool, kPolicy, kEnum, kString };
enum class OptionScope { kMkfs, kMount };
// kClosed [lo, hi]; kHalfOpen [lo, hi); kZeroOr: 0 or [lo, hi]; kBlock: a multiple of
// 4096 in [lo, hi].
enum class OptionRange { kNone, kClosed, kHalfOpen, kZeroOr, kBlock };

struct OptionSpec {
  std::string name;
  OptionType type;
  OptionScope scope;
  double lo, hi;
  OptionRange range;
  std::string help;
  std::string default_text;  // as the text parser takes it
  std::string choices;       // kEnum: "a / b / c"; else empty
};

// The rows of store/options.def, in its order.
const std::vector<OptionSpec>& StoreOptionSpecs();
// The row named `name`; nullptr when there is none.
const OptionSpec* FindOptionSpec(const std::vector<OptionSpec>& specs, const std::string& name);

// "unknown key 'KEY' (nearest: a, b, c; all: doc/options.md)" — up to three names
// nearest by edit distance.
Status UnknownOption(const std::vector<OptionSpec>& specs, const std::string& key);

// Sets option `key` of `o` from `value` (range checked); on error `o` is unchanged.
Status SetStoreOption(StoreOptions* o, const std::string& key, const std::string& value);
// Option `key` of `o` as text SetStoreOption takes back unchanged.
Result<std::string> GetStoreOption(const StoreOptions& o, const std::string& key);
// Every option of `o` by table row.
bool StoreOptionsEqual(const StoreOptions& a, const StoreOptions& b);

// Per-option ranges (for values set in code) and the cross-option rules:
// 0 <= gc_urgent_free <= gc_start_free <= gc_stop_free < 1; hybrid_shrink_free 0 or at
// least hybrid_convert_free + 0.1.
Status ValidateStoreOptions(const StoreOptions& o);

// "key=value\n" per row, booleans as 1/0 (the store keeps the options it was made with
// this way), and back: an unknown key or bad value in stored options is kCorruption naming
// it ("stored store options are invalid: ..."); keys absent take their defaults; a line
// without '=' is skipped.
std::string EncodeStoreOptions(const StoreOptions& o);
Result<StoreOptions> DecodeStoreOptions(const std::string& text);

// Typed text parsers shared with the other option tables (the OSD adapter's mount
// settings); each checks `spec`'s range and names the option in its error.
Status ParseOptionValue(const OptionSpec& spec, const std::string& value, uint32_t* out);
Status ParseOptionValue(const OptionSpec& spec, const std::string& value, uint64_t* out);
Status ParseOptionValue(const OptionSpec& spec, const std::string& value, double* out);
Status ParseOptionValue(const OptionSpec& spec, const std::string& value, bool* out);
Status ParseOptionValue(const OptionSpec& spec, const std::string& value,
                        std::optional<bool>* out);
Status ParseOptionValue(const OptionSpec& spec, const std::string& value, VictimPolicy* out);
Status ParseOptionValue(const OptionSpec& spec, const std::string& value, std::string* out);

// A markdown table of `specs` (name, type, default, scope, range, help) under `title`.
std::string RenderOptionsMarkdown(const std::string& title, const std::vector<OptionSpec>& specs);
// The type and range of a row in words ("integer in [1, 65536]", "true | false", ...).
std::string OptionTypeText(const OptionSpec& spec);
std::string OptionRangeText(const OptionSpec& spec);

}  // namespace smr
