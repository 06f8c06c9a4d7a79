// ceph_compat: os/ObjectMap.h — the omap iterator of ObjectStore::get_omap_iterator.
// Pacific's ObjectMap::ObjectMapIterator is a shared_ptr<KeyValueDB::SimplestIteratorImpl>.
// ABI: SimplestIteratorImpl's vtable slot for slot (ceph-osd's MemStore::OmapIteratorImpl):
//   0 seek_to_first, 1 upper_bound, 2 lower_bound, 3 valid, 4 next, 5 key, 6 tail_key,
//   7 value, 8 status, 9-10 destructor.
#pragma once

#include <memory>
#include <string>

#include "include/buffer.h"

class KeyValueDB {
 public:
  class SimplestIteratorImpl {
   public:
    virtual int seek_to_first() = 0;
    virtual int upper_bound(const std::string& after) = 0;  // first key > after
    virtual int lower_bound(const std::string& to) = 0;     // first key >= to
    virtual bool valid() = 0;
    virtual int next() = 0;
    virtual std::string key() = 0;
    virtual std::string tail_key() { return ""; }
    virtual ceph::buffer::list value() = 0;
    virtual int status() = 0;
    virtual ~SimplestIteratorImpl() {}
  };
};

class ObjectMap {
 public:
  using ObjectMapIteratorImpl = KeyValueDB::SimplestIteratorImpl;
  using ObjectMapIterator = std::shared_ptr<KeyValueDB::SimplestIteratorImpl>;
};
