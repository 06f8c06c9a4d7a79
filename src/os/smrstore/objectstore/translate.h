// Translate: Ceph's ObjectStore::Transaction -> one smrstore engine Transaction.
//
// Contract
//   Translate reads every op of `tls` through the Transaction iterator and appends the
//   equivalent engine ops to `out`, in order; `touched` collects, per collection name, the
//   object keys and collection-level ops it names (for read-after-queue). It returns 0, or
//   a negative errno with `err` naming the op (its index in `tls` and its code):
//     -EOPNOTSUPP  an op code Pacific's OSD does not generate (deprecated or unknown);
//     -EINVAL      a malformed transaction: a collection or object index past its table,
//                  an op record or payload past the end of op_bl / data_bl, a write whose
//                  payload length differs from the op's.
//   The Transaction need not come from our builders: inside ceph-osd a replica's
//   transactions are decoded by Ceph from a peer's message, which copies op_bl, data_bl,
//   the index tables and the op count as they came (fuzz/transaction_fuzz.cc feeds it
//   exactly such states). Whatever the bytes, Translate neither reads outside them nor
//   throws; on an error `out` and `touched` hold a prefix and must be discarded.
//   Engine-level limits (name lengths, object size) are checked after, by
//   smr::Transaction::Validate.
// Thread safety: pure; `tls` is consumed (its iterators' state) by one thread.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "format/object_id.h"
#include "include/buffer.h"
#include "os/ObjectStore.h"
#include "store/transaction.h"

namespace smr::ceph_adapter {

// What one queued call touches, per collection name.
struct Touched {
  std::map<std::string, std::vector<std::string>> objs;  // coll -> object keys
  std::set<std::string> colls;                            // collection-level ops
};

int Translate(std::vector<ObjectStore::Transaction>& tls, smr::Transaction* out, Touched* touched,
              std::string* err);

// The engine's key of an object (format/object_id.h EncodeObjectKey).
std::string ObjectKey(const smr::ObjectId& o);
// A bufferlist's bytes, in one string.
std::string ToString(const ceph::buffer::list& bl);

}  // namespace smr::ceph_adapter
