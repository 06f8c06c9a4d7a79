// JSON for the engine and the tools: nlohmann::json (Debian's nlohmann-json3-dev) for every
// document smrstore reads or writes, plus the few rules smrstore adds on top of it.
//
// Contract
//   ParseJson(text): the whole of `text` is one JSON value (whitespace around it allowed,
//     and a UTF-8 byte order mark as its very first bytes, as RFC 8259 lets a reader do),
//     nested at most kMaxJsonDepth objects/arrays deep (the stats document nests 4, a
//     trace capture 3; the cap keeps a hostile file from costing unbounded memory and time),
//     and no object names a member twice (RFC 8259 leaves the meaning open: refused).
//     Errors are kCorruption naming what is wrong and, where the library tells it, the byte:
//     "JSON: <reason>" — never an exception.
//   FlattenJson(value): one (path, text) pair per scalar, in document order: object members
//     as "a.b", array items as "a[0]"; strings unquoted (raw bytes), numbers, booleans and
//     null as JSON prints them. Empty objects and arrays give no pair.
//   JsonEscape(s): `s` as the inside of a JSON string literal (no quotes), with the
//     library's escaping; bytes that are not UTF-8 become U+FFFD so that the output is
//     always valid JSON.
//   JsonU64(value, what): a non-negative integral number (or a float holding one) as uint64;
//     anything else is kInvalidArgument naming `what`.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace smr {

// Objects keep their members in document (insertion) order: what smrstore writes reads
// top-down, and what it prints of a document it read comes in the order it was written.
using Json = nlohmann::ordered_json;

constexpr int kMaxJsonDepth = 64;

Result<Json> ParseJson(std::string_view text);

std::vector<std::pair<std::string, std::string>> FlattenJson(const Json& value);

std::string JsonEscape(const std::string& s);

Result<uint64_t> JsonU64(const Json& value, const std::string& what);

// `v` rounded to `decimals` places (the value "%.<decimals>f" shows), as a JSON number; null
// for NaN and infinities, which JSON cannot carry.
Json JsonFixed(double v, int decimals);

}  // namespace smr
