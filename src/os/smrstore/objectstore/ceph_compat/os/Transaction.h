// ceph_compat: os/Transaction.h — ceph::os::Transaction, written for smrstore from Ceph
// Pacific's public interface (libos, where Ceph implements it, is not shipped by Debian).
//
// Contract
//   The builder methods, op codes, the Op record (packed, little-endian on x86-64), the
//   iterator (have_op / decode_op / get_cid / get_oid / decode_bl / decode_string /
//   decode_attrset / decode_keyset) and the callback lists behave as Pacific's do, so an
//   ObjectStore written against this header compiles unchanged against Ceph's own.
//   Encoding: every op appends one Op to op_bl; collections and objects are numbered in
//   coll_index / object_index (Op.cid / Op.oid / Op.dest_* are those numbers); payloads,
//   names and key sets go to data_bl in op order, each length-prefixed (u32 LE). The
//   iterator consumes data_bl in the same order, so a consumer must decode an op's
//   payloads in the documented order before the next op (as Ceph's consumers do).
//   Not provided: the wire encode/decode of a whole Transaction (an OSD-to-OSD concern;
//   smrstore never receives one outside an OSD, where Ceph's own class is used). But
//   inside ceph-osd this iterator does read transactions Ceph decoded from a peer's
//   message, with op_bl, data_bl, the index tables and the op count as they came; so,
//   unlike Pacific's, it checks them: an index past its table, an op record past op_bl's
//   end, a length prefix longer than what data_bl holds or a payload past its end throw
//   std::out_of_range (or Ceph's buffer::end_of_buffer) before anything is read or
//   allocated for them (fuzz/transaction_fuzz.cc).
// ABI: the data members are Pacific's, in Pacific's order and layout (ceph-osd-dbg: data 0
//   (24 bytes), coll_index 24, object_index 72, coll_id 120, object_id 124, data_bl 128,
//   op_bl 160, on_applied 192, on_commit 216, on_applied_sync 240; sizeof 264; Op 72 bytes
//   packed): inside ceph-osd the Transactions handed to queue_transactions are built by
//   the OSD's own code and read by this iterator. Checked by qa/ceph/abi/check-abi.sh, and
//   by decoding transactions the OSD's own builders made (osd_preload self-test).
// Thread safety: a value type; build on one thread, then hand it to queue_transactions.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "include/Context.h"
#include "include/buffer.h"
#include "osd/osd_types.h"

namespace ceph::os {

class Transaction {
 public:
  enum {
    OP_NOP = 0,
    OP_CREATE = 7,        // cid, oid
    OP_TOUCH = 9,         // cid, oid
    OP_WRITE = 10,        // cid, oid, off, len, data
    OP_ZERO = 11,         // cid, oid, off, len
    OP_TRUNCATE = 12,     // cid, oid, off (= new size)
    OP_REMOVE = 13,       // cid, oid
    OP_SETATTR = 14,      // cid, oid, name, value
    OP_SETATTRS = 15,     // cid, oid, attrset
    OP_RMATTR = 16,       // cid, oid, name
    OP_CLONE = 17,        // cid, oid, dest_oid
    OP_CLONERANGE = 18,   // cid, oid, dest_oid, off, len (source offset = dest offset)
    OP_TRIMCACHE = 19,    // deprecated
    OP_MKCOLL = 20,       // cid, split_bits
    OP_RMCOLL = 21,       // cid
    OP_COLL_ADD = 22,     // deprecated
    OP_COLL_REMOVE = 23,  // deprecated
    OP_COLL_SETATTR = 24,
    OP_COLL_RMATTR = 25,
    OP_COLL_SETATTRS = 26,
    OP_COLL_MOVE = 8,     // deprecated
    OP_RMATTRS = 28,      // cid, oid
    OP_COLL_RENAME = 29,  // deprecated
    OP_CLONERANGE2 = 30,  // cid, oid, dest_oid, off (source), len, dest_off
    OP_OMAP_CLEAR = 31,   // cid, oid
    OP_OMAP_SETKEYS = 32,      // cid, oid, key -> value set
    OP_OMAP_RMKEYS = 33,       // cid, oid, key set
    OP_OMAP_SETHEADER = 34,    // cid, oid, header
    OP_SPLIT_COLLECTION = 35,  // deprecated
    OP_SPLIT_COLLECTION2 = 36, // cid, split_bits, split_rem, dest_cid
    OP_OMAP_RMKEYRANGE = 37,   // cid, oid, first, last
    OP_COLL_MOVE_RENAME = 38,  // cid, oid -> dest_cid, dest_oid
    OP_SETALLOCHINT = 39,      // cid, oid, expected_object_size, expected_write_size, hint
    OP_COLL_HINT = 40,         // cid, hint (type), data
    OP_TRY_RENAME = 41,        // cid, oid -> dest_oid (missing source tolerated)
    OP_COLL_SET_BITS = 42,     // cid, split_bits
    OP_MERGE_COLLECTION = 43,  // cid, dest_cid, split_bits
  };
  enum { COLL_HINT_EXPECTED_NUM_OBJECTS = 1 };

