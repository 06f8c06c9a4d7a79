#include "meta/onode.h"

#include <limits>
#include <utility>

#include "common/coding.h"
#include "format/record_format.h"

// Value encodings, version 1 (doc/format.md, "RocksDB keys and values"). `var` is an
// unsigned LEB128 varint (7 bits per byte, low group first, high bit = more; at most 10
// bytes for 64 bits, and a field declared narrower must fit its width); `fixed32` is 4
// bytes little-endian; `bytes` is var length then the raw bytes. Every value starts with
// its version byte and must be consumed exactly: trailing bytes are corruption.
//
//   Onode          := u8 version=1 | u8 flags (bit 0 data_inline, bit 1 has_omap, bit 2
//                     packed: some extent is a pack entry; others 0)
//                     | var nid | var size | var alloc_hint_flags (32) |
//                     var expected_object_size | var expected_write_size | var mtime_ns |
//                     var n_extents | Extent * n_extents (increasing logical_offset) |
//                     bytes inline_data | var n_xattrs | (bytes name, bytes value) * n_xattrs
//                     (increasing name)
//   Extent         := var logical_offset | var length (32) | var drive (16) |
//                     var payload_offset | var payload_len (32) | fixed32 payload_crc |
//                     var payload_skip (32) [| var pack (32), when the onode's packed
//                     flag is set: 0 = a data record, k > 0 = an entry of a pack record
//                     at its payload byte k - 1]
//   CollectionMeta := u8 version=1 | var cid | var bits (32)
//   ZoneMeta       := u8 version=2 | u8 stream | u8 flags (bit 0 sealed, others 0) |
//                     var live_bytes | var committed_wp | var opened_seq | var footer_at
//                     (footer_at 0, or sealed and footer_at + 4 KiB <= committed_wp);
//                     version 1 (without footer_at, pre-release) is retired: refused
//
// Decoders also check the Onode invariants of onode.h (extents sorted and non-overlapping,
// each inside its record's payload, no extents when data_inline, unique xattr names), so
// a value that decodes is one the engine can use without further checks.

namespace smr {

namespace {

using valfmt::kCollectionMetaVersion;
using valfmt::kOnodeVersion;
using valfmt::kZoneMetaVersion;

constexpr uint8_t kOnodeFlagDataInline = 1u << 0;
constexpr uint8_t kOnodeFlagHasOmap = 1u << 1;
constexpr uint8_t kOnodeFlagPacked = 1u << 2;
constexpr uint8_t kOnodeKnownFlags = kOnodeFlagDataInline | kOnodeFlagHasOmap | kOnodeFlagPacked;

constexpr uint8_t kZoneFlagSealed = 1u << 0;
constexpr uint8_t kZoneKnownFlags = kZoneFlagSealed;

constexpr int kMaxVarint64Bytes = 10;

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutFixed32(uint32_t v, std::string* out) {
  char buf[4];
  EncodeFixed32(buf, v);
  out->append(buf, sizeof(buf));
}

void PutBytes(std::string_view s, std::string* out) {
  PutVarint(s.size(), out);
  out->append(s);
}

// Consumes encoded fields from the front of a value; every Get* returns false (and
// consumes nothing useful) on truncated or malformed input.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  bool empty() const { return in_.empty(); }

  bool GetByte(uint8_t* v) {
    if (in_.empty()) return false;
    *v = static_cast<uint8_t>(in_[0]);
    in_.remove_prefix(1);
    return true;
  }

  bool GetVarint(uint64_t* v) {
    uint64_t r = 0;
    for (int i = 0; i < kMaxVarint64Bytes; ++i) {
      if (in_.empty()) return false;
      const uint8_t b = static_cast<uint8_t>(in_[0]);
      in_.remove_prefix(1);
      // The 10th byte holds bit 63 only.
      if (i == kMaxVarint64Bytes - 1 && b > 1) return false;
      r |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) {
        *v = r;
        return true;
      }
    }
    return false;
  }

  template <typename T>
  bool GetVarintAs(T* v) {
    uint64_t r = 0;
    if (!GetVarint(&r) || r > std::numeric_limits<T>::max()) return false;
    *v = static_cast<T>(r);
    return true;
  }

  bool GetFixed32(uint32_t* v) {
    if (in_.size() < 4) return false;
    *v = DecodeFixed32(in_.data());
    in_.remove_prefix(4);
    return true;
  }

  bool GetBytes(std::string* s) {
    uint64_t len = 0;
    if (!GetVarint(&len) || len > in_.size()) return false;
    s->assign(in_.data(), static_cast<size_t>(len));
    in_.remove_prefix(static_cast<size_t>(len));
    return true;
  }

 private:
  std::string_view in_;
};

Status CheckVersion(Reader* r, uint8_t want, const char* what) {
  uint8_t version = 0;
  if (!r->GetByte(&version)) return Status::Corruption(std::string("empty ") + what + " value");
  if (version != want) {
    return Status::Corruption(std::string(what) + " value: encoding version " +
                              std::to_string(version) + " is not supported (this build reads" +
                              " version " + std::to_string(want) + ")");
  }
  return Status::OK();
}

