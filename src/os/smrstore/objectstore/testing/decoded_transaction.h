// Test access to a Transaction's fields, set as Ceph's Transaction::decode leaves them
// after reading a peer's message: op_bl, data_bl, the index tables and the op count, as
// they came (for the fuzz target fuzz/transaction_fuzz.cc and the adapter's tests of
// malformed transactions). Not for production code.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "os/Transaction.h"

namespace ceph::os {

struct DecodedTransactionAccess {
  static void Set(Transaction* t, uint64_t ops, const std::string& op_bytes,
                  const std::string& data_bytes, std::map<coll_t, uint32_t> colls,
                  std::map<ghobject_t, uint32_t> objects) {
    t->data.ops = ops;
    t->op_bl.clear();
    t->op_bl.append(op_bytes.data(), op_bytes.size());
    t->data_bl.clear();
    t->data_bl.append(data_bytes.data(), data_bytes.size());
    t->coll_index = std::move(colls);
    t->object_index = std::move(objects);
    t->coll_id = static_cast<uint32_t>(t->coll_index.size());
    t->object_id = static_cast<uint32_t>(t->object_index.size());
  }
  // A transaction's raw parts, to start a malformed one from a well-formed one.
  static std::string OpBytes(Transaction& t) { return std::string(t.op_bl.c_str(), t.op_bl.length()); }
  static std::string DataBytes(Transaction& t) {
    return std::string(t.data_bl.c_str(), t.data_bl.length());
  }
  static uint64_t Ops(const Transaction& t) { return t.data.ops; }
  static std::map<coll_t, uint32_t> Colls(const Transaction& t) { return t.coll_index; }
  static std::map<ghobject_t, uint32_t> Objects(const Transaction& t) { return t.object_index; }
};

}  // namespace ceph::os
