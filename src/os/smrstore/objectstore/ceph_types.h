// Conversions between Ceph's object/collection names and the engine's.
//
// Contract
//   ToObjectId / ToGhobject are inverse on every ghobject_t the engine can store (all
//   fields are carried: pool, namespace, locator key, name, snap, hash, generation, shard,
//   max). The engine's order (format/object_id.h Compare) equals Ceph's
//   cmp(ghobject_t, ghobject_t); objectstore/ceph_types_test.cc checks both against the real
//   libceph-common code. Collections are named by coll_t's text form (coll_t::to_str).
// Thread safety: pure functions.
#pragma once

#include <string>

#include "format/object_id.h"
#include "osd/osd_types.h"

namespace smr::ceph_adapter {

ObjectId ToObjectId(const ghobject_t& g);
ghobject_t ToGhobject(const ObjectId& o);
inline std::string CollName(const coll_t& c) { return c.to_str(); }

}  // namespace smr::ceph_adapter
