// ceph_compat: include/object.h — object_t and snapid_t as Ceph Pacific lays them out.
//
// Both are header-only in Ceph. Layouts must match Ceph 16.2.15 exactly because hobject_t
// (common/hobject.h) embeds them and libceph-common's exported hobject code reads them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

constexpr uint64_t CEPH_NOSNAP = static_cast<uint64_t>(-2);   // the head object
constexpr uint64_t CEPH_SNAPDIR = static_cast<uint64_t>(-1);  // the snap directory

struct object_t {
  std::string name;
  object_t() = default;
  explicit object_t(std::string n) : name(std::move(n)) {}
  explicit object_t(const char* n) : name(n) {}
};
inline bool operator==(const object_t& a, const object_t& b) { return a.name == b.name; }
inline bool operator<(const object_t& a, const object_t& b) { return a.name < b.name; }

struct snapid_t {
  uint64_t val;
  snapid_t(uint64_t v = 0) : val(v) {}  // NOLINT: implicit, as in Ceph
  operator uint64_t() const { return val; }
};
