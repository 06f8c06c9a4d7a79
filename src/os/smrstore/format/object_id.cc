#include "format/object_id.h"

#include <cstdio>

namespace smr {

namespace {

// The effective key Ceph compares: the locator key, or the name when there is none.
const std::string& EffectiveKey(const ObjectId& id) { return id.key.empty() ? id.name : id.key; }

template <typename T>
int Cmp3(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int CmpString(const std::string& a, const std::string& b) {
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace

Status ObjectId::Validate() const {
  if (name.size() > kMaxNameLen) {
    return Status::InvalidArgument("object name of " + std::to_string(name.size()) +
                                   " bytes exceeds the limit of " + std::to_string(kMaxNameLen));
  }
  if (key.size() > kMaxNameLen) {
    return Status::InvalidArgument("object locator key of " + std::to_string(key.size()) +
                                   " bytes exceeds the limit of " + std::to_string(kMaxNameLen));
  }
  if (nspace.size() > kMaxNameLen) {
    return Status::InvalidArgument("object namespace of " + std::to_string(nspace.size()) +
                                   " bytes exceeds the limit of " + std::to_string(kMaxNameLen));
  }
  return Status::OK();
}

std::string ObjectId::ToString() const {
  if (max) return "MAX";
  char hex[16];
  std::snprintf(hex, sizeof(hex), "%08x", hash);
  std::string s = std::to_string(pool) + ":" + hex + ":" + nspace + ":" + key + ":" + name + ":";
  s += snap == kNoSnap ? "head" : snap == kSnapDir ? "snapdir" : std::to_string(snap);
  if (generation != kNoGen) s += ":gen" + std::to_string(generation);
  if (shard != kNoShard) s += ":s" + std::to_string(shard);
  return s;
}

bool ObjectId::operator==(const ObjectId& o) const {
  // All max sentinels are one id; otherwise a locator key equal to the name is still a
  // different object from no locator key (Ceph orders them equal, names them apart).
  return Compare(*this, o) == 0 && (max || key == o.key);
}

bool ObjectId::operator<(const ObjectId& o) const { return Compare(*this, o) < 0; }

uint32_t ReverseBits32(uint32_t v) {
  v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
  v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
  v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
  v = ((v >> 8) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8);
  return (v >> 16) | (v << 16);
}

int Compare(const ObjectId& a, const ObjectId& b) {
  if (int c = Cmp3(a.max, b.max)) return c;
  if (a.max) return 0;
  if (int c = Cmp3(a.shard, b.shard)) return c;
  if (int c = Cmp3(a.pool, b.pool)) return c;
  if (int c = Cmp3(ReverseBits32(a.hash), ReverseBits32(b.hash))) return c;
  if (int c = CmpString(a.nspace, b.nspace)) return c;
  if (!(a.key.empty() && b.key.empty())) {
    if (int c = CmpString(EffectiveKey(a), EffectiveKey(b))) return c;
  }
  if (int c = CmpString(a.name, b.name)) return c;
  if (int c = Cmp3(a.snap, b.snap)) return c;
  return Cmp3(a.generation, b.generation);
}

void AppendBigEndian64(uint64_t v, std::string* out) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>(v >> (8 * i)));
}

void AppendBigEndian32(uint32_t v, std::string* out) {
  for (int i = 3; i >= 0; --i) out->push_back(static_cast<char>(v >> (8 * i)));
}

bool ConsumeBigEndian64(std::string_view* in, uint64_t* v) {
  if (in->size() < 8) return false;
  uint64_t r = 0;
  for (int i = 0; i < 8; ++i) r = (r << 8) | static_cast<uint8_t>((*in)[i]);
  in->remove_prefix(8);
  *v = r;
  return true;
}

bool ConsumeBigEndian32(std::string_view* in, uint32_t* v) {
  if (in->size() < 4) return false;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r = (r << 8) | static_cast<uint8_t>((*in)[i]);
  in->remove_prefix(4);
  *v = r;
  return true;
}

void AppendEscaped(std::string_view s, std::string* out) {
  for (char c : s) {
    out->push_back(c);
    if (c == '\0') out->push_back('\xff');
  }
  out->push_back('\0');
  out->push_back('\x01');
}

bool ConsumeEscaped(std::string_view* in, std::string* out) {
  out->clear();
  size_t i = 0;
  while (i < in->size()) {
    const char c = (*in)[i];
    if (c != '\0') {
      out->push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= in->size()) return false;
    const char next = (*in)[i + 1];
    if (next == '\x01') {
      in->remove_prefix(i + 2);
      return true;
    }
    if (next != '\xff') return false;
    out->push_back('\0');
    i += 2;
  }
  return false;
}

// Layout (all order-preserving):
//   max (1: 0 object, 1 max) | shard + 128 (1) | pool ^ sign bit (8 BE) |
//   reversed hash (4 BE) | nspace (escaped) | effective key (escaped) |
//   name (escaped) | snap (8 BE) | generation (8 BE) | has locator key (1)
// A max id encodes as the single byte 1. Comparing effective keys always (not only when a
// locator key is present) gives the same order: with both keys empty the effective keys
// are the names, which are compared next anyway. The locator flag keeps key == name apart
// from no key (Ceph treats them as different objects with equal order).
void EncodeObjectKey(const ObjectId& id, std::string* out) {
  if (id.max) {
    out->push_back('\x01');
    return;
  }
  out->push_back('\0');
  out->push_back(static_cast<char>(static_cast<uint8_t>(id.shard + 128)));
  AppendBigEndian64(static_cast<uint64_t>(id.pool) ^ (1ull << 63), out);
  AppendBigEndian32(ReverseBits32(id.hash), out);
  AppendEscaped(id.nspace, out);
  AppendEscaped(EffectiveKey(id), out);
  AppendEscaped(id.name, out);
  AppendBigEndian64(id.snap, out);
  AppendBigEndian64(id.generation, out);
  out->push_back(id.key.empty() ? '\0' : '\x01');
}

Result<ObjectId> DecodeObjectKey(std::string_view in) {
  const Status bad = Status::Corruption("malformed object key");
  ObjectId id;
  if (in.empty()) return bad;
  if (in[0] == '\x01') {
    if (in.size() != 1) return bad;
    id.max = true;
    return id;
  }
  if (in[0] != '\0' || in.size() < 2) return bad;
  id.shard = static_cast<int8_t>(static_cast<uint8_t>(in[1]) - 128);
  in.remove_prefix(2);
  uint64_t pool = 0;
  uint32_t rhash = 0;
  std::string effective;
  if (!ConsumeBigEndian64(&in, &pool) || !ConsumeBigEndian32(&in, &rhash) ||
      !ConsumeEscaped(&in, &id.nspace) || !ConsumeEscaped(&in, &effective) || in.empty()) {
    return bad;
  }
  id.pool = static_cast<int64_t>(pool ^ (1ull << 63));
  id.hash = ReverseBits32(rhash);
  if (!ConsumeEscaped(&in, &id.name) || !ConsumeBigEndian64(&in, &id.snap) ||
      !ConsumeBigEndian64(&in, &id.generation) || in.size() != 1 ||
      (in[0] != '\0' && in[0] != '\x01')) {
    return bad;
  }
  // Only canonical encodings decode: a locator key is never empty (an empty one is "no
  // key", flag 0), and without one the effective key is the name.
  if (in[0] == '\x01') {
    if (effective.empty()) return bad;
    id.key = effective;
  } else if (effective != id.name) {
    return bad;
  }
  return id;
}

}  // namespace smr