  struct Op {
    uint32_t op;
    uint32_t cid;
    uint32_t oid;
    uint64_t off;
    uint64_t len;
    uint32_t dest_cid;
    uint32_t dest_oid;
    uint64_t dest_off;
    uint32_t hint;
    uint64_t expected_object_size;
    uint64_t expected_write_size;
    uint32_t split_bits;
    uint32_t split_rem;
  } __attribute__((packed));

  Transaction() = default;
  Transaction(const Transaction&) = default;
  Transaction& operator=(const Transaction&) = default;
  Transaction(Transaction&&) noexcept;
  Transaction& operator=(Transaction&&) noexcept;
  ~Transaction();

  // --- Callbacks. ---
  void register_on_applied(Context* c) {
    if (c) on_applied.push_back(c);
  }
  void register_on_commit(Context* c) {
    if (c) on_commit.push_back(c);
  }
  void register_on_applied_sync(Context* c) {
    if (c) on_applied_sync.push_back(c);
  }
  // `c` runs once, after both the applied and the commit callbacks have run.
  void register_on_complete(Context* c);
  bool has_contexts() const {
    return !on_commit.empty() || !on_applied.empty() || !on_applied_sync.empty();
  }
  // Moves every transaction's callbacks into three Contexts (nullptr when none).
  static void collect_contexts(std::vector<Transaction>& t, Context** out_on_applied,
                               Context** out_on_commit, Context** out_on_applied_sync);
  Context* get_on_applied() { return C_Contexts::list_to_context(on_applied); }
  Context* get_on_commit() { return C_Contexts::list_to_context(on_commit); }
  Context* get_on_applied_sync() { return C_Contexts::list_to_context(on_applied_sync); }

  void set_fadvise_flags(uint32_t flags) { data.fadvise_flags = flags; }
  uint32_t get_fadvise_flags() const { return data.fadvise_flags; }
  bool empty() const { return data.ops == 0; }
  int get_num_ops() const { return static_cast<int>(data.ops); }
  uint64_t get_num_bytes() const { return op_bl.length() + data_bl.length(); }
  // Appends `other`'s ops (renumbering its collections and objects) and callbacks.
  void append(Transaction& other);

