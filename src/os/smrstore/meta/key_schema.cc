#include "meta/key_schema.h"

#include <utility>

#include "common/coding.h"

namespace smr::keys {

namespace {

constexpr std::string_view kFormatVersionName = "format_version";

std::string WithPrefix(char prefix, std::string_view rest) {
  std::string key;
  key.reserve(1 + rest.size());
  key.push_back(prefix);
  key.append(rest);
  return key;
}

std::string PrefixAndId(char prefix, uint64_t id) {
  std::string key;
  key.reserve(9);
  key.push_back(prefix);
  AppendBigEndian64(id, &key);
  return key;
}

}  // namespace

std::string FormatVersionKey() { return WithPrefix(kFormatVersionPrefix, kFormatVersionName); }

std::string EncodeFormatVersion(uint32_t version) {
  std::string v(4, '\0');
  EncodeFixed32(v.data(), version);
  return v;
}

Result<uint32_t> DecodeFormatVersion(std::string_view value) {
  if (value.size() != 4) return Status::Corruption("malformed format_version value");
  return DecodeFixed32(value.data());
}

std::string ValueKey(std::string_view name) { return WithPrefix(kValuePrefix, name); }
std::string DerivedValueKey(std::string_view name) {
  return WithPrefix(kDerivedValuePrefix, name);
}

std::string CounterKey(std::string_view name) { return WithPrefix(kCounterPrefix, name); }

std::string CollectionKey(std::string_view name) {
  std::string key(1, kCollectionPrefix);
  AppendEscaped(name, &key);
  return key;
}

Result<std::string> DecodeCollectionKey(std::string_view key) {
  std::string name;
  if (key.empty() || key[0] != kCollectionPrefix) {
    return Status::Corruption("not a collection key");
  }
  key.remove_prefix(1);
  if (!ConsumeEscaped(&key, &name) || !key.empty()) {
    return Status::Corruption("malformed collection key");
  }
  return name;
}

std::string ObjectKeyPrefix(uint64_t cid) { return PrefixAndId(kObjectPrefix, cid); }

std::string ObjectKey(uint64_t cid, const ObjectId& oid) {
  std::string key = ObjectKeyPrefix(cid);
  EncodeObjectKey(oid, &key);
  return key;
}

Result<ObjectId> DecodeObjectKeyOf(uint64_t cid, std::string_view key) {
  const std::string prefix = ObjectKeyPrefix(cid);
  if (key.substr(0, prefix.size()) != prefix) {
    return Status::Corruption("object key outside collection " + std::to_string(cid));
  }
  key.remove_prefix(prefix.size());
  return DecodeObjectKey(key);
}

std::string OmapHeaderKey(uint64_t nid) { return PrefixAndId(kOmapHeaderPrefix, nid); }

std::string NidKey(uint64_t nid) { return PrefixAndId(kNidPrefix, nid); }

std::string OmapKeyPrefix(uint64_t nid) { return PrefixAndId(kOmapPrefix, nid); }

std::string OmapKey(uint64_t nid, std::string_view omap_key) {
  std::string key = OmapKeyPrefix(nid);
  key.append(omap_key);
  return key;
}

std::string ZoneKey(uint16_t drive, uint32_t zone) {
  std::string key;
  key.reserve(7);
  key.push_back(kZonePrefix);
  key.push_back(static_cast<char>(drive >> 8));
  key.push_back(static_cast<char>(drive));
  AppendBigEndian32(zone, &key);
  return key;
}

Result<std::pair<uint16_t, uint32_t>> DecodeZoneKey(std::string_view key) {
  if (key.size() != 7 || key[0] != kZonePrefix) return Status::Corruption("malformed zone key");
  const uint16_t drive = static_cast<uint16_t>((static_cast<uint8_t>(key[1]) << 8) |
                                               static_cast<uint8_t>(key[2]));
  key.remove_prefix(3);
  uint32_t zone = 0;
  if (!ConsumeBigEndian32(&key, &zone)) return Status::Corruption("malformed zone key");
  return std::make_pair(drive, zone);
}

std::string PrefixSuccessor(std::string_view prefix) {
  std::string s(prefix);
  while (!s.empty()) {
    const uint8_t last = static_cast<uint8_t>(s.back());
    if (last != 0xff) {
      s.back() = static_cast<char>(last + 1);
      return s;
    }
    s.pop_back();
  }
  return s;
}

}  // namespace smr::keys
