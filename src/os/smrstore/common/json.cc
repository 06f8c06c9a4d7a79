#include "common/json.h"

#include <cmath>
#include <set>

namespace smr {
namespace {

// Thrown by ParseJson's parser callback, caught in ParseJson.
struct TooDeep {};
struct DuplicateKey {
  std::string name;
};

void Flatten(const Json& v, const std::string& path,
             std::vector<std::pair<std::string, std::string>>* out) {
  if (v.is_object()) {
    for (const auto& [k, member] : v.items()) Flatten(member, path.empty() ? k : path + "." + k, out);
  } else if (v.is_array()) {
    size_t i = 0;
    for (const Json& item : v) Flatten(item, path + "[" + std::to_string(i++) + "]", out);
  } else if (v.is_string()) {
    out->emplace_back(path, v.get_ref<const std::string&>());
  } else {
    out->emplace_back(path, v.dump());
  }
}

}  // namespace

Result<Json> ParseJson(std::string_view text) {
  // The callback sees each object/array start with the depth of its parent; refusing the
  // 65th level there stops the parser before it reads (or allocates for) any of it. It
  // also sees every member name before its value: one set of names per open object.
  std::vector<std::set<std::string>> names;
  auto check = [&names](int depth, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        if (depth >= kMaxJsonDepth) throw TooDeep{};
        names.emplace_back();
        break;
      case Json::parse_event_t::array_start:
        if (depth >= kMaxJsonDepth) throw TooDeep{};
        break;
      case Json::parse_event_t::object_end:
        names.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!names.back().insert(parsed.get<std::string>()).second) {
          throw DuplicateKey{parsed.get<std::string>()};
        }
        break;
      default:
        break;
    }
    return true;
  };
  // The library's lexer takes a NUL byte for the end of the input, so "0\0garbage" would
  // read as 0 (found by the stats_json fuzzer). JSON has no place for a raw NUL: refused.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return Status::Corruption("JSON: NUL byte at byte " + std::to_string(nul));
  }
  try {
    return Json::parse(text.begin(), text.end(), check);
  } catch (const TooDeep&) {
    return Status::Corruption("JSON: nested deeper than " + std::to_string(kMaxJsonDepth) +
                              " levels");
  } catch (const DuplicateKey& d) {
    return Status::Corruption("JSON: member name " + Json(d.name).dump(-1, ' ', false,
                              Json::error_handler_t::replace) + " appears twice in one object");
  } catch (const Json::exception& e) {
    return Status::Corruption(std::string("JSON: ") + e.what());
  }
}

std::vector<std::pair<std::string, std::string>> FlattenJson(const Json& value) {
  std::vector<std::pair<std::string, std::string>> out;
  Flatten(value, "", &out);
  return out;
}

std::string JsonEscape(const std::string& s) {
  const std::string quoted =
      Json(s).dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
  return quoted.substr(1, quoted.size() - 2);
}

Result<uint64_t> JsonU64(const Json& value, const std::string& what) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer() && value.get<int64_t>() >= 0) {
    return static_cast<uint64_t>(value.get<int64_t>());
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (d >= 0 && d < 18446744073709551616.0 && d == static_cast<double>(static_cast<uint64_t>(d))) {
      return static_cast<uint64_t>(d);
    }
  }
  return Status::InvalidArgument(what + ": expected a non-negative integer, got " +
                                 value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

Json JsonFixed(double v, int decimals) {
  if (!std::isfinite(v)) return nullptr;
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

}  // namespace smr
