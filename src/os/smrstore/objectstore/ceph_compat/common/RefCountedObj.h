// ceph_compat: common/RefCountedObj.h — Ceph's intrusive reference count (libceph-common).
//
// Layout as in Ceph 16.2.15: vtable, atomic count @8, CephContext* @0x10 (checked against
// the library's RefCountedObject::put). get/put are the library's.
#pragma once

#include <atomic>
#include <cstdint>

#include <boost/intrusive_ptr.hpp>

#include "common/ceph_context.h"

namespace ceph::common {

class RefCountedObject {
 public:
  const RefCountedObject* get() const {
    _get();
    return this;
  }
  void put() const;  // libceph-common: deletes the object when the count reaches zero
  uint64_t get_nref() const { return nref; }

 protected:
  RefCountedObject() = default;
  explicit RefCountedObject(CephContext* c) : cct(c) {}
  RefCountedObject(const RefCountedObject&) = delete;
  RefCountedObject& operator=(const RefCountedObject&) = delete;
  virtual ~RefCountedObject();

 private:
  void _get() const;
  mutable std::atomic<uint64_t> nref{1};
  CephContext* cct{nullptr};
};

inline void intrusive_ptr_add_ref(const RefCountedObject* p) { p->get(); }
inline void intrusive_ptr_release(const RefCountedObject* p) { p->put(); }

template <typename T>
using ref_t = boost::intrusive_ptr<T>;

}  // namespace ceph::common

using ceph::common::RefCountedObject;
namespace ceph {
template <typename T>
using ref_t = boost::intrusive_ptr<T>;
// Adopts the initial reference of a new object (Ceph's make_ref).
template <typename T, typename... Args>
ref_t<T> make_ref(Args&&... args) {
  return ref_t<T>(new T(std::forward<Args>(args)...), false);
}
}  // namespace ceph
