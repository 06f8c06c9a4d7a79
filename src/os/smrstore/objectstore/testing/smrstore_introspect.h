// Test-only access to the engine under a mounted SMRStore, for what Ceph's ObjectStore API
// has no call for (the engine's counters, an object's extent count). Linked into
// smrstore_ceph_tests only; SMRStore declares this struct its friend.
#pragma once

#include "objectstore/SMRStore.h"
#include "store/store.h"

struct SMRStoreIntrospect {
  // The mounted engine, or nullptr when `store` is not mounted.
  static smr::Store* Engine(SMRStore& store);
};
