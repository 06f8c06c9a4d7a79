// ceph_compat: osd/osd_types.h — the few OSD types the ObjectStore interface names.
//
// pg_t, spg_t and coll_t are laid out as in Ceph 16.2.15 (coll_t: type @0, pgid @8,
// removal_seq @0x20, the 40-byte name buffer @0x28, _str @0x50; checked against
// libceph-common's coll_t::calc_str) so the library's coll_t::parse / calc_str /
// encode / decode run on them. store_statfs_t and objectstore_perf_stat_t carry the
// Pacific fields the adapter fills. pool_opts_t is only named.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "common/hobject.h"
#include "include/buffer.h"

struct pg_t {
  uint64_t m_pool = 0;
  uint32_t m_seed = 0;
  pg_t() = default;
  pg_t(uint32_t seed, uint64_t pool) : m_pool(pool), m_seed(seed) {}
  uint64_t pool() const { return m_pool; }
  uint32_t ps() const { return m_seed; }
  bool parse(const char* s);  // libceph-common
};
inline bool operator<(const pg_t& l, const pg_t& r) {
  return l.m_pool < r.m_pool || (l.m_pool == r.m_pool && l.m_seed < r.m_seed);
}
inline bool operator==(const pg_t& l, const pg_t& r) {
  return l.m_pool == r.m_pool && l.m_seed == r.m_seed;
}

struct spg_t {
  pg_t pgid;
  shard_id_t shard;
  spg_t() : shard(shard_id_t::NO_SHARD) {}
  spg_t(pg_t p, shard_id_t s) : pgid(p), shard(s) {}
  explicit spg_t(pg_t p) : pgid(p), shard(shard_id_t::NO_SHARD) {}
  bool parse(const char* s);  // libceph-common
};
inline bool operator<(const spg_t& l, const spg_t& r) {
  return l.pgid < r.pgid || (l.pgid == r.pgid && l.shard < r.shard);
}
inline bool operator==(const spg_t& l, const spg_t& r) {
  return l.pgid == r.pgid && l.shard == r.shard;
}

class coll_t {
  enum type_t { TYPE_META = 0, TYPE_LEGACY_TEMP = 1, TYPE_PG = 2, TYPE_PG_TEMP = 3 };
  type_t type;
  spg_t pgid;
  uint64_t removal_seq;  // unused since luminous; kept for the layout
  char _str_buff[40];
  char* _str;

  void calc_str();  // libceph-common: renders the name into _str_buff, sets _str
  coll_t(type_t t, spg_t p, uint64_t r) : type(t), pgid(p), removal_seq(r) { calc_str(); }

 public:
  coll_t() : type(TYPE_META), removal_seq(0) { calc_str(); }
  coll_t(const coll_t& o) : type(o.type), pgid(o.pgid), removal_seq(o.removal_seq) {
    calc_str();
  }
  coll_t& operator=(const coll_t& o) {
    type = o.type;
    pgid = o.pgid;
    removal_seq = o.removal_seq;
    calc_str();
    return *this;
  }
  explicit coll_t(spg_t p) : type(TYPE_PG), pgid(p), removal_seq(0) { calc_str(); }
  static coll_t meta() { return coll_t(); }
  static coll_t pg(spg_t p) { return coll_t(p); }

  // "meta", "1.2f_head", "1.2f_TEMP", "1.2fs1_head".
  std::string to_str() const { return std::string(_str); }
  const char* c_str() const { return _str; }
  bool parse(const std::string& s);  // libceph-common

  bool is_meta() const { return type == TYPE_META; }
  bool is_pg() const { return type == TYPE_PG; }
  bool is_temp() const { return type == TYPE_PG_TEMP; }
  bool is_pg(spg_t* p) const {
    if (type != TYPE_PG) return false;
    *p = pgid;
    return true;
  }
  int64_t pool() const { return static_cast<int64_t>(pgid.pgid.m_pool); }

  void encode(ceph::buffer::list& bl) const;  // libceph-common
  void decode(ceph::buffer::list::const_iterator& bl);
  size_t encoded_size() const;

  friend bool operator<(const coll_t& l, const coll_t& r) {
    return l.type < r.type || (l.type == r.type && l.pgid < r.pgid);
  }
  friend bool operator==(const coll_t& l, const coll_t& r) {
    return l.type == r.type && l.pgid == r.pgid;
  }
  friend bool operator!=(const coll_t& l, const coll_t& r) { return !(l == r); }
};

// BlueStore-style space accounting, as Pacific's store_statfs_t carries it.
struct store_statfs_t {
  int64_t total = 0;                      // total bytes
  int64_t available = 0;                  // free bytes
  int64_t internally_reserved = 0;        // bytes reserved for internal purposes
  int64_t allocated = 0;                  // bytes allocated by the store
  int64_t data_stored = 0;                // bytes actually stored by the user
  int64_t data_compressed = 0;
  int64_t data_compressed_allocated = 0;
  int64_t data_compressed_original = 0;
  int64_t omap_allocated = 0;             // approx usage of omap data
  int64_t internal_metadata = 0;          // approx usage of internal metadata
  void reset() { *this = store_statfs_t(); }
};

struct objectstore_perf_stat_t {
  uint64_t os_commit_latency_ns = 0;
  uint64_t os_apply_latency_ns = 0;
};

class pool_opts_t;  // named by set_collection_opts; not used by smrstore

using osd_alert_list_t = std::map<std::string, std::string>;