  // --- Ops. ---
  void nop();
  void create(const coll_t& cid, const ghobject_t& oid);
  void touch(const coll_t& cid, const ghobject_t& oid);
  void write(const coll_t& cid, const ghobject_t& oid, uint64_t off, uint64_t len,
             const ceph::buffer::list& data, uint32_t flags = 0);
  void zero(const coll_t& cid, const ghobject_t& oid, uint64_t off, uint64_t len);
  void truncate(const coll_t& cid, const ghobject_t& oid, uint64_t off);
  void remove(const coll_t& cid, const ghobject_t& oid);
  void setattr(const coll_t& cid, const ghobject_t& oid, const char* name,
               ceph::buffer::list& val);
  void setattr(const coll_t& cid, const ghobject_t& oid, const std::string& name,
               ceph::buffer::list& val);
  void setattrs(const coll_t& cid, const ghobject_t& oid,
                const std::map<std::string, ceph::buffer::ptr>& attrset);
  void setattrs(const coll_t& cid, const ghobject_t& oid,
                const std::map<std::string, ceph::buffer::list>& attrset);
  void rmattr(const coll_t& cid, const ghobject_t& oid, const char* name);
  void rmattr(const coll_t& cid, const ghobject_t& oid, const std::string& name);
  void rmattrs(const coll_t& cid, const ghobject_t& oid);
  void clone(const coll_t& cid, const ghobject_t& oid, const ghobject_t& noid);
  void clone_range(const coll_t& cid, const ghobject_t& oid, const ghobject_t& noid,
                   uint64_t srcoff, uint64_t srclen, uint64_t dstoff);
  void create_collection(const coll_t& cid, int bits);
  void remove_collection(const coll_t& cid);
  void collection_hint(const coll_t& cid, uint32_t type, const ceph::buffer::list& hint);
  void collection_move_rename(const coll_t& oldcid, const ghobject_t& oldoid, const coll_t& cid,
                              const ghobject_t& oid);
  void try_rename(const coll_t& cid, const ghobject_t& oldoid, const ghobject_t& oid);
  void omap_clear(const coll_t& cid, const ghobject_t& oid);
  void omap_setkeys(const coll_t& cid, const ghobject_t& oid,
                    const std::map<std::string, ceph::buffer::list>& attrset);
  void omap_rmkeys(const coll_t& cid, const ghobject_t& oid, const std::set<std::string>& keys);
  void omap_rmkey(const coll_t& cid, const ghobject_t& oid, const std::string& key);
  void omap_rmkeyrange(const coll_t& cid, const ghobject_t& oid, const std::string& first,
                       const std::string& last);
  void omap_setheader(const coll_t& cid, const ghobject_t& oid, const ceph::buffer::list& bl);
  void split_collection(const coll_t& cid, uint32_t bits, uint32_t rem,
                        const coll_t& destination);
  void merge_collection(const coll_t& cid, const coll_t& destination, uint32_t bits);
  void collection_set_bits(const coll_t& cid, int bits);
  void set_alloc_hint(const coll_t& cid, const ghobject_t& oid, uint64_t expected_object_size,
                      uint64_t expected_write_size, uint32_t flags);

  // Steps through the ops of a transaction (see the contract for the payload order).
  class iterator {
   public:
    bool have_op() const { return ops_left_ > 0; }
    Op* decode_op();
    std::string decode_string();
    void decode_bl(ceph::buffer::list& bl);
    void decode_attrset(std::map<std::string, ceph::buffer::ptr>& aset);
    void decode_attrset(std::map<std::string, ceph::buffer::list>& aset);
    void decode_keyset(std::set<std::string>& keys);
    const ghobject_t& get_oid(uint32_t oid_id);
    const coll_t& get_cid(uint32_t cid_id);
    uint32_t get_fadvise_flags() const { return t_->get_fadvise_flags(); }
    const std::vector<ghobject_t>& get_objects() const { return objects; }

    std::vector<coll_t> colls;
    std::vector<ghobject_t> objects;

   private:
    explicit iterator(Transaction* t);
    friend class Transaction;
    Transaction* t_;
    uint64_t ops_left_;
    const char* op_p_;
    const char* op_end_;  // end of op_bl: decode_op never reads past it
    ceph::buffer::list::const_iterator data_p_;
  };
  iterator begin() { return iterator(this); }

 private:
  // Tests and the fuzz target set the fields as Ceph's Transaction::decode leaves them
  // (objectstore/testing/decoded_transaction.h).
  friend struct DecodedTransactionAccess;
  void add_op(const Op& op);
  Op make_op(uint32_t code, const coll_t& cid, const ghobject_t& oid);
  Op make_coll_op(uint32_t code, const coll_t& cid);
  uint32_t coll_id_of(const coll_t& c);
  uint32_t object_id_of(const ghobject_t& o);
  void put_u32(uint32_t v);
  void put_string(const std::string& s);
  void put_bl(const ceph::buffer::list& bl);

  // Pacific's TransactionData (packed, 24 bytes); the largest_data_* fields are kept as
  // Pacific keeps them (a hint for the FileStore journal; smrstore does not read them).
  struct TransactionData {
    uint64_t ops = 0;
    uint32_t largest_data_len = 0;
    uint32_t largest_data_off = 0;
    uint32_t largest_data_off_in_data_bl = 0;
    uint32_t fadvise_flags = 0;
  } __attribute__((packed));

  TransactionData data;
  std::map<coll_t, uint32_t> coll_index;
  std::map<ghobject_t, uint32_t> object_index;
  uint32_t coll_id = 0;
  uint32_t object_id = 0;
  ceph::buffer::list data_bl;
  ceph::buffer::list op_bl;
  std::list<Context*> on_applied;
  std::list<Context*> on_commit;
  std::list<Context*> on_applied_sync;
};

}  // namespace ceph::os
