// ceph_compat: common/hobject.h — hobject_t and ghobject_t, laid out exactly as Ceph
// 16.2.15 lays them out, so that the real code exported by libceph-common.so.2 (parse,
// encode/decode, cmp, operator<<, dump, to_str) runs on them.
//
// Layout (x86-64, checked against the library's own code; see doc/ceph-integration.md):
//   hobject_t  (128 bytes): oid @0, snap @0x20, hash @0x28, max @0x2c,
//              nibblewise_key_cache @0x30, hash_reverse_bits @0x34, pool @0x38,
//              nspace @0x40, key @0x60.
//   ghobject_t (144 bytes): hobj @0, generation @0x80, shard_id @0x88, max @0x89.
// objectstore/ceph_types_test.cc asserts these offsets and round-trips objects through
// the real parse / encode / decode / cmp.
//
// Only the inline members are written here (constructors, accessors, the hash caches that
// the real comparison reads); every out-of-line member is the library's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <climits>
#include <ostream>
#include <string>

#include "include/buffer.h"
#include "include/object.h"

namespace ceph {
class Formatter;
}

// Exported by libceph-common with C linkage (the hash-key helpers hobject_t's caches use).
extern "C" uint32_t reverse_bits(uint32_t v);
extern "C" uint32_t reverse_nibbles(uint32_t v);

struct shard_id_t {
  int8_t id;
  shard_id_t() : id(0) {}
  constexpr explicit shard_id_t(int8_t i) : id(i) {}
  operator int8_t() const { return id; }
  static const shard_id_t NO_SHARD;  // defined in libceph-common (-1)
};
inline bool operator==(const shard_id_t& a, const shard_id_t& b) { return a.id == b.id; }
inline bool operator!=(const shard_id_t& a, const shard_id_t& b) { return a.id != b.id; }
inline bool operator<(const shard_id_t& a, const shard_id_t& b) { return a.id < b.id; }

using gen_t = uint64_t;  // version_t

struct hobject_t {
 public:
  static const int64_t POOL_META = -1;
  static const int64_t POOL_TEMP_START = -2;

  object_t oid;
  snapid_t snap;

 private:
  uint32_t hash;
  bool max;
  uint32_t nibblewise_key_cache;
  uint32_t hash_reverse_bits;

 public:
  int64_t pool;
  std::string nspace;

 private:
  std::string key;

 public:
  hobject_t() : snap(0), hash(0), max(false), pool(INT64_MIN) { build_hash_cache(); }
  hobject_t(object_t o, const std::string& k, snapid_t s, uint32_t h, int64_t p,
            const std::string& ns)
      : oid(std::move(o)), snap(s), hash(h), max(false), pool(p), nspace(ns),
        key(oid.name == k ? std::string() : k) {
    build_hash_cache();
  }

  static hobject_t get_max() {
    hobject_t h;
    h.max = true;
    return h;
  }
  bool is_max() const { return max; }
  bool is_head() const { return snap == CEPH_NOSNAP; }
  bool is_temp() const { return pool <= POOL_TEMP_START && pool != INT64_MIN; }
  bool is_meta() const { return pool == POOL_META; }

  uint32_t get_hash() const { return hash; }
  void set_hash(uint32_t h) {
    hash = h;
    build_hash_cache();
  }
  const std::string& get_key() const { return key; }
  void set_key(const std::string& k) { key = (k == oid.name) ? std::string() : k; }
  const std::string& get_effective_key() const { return key.empty() ? oid.name : key; }
  const std::string& get_namespace() const { return nspace; }
  uint32_t get_bitwise_key_u32() const { return hash_reverse_bits; }
  uint32_t get_nibblewise_key_u32() const { return nibblewise_key_cache; }

  std::string to_str() const;  // libceph-common
  bool parse(const std::string& s);
  void encode(ceph::buffer::list& bl) const;
  void decode(ceph::buffer::list::const_iterator& bl);
  void dump(ceph::Formatter* f) const;

 private:
  void build_hash_cache() {
    nibblewise_key_cache = reverse_nibbles(hash);
    hash_reverse_bits = reverse_bits(hash);
  }
  friend struct ghobject_t;
};

int cmp(const hobject_t& l, const hobject_t& r);  // libceph-common: Ceph's sort order
std::ostream& operator<<(std::ostream& out, const hobject_t& o);
inline bool operator==(const hobject_t& l, const hobject_t& r) { return cmp(l, r) == 0; }
inline bool operator!=(const hobject_t& l, const hobject_t& r) { return cmp(l, r) != 0; }
inline bool operator<(const hobject_t& l, const hobject_t& r) { return cmp(l, r) < 0; }

struct ghobject_t {
  static const gen_t NO_GEN = UINT64_MAX;

  hobject_t hobj;
  gen_t generation;
  shard_id_t shard_id;
  bool max;

  ghobject_t() : generation(NO_GEN), shard_id(shard_id_t::NO_SHARD), max(false) {}
  explicit ghobject_t(const hobject_t& o)
      : hobj(o), generation(NO_GEN), shard_id(shard_id_t::NO_SHARD), max(false) {}
  ghobject_t(const hobject_t& o, gen_t gen, shard_id_t shard)
      : hobj(o), generation(gen), shard_id(shard), max(false) {}

  static ghobject_t make_pgmeta(int64_t pool, uint32_t hash, shard_id_t shard) {
    return ghobject_t(hobject_t(object_t(), std::string(), CEPH_NOSNAP, hash, pool,
                                std::string()),
                      NO_GEN, shard);
  }
  bool is_pgmeta() const { return hobj.pool >= 0 && hobj.oid.name.empty(); }
  static ghobject_t get_max() {
    ghobject_t h;
    h.max = true;
    h.hobj = hobject_t::get_max();
    return h;
  }
  bool is_max() const { return max; }
  bool is_no_gen() const { return generation == NO_GEN; }
  bool is_no_shard() const { return shard_id == shard_id_t::NO_SHARD; }

  bool parse(const std::string& s);  // libceph-common: the text form operator<< prints
  void encode(ceph::buffer::list& bl) const;
  void decode(ceph::buffer::list::const_iterator& bl);
  size_t encoded_size() const;
  void dump(ceph::Formatter* f) const;
};

int cmp(const ghobject_t& l, const ghobject_t& r);  // libceph-common
std::ostream& operator<<(std::ostream& out, const ghobject_t& o);
inline bool operator==(const ghobject_t& l, const ghobject_t& r) { return cmp(l, r) == 0; }
inline bool operator!=(const ghobject_t& l, const ghobject_t& r) { return cmp(l, r) != 0; }
inline bool operator<(const ghobject_t& l, const ghobject_t& r) { return cmp(l, r) < 0; }
inline bool operator>(const ghobject_t& l, const ghobject_t& r) { return cmp(l, r) > 0; }
inline bool operator<=(const ghobject_t& l, const ghobject_t& r) { return cmp(l, r) <= 0; }
inline bool operator>=(const ghobject_t& l, const ghobject_t& r) { return cmp(l, r) >= 0; }