Status Truncated(const char* what) {
  return Status::Corruption(std::string("truncated or malformed ") + what + " value");
}

void EncodeExtent(const Extent& e, bool packed, std::string* out) {
  PutVarint(e.logical_offset, out);
  PutVarint(e.length, out);
  PutVarint(e.drive, out);
  PutVarint(e.payload_offset, out);
  PutVarint(e.payload_len, out);
  PutFixed32(e.payload_crc, out);
  PutVarint(e.payload_skip, out);
  if (packed) PutVarint(e.in_pack ? uint64_t{e.pack_offset} + 1 : 0, out);
}

bool DecodeExtent(Reader* r, bool packed, Extent* e) {
  if (!(r->GetVarint(&e->logical_offset) && r->GetVarintAs(&e->length) &&
        r->GetVarintAs(&e->drive) && r->GetVarint(&e->payload_offset) &&
        r->GetVarintAs(&e->payload_len) && r->GetFixed32(&e->payload_crc) &&
        r->GetVarintAs(&e->payload_skip))) {
    return false;
  }
  if (!packed) return true;
  uint32_t pack = 0;
  if (!r->GetVarintAs(&pack)) return false;
  e->in_pack = pack != 0;
  e->pack_offset = pack == 0 ? 0 : pack - 1;
  return true;
}

}  // namespace

bool Extent::operator==(const Extent& o) const {
  return logical_offset == o.logical_offset && length == o.length && drive == o.drive &&
         payload_offset == o.payload_offset && payload_len == o.payload_len &&
         payload_crc == o.payload_crc && payload_skip == o.payload_skip &&
         in_pack == o.in_pack && pack_offset == o.pack_offset;
}

bool Onode::operator==(const Onode& o) const {
  return nid == o.nid && size == o.size && extents == o.extents &&
         inline_data == o.inline_data && data_inline == o.data_inline && xattrs == o.xattrs &&
         has_omap == o.has_omap && alloc_hint_flags == o.alloc_hint_flags &&
         expected_object_size == o.expected_object_size &&
         expected_write_size == o.expected_write_size && mtime_ns == o.mtime_ns;
}

std::string EncodeOnode(const Onode& onode) {
  std::string out;
  out.reserve(48 + onode.extents.size() * 24 + onode.inline_data.size());
  out.push_back(static_cast<char>(kOnodeVersion));
  uint8_t flags = 0;
  if (onode.data_inline) flags |= kOnodeFlagDataInline;
  if (onode.has_omap) flags |= kOnodeFlagHasOmap;
  bool packed = false;
  for (const auto& [offset, extent] : onode.extents) packed = packed || extent.in_pack;
  if (packed) flags |= kOnodeFlagPacked;
  out.push_back(static_cast<char>(flags));
  PutVarint(onode.nid, &out);
  PutVarint(onode.size, &out);
  PutVarint(onode.alloc_hint_flags, &out);
  PutVarint(onode.expected_object_size, &out);
  PutVarint(onode.expected_write_size, &out);
  PutVarint(onode.mtime_ns, &out);
  PutVarint(onode.extents.size(), &out);
  // The map key is expected to equal the extent's logical_offset; the extent's own field
  // is what is stored (and what the decoded map is keyed by).
  for (const auto& [offset, extent] : onode.extents) EncodeExtent(extent, packed, &out);
  PutBytes(onode.inline_data, &out);
  PutVarint(onode.xattrs.size(), &out);
  for (const auto& [name, value] : onode.xattrs) {
    PutBytes(name, &out);
    PutBytes(value, &out);
  }
  return out;
}

