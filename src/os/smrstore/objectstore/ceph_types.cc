#include "objectstore/ceph_types.h"

namespace smr::ceph_adapter {

ObjectId ToObjectId(const ghobject_t& g) {
  if (g.is_max() || g.hobj.is_max()) return ObjectId::Max();
  ObjectId o;
  o.pool = g.hobj.pool;
  o.nspace = g.hobj.nspace;
  o.key = g.hobj.get_key();
  o.name = g.hobj.oid.name;
  o.snap = g.hobj.snap.val;
  o.hash = g.hobj.get_hash();
  o.generation = g.generation;
  o.shard = g.shard_id.id;
  return o;
}

ghobject_t ToGhobject(const ObjectId& o) {
  if (o.max) return ghobject_t::get_max();
  return ghobject_t(hobject_t(object_t(o.name), o.key, snapid_t(o.snap), o.hash, o.pool, o.nspace),
                    o.generation, shard_id_t(o.shard));
}

}  // namespace smr::ceph_adapter
