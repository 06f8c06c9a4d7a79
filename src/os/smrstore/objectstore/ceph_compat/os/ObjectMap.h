// ceph_compat: os/ObjectMap.h — the omap iterator interface of ObjectStore::get_omap_iterator
// (Pacific: seek/bound/valid/next/key/value/status; keys in byte order).
#pragma once

#include <memory>
#include <string>

#include "include/buffer.h"

class ObjectMap {
 public:
  class ObjectMapIteratorImpl {
   public:
    virtual int seek_to_first() = 0;
    virtual int upper_bound(const std::string& after) = 0;  // first key > after
    virtual int lower_bound(const std::string& to) = 0;     // first key >= to
    virtual bool valid() = 0;
    virtual int next() = 0;
    virtual std::string key() = 0;
    virtual ceph::buffer::list value() = 0;
    virtual int status() = 0;
    virtual ~ObjectMapIteratorImpl() = default;
  };
  using ObjectMapIterator = std::shared_ptr<ObjectMapIteratorImpl>;
};