Result<Onode> DecodeOnode(std::string_view value) {
  constexpr const char* kWhat = "onode";
  Reader r(value);
  SMR_RETURN_IF_ERROR(CheckVersion(&r, kOnodeVersion, kWhat));
  Onode o;
  uint8_t flags = 0;
  uint64_t n_extents = 0;
  if (!r.GetByte(&flags) || !r.GetVarint(&o.nid) || !r.GetVarint(&o.size) ||
      !r.GetVarintAs(&o.alloc_hint_flags) || !r.GetVarint(&o.expected_object_size) ||
      !r.GetVarint(&o.expected_write_size) || !r.GetVarint(&o.mtime_ns) ||
      !r.GetVarint(&n_extents)) {
    return Truncated(kWhat);
  }
  if ((flags & ~kOnodeKnownFlags) != 0) {
    return Status::Corruption("onode has unknown flags " + std::to_string(flags));
  }
  o.data_inline = (flags & kOnodeFlagDataInline) != 0;
  o.has_omap = (flags & kOnodeFlagHasOmap) != 0;
  if (o.data_inline && n_extents != 0) {
    return Status::Corruption("onode has both inline data and extents");
  }
  const bool packed = (flags & kOnodeFlagPacked) != 0;
  bool any_in_pack = false;
  // No reserve from n_extents: a garbage count must not allocate; truncation stops the loop.
  uint64_t prev_end = 0;
  for (uint64_t i = 0; i < n_extents; ++i) {
    Extent e;
    if (!DecodeExtent(&r, packed, &e)) return Truncated(kWhat);
    any_in_pack = any_in_pack || e.in_pack;
    if (e.in_pack && (e.pack_offset > e.payload_offset ||
                      e.payload_offset - e.pack_offset < Extent::kRecordHeaderBytes)) {
      return Status::Corruption("onode extent at offset " + std::to_string(e.logical_offset) +
                                " puts its pack record before the drive's start");
    }
    if (e.logical_offset > std::numeric_limits<uint64_t>::max() - e.length) {
      return Status::Corruption("onode extent end overflows");
    }
    if (i > 0 && (e.logical_offset < prev_end || e.logical_offset <= o.extents.rbegin()->first)) {
      return Status::Corruption("onode extents overlap or are out of order at offset " +
                                std::to_string(e.logical_offset));
    }
    if (static_cast<uint64_t>(e.payload_skip) + e.length > e.payload_len) {
      return Status::Corruption("onode extent at offset " + std::to_string(e.logical_offset) +
                                " lies outside its record payload");
    }
    prev_end = e.end();
    o.extents.emplace_hint(o.extents.end(), e.logical_offset, e);
  }
  // Canonical: the flag is set exactly when some extent is a pack entry.
  if (packed && !any_in_pack) {
    return Status::Corruption("onode flagged packed but no extent is a pack entry");
  }
  uint64_t n_xattrs = 0;
  if (!r.GetBytes(&o.inline_data) || !r.GetVarint(&n_xattrs)) return Truncated(kWhat);
  for (uint64_t i = 0; i < n_xattrs; ++i) {
    std::string name;
    std::string val;
    if (!r.GetBytes(&name) || !r.GetBytes(&val)) return Truncated(kWhat);
    if (!o.xattrs.empty() && name <= o.xattrs.rbegin()->first) {
      return Status::Corruption("onode xattrs are duplicated or out of order");
    }
    o.xattrs.emplace_hint(o.xattrs.end(), std::move(name), std::move(val));
  }
  if (!r.empty()) return Status::Corruption("trailing bytes after onode value");
  return o;
}

std::string EncodeCollectionMeta(const CollectionMeta& c) {
  std::string out;
  out.push_back(static_cast<char>(kCollectionMetaVersion));
  PutVarint(c.cid, &out);
  PutVarint(c.bits, &out);
  return out;
}

Result<CollectionMeta> DecodeCollectionMeta(std::string_view value) {
  constexpr const char* kWhat = "collection";
  Reader r(value);
  SMR_RETURN_IF_ERROR(CheckVersion(&r, kCollectionMetaVersion, kWhat));
  CollectionMeta c;
  if (!r.GetVarint(&c.cid) || !r.GetVarintAs(&c.bits)) return Truncated(kWhat);
  if (!r.empty()) return Status::Corruption("trailing bytes after collection value");
  return c;
}

std::string EncodeZoneMeta(const ZoneMeta& z) {
  std::string out;
  out.push_back(static_cast<char>(kZoneMetaVersion));
  out.push_back(static_cast<char>(z.stream));
  out.push_back(static_cast<char>(z.sealed ? kZoneFlagSealed : 0));
  PutVarint(z.live_bytes, &out);
  PutVarint(z.committed_wp, &out);
  PutVarint(z.opened_seq, &out);
  PutVarint(z.footer_at, &out);
  return out;
}

Result<ZoneMeta> DecodeZoneMeta(std::string_view value) {
  constexpr const char* kWhat = "zone";
  Reader r(value);
  SMR_RETURN_IF_ERROR(CheckVersion(&r, kZoneMetaVersion, kWhat));
  ZoneMeta z;
  uint8_t flags = 0;
  if (!r.GetByte(&z.stream) || !r.GetByte(&flags) || !r.GetVarint(&z.live_bytes) ||
      !r.GetVarint(&z.committed_wp) || !r.GetVarint(&z.opened_seq) ||
      !r.GetVarint(&z.footer_at)) {
    return Truncated(kWhat);
  }
  if ((flags & ~kZoneKnownFlags) != 0) {
    return Status::Corruption("zone has unknown flags " + std::to_string(flags));
  }
  z.sealed = (flags & kZoneFlagSealed) != 0;
  constexpr uint64_t kFooterHeader = recfmt::kBlockSize;  // a record's header block
  if (z.footer_at != 0 &&
      (!z.sealed || z.footer_at > z.committed_wp || z.committed_wp - z.footer_at < kFooterHeader)) {
    return Status::Corruption("zone footer at " + std::to_string(z.footer_at) +
                              (z.sealed ? " lies past its committed bytes (" +
                                              std::to_string(z.committed_wp) + ")"
                                        : " in a zone not sealed"));
  }
  if (!r.empty()) return Status::Corruption("trailing bytes after zone value");
  return z;
}

}  // namespace smr
