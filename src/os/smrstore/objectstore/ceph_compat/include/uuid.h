// ceph_compat: include/uuid.h — uuid_d, Ceph's uuid value type (header-only in Ceph: a
// boost::uuids::uuid with parse/print helpers). Used by ObjectStore::set_fsid/get_fsid.
#pragma once

#include <cstring>
#include <string>

#include <boost/uuid/uuid.hpp>
#include <boost/uuid/uuid_io.hpp>
#include <boost/uuid/string_generator.hpp>

struct uuid_d {
  boost::uuids::uuid uuid{};

  bool is_zero() const { return uuid.is_nil(); }
  // Accepts the 36-character text form; false (and unchanged) otherwise.
  bool parse(const char* s) {
    if (s == nullptr || std::strlen(s) != 36) return false;
    try {
      uuid = boost::uuids::string_generator()(s);
      return true;
    } catch (...) {
      return false;
    }
  }
  std::string to_string() const { return boost::uuids::to_string(uuid); }
};
inline bool operator==(const uuid_d& a, const uuid_d& b) { return a.uuid == b.uuid; }
inline bool operator!=(const uuid_d& a, const uuid_d& b) { return !(a == b); }
