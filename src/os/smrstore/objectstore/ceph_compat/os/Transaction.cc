// ceph_compat: ceph::os::Transaction (see os/Transaction.h for the encoding contract).
#include "os/Transaction.h"

#include <cstring>
#include <memory>
#include <stdexcept>

namespace ceph::os {

namespace {

// Runs the wrapped Context when the last owner (applied or commit callback) lets go.
struct RunOnLastRelease {
  explicit RunOnLastRelease(Context* c) : c_(c) {}
  ~RunOnLastRelease() { c_->complete(0); }
  Context* c_;
};

class C_Hold : public Context {
 public:
  explicit C_Hold(std::shared_ptr<RunOnLastRelease> h) : h_(std::move(h)) {}

 protected:
  void finish(int) override { h_.reset(); }

 private:
  std::shared_ptr<RunOnLastRelease> h_;
};

}  // namespace

Transaction::Transaction(Transaction&& o) noexcept
    : data(o.data), coll_index(std::move(o.coll_index)),
      object_index(std::move(o.object_index)), coll_id(o.coll_id), object_id(o.object_id),
      data_bl(std::move(o.data_bl)), op_bl(std::move(o.op_bl)),
      on_applied(std::move(o.on_applied)), on_commit(std::move(o.on_commit)),
      on_applied_sync(std::move(o.on_applied_sync)) {
  o.data = TransactionData();
  o.coll_id = o.object_id = 0;
  o.coll_index.clear();
  o.object_index.clear();
}

Transaction& Transaction::operator=(Transaction&& o) noexcept {
  if (this == &o) return *this;
  data = o.data;
  coll_index = std::move(o.coll_index);
  object_index = std::move(o.object_index);
  coll_id = o.coll_id;
  object_id = o.object_id;
  op_bl = std::move(o.op_bl);
  data_bl = std::move(o.data_bl);
  on_applied = std::move(o.on_applied);
  on_commit = std::move(o.on_commit);
  on_applied_sync = std::move(o.on_applied_sync);
  o.data = TransactionData();
  o.coll_id = o.object_id = 0;
  o.coll_index.clear();
  o.object_index.clear();
  return *this;
}

Transaction::~Transaction() = default;

void Transaction::register_on_complete(Context* c) {
  if (c == nullptr) return;
  auto hold = std::make_shared<RunOnLastRelease>(c);
  register_on_applied(new C_Hold(hold));
  register_on_commit(new C_Hold(hold));
}

void Transaction::collect_contexts(std::vector<Transaction>& t, Context** out_on_applied,
                                   Context** out_on_commit, Context** out_on_applied_sync) {
  std::list<Context*> applied, commit, applied_sync;
  for (Transaction& x : t) {
    applied.splice(applied.end(), x.on_applied);
    commit.splice(commit.end(), x.on_commit);
    applied_sync.splice(applied_sync.end(), x.on_applied_sync);
  }
  *out_on_applied = C_Contexts::list_to_context(applied);
  *out_on_commit = C_Contexts::list_to_context(commit);
  *out_on_applied_sync = C_Contexts::list_to_context(applied_sync);
}

uint32_t Transaction::coll_id_of(const coll_t& c) {
  auto [it, inserted] = coll_index.emplace(c, coll_id);
  if (inserted) ++coll_id;
  return it->second;
}

uint32_t Transaction::object_id_of(const ghobject_t& o) {
  auto [it, inserted] = object_index.emplace(o, object_id);
  if (inserted) ++object_id;
  return it->second;
}

Transaction::Op Transaction::make_op(uint32_t code, const coll_t& cid, const ghobject_t& oid) {
  Op op;
  std::memset(&op, 0, sizeof(op));
  op.op = code;
  op.cid = coll_id_of(cid);
  op.oid = object_id_of(oid);
  return op;
}

Transaction::Op Transaction::make_coll_op(uint32_t code, const coll_t& cid) {
  Op op;
  std::memset(&op, 0, sizeof(op));
  op.op = code;
  op.cid = coll_id_of(cid);
  return op;
}

void Transaction::add_op(const Op& op) {
  op_bl.append(reinterpret_cast<const char*>(&op), sizeof(op));
  ++data.ops;
}

void Transaction::put_u32(uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  data_bl.append(b, 4);
}

void Transaction::put_string(const std::string& s) {
  put_u32(static_cast<uint32_t>(s.size()));
  data_bl.append(s.data(), s.size());
}

void Transaction::put_bl(const ceph::buffer::list& bl) {
  put_u32(bl.length());
  data_bl.append(bl);
}

void Transaction::append(Transaction& other) {
  // Renumber `other`'s collections and objects into this transaction's index.
  std::vector<uint32_t> cmap(other.coll_index.size()), omap(other.object_index.size());
  for (const auto& [c, id] : other.coll_index) cmap[id] = coll_id_of(c);
  for (const auto& [o, id] : other.object_index) omap[id] = object_id_of(o);
  const char* p = other.op_bl.c_str();
  for (uint64_t i = 0; i < other.data.ops; ++i) {
    Op op;
    std::memcpy(&op, p + i * sizeof(Op), sizeof(Op));
    switch (op.op) {
      case OP_NOP:
        break;
      case OP_MKCOLL: case OP_RMCOLL: case OP_COLL_HINT: case OP_COLL_SET_BITS:
        op.cid = cmap.at(op.cid);
        break;
      case OP_SPLIT_COLLECTION2: case OP_MERGE_COLLECTION:
        op.cid = cmap.at(op.cid);
        op.dest_cid = cmap.at(op.dest_cid);
        break;
      case OP_CLONE: case OP_CLONERANGE: case OP_CLONERANGE2: case OP_TRY_RENAME:
        op.cid = cmap.at(op.cid);
        op.oid = omap.at(op.oid);
        op.dest_oid = omap.at(op.dest_oid);
        break;
      case OP_COLL_MOVE_RENAME:
        op.cid = cmap.at(op.cid);
        op.oid = omap.at(op.oid);
        op.dest_cid = cmap.at(op.dest_cid);
        op.dest_oid = omap.at(op.dest_oid);
        break;
      default:
        op.cid = cmap.at(op.cid);
        op.oid = omap.at(op.oid);
        break;
    }
    add_op(op);
  }
  data_bl.append(other.data_bl);
  data.fadvise_flags |= other.data.fadvise_flags;
  on_applied.splice(on_applied.end(), other.on_applied);
  on_commit.splice(on_commit.end(), other.on_commit);
  on_applied_sync.splice(on_applied_sync.end(), other.on_applied_sync);
}

void Transaction::nop() {
  Op op;
  std::memset(&op, 0, sizeof(op));
  op.op = OP_NOP;
  add_op(op);
}

void Transaction::create(const coll_t& cid, const ghobject_t& oid) {
  add_op(make_op(OP_CREATE, cid, oid));
}

void Transaction::touch(const coll_t& cid, const ghobject_t& oid) {
  add_op(make_op(OP_TOUCH, cid, oid));
}

void Transaction::write(const coll_t& cid, const ghobject_t& oid, uint64_t off, uint64_t len,
                        const ceph::buffer::list& data, uint32_t flags) {
  if (len != data.length()) {
    throw std::invalid_argument("Transaction::write: len differs from the data's length");
  }
  Op op = make_op(OP_WRITE, cid, oid);
  op.off = off;
  op.len = len;
  add_op(op);
  if (data.length() > this->data.largest_data_len) {
    // Pacific's hint: where the largest payload sits (after its u32 length prefix).
    this->data.largest_data_len = data.length();
    this->data.largest_data_off = static_cast<uint32_t>(off);
    this->data.largest_data_off_in_data_bl = data_bl.length() + sizeof(uint32_t);
  }
  put_bl(data);
  this->data.fadvise_flags |= flags;
}

void Transaction::zero(const coll_t& cid, const ghobject_t& oid, uint64_t off, uint64_t len) {
  Op op = make_op(OP_ZERO, cid, oid);
  op.off = off;
  op.len = len;
  add_op(op);
}

void Transaction::truncate(const coll_t& cid, const ghobject_t& oid, uint64_t off) {
  Op op = make_op(OP_TRUNCATE, cid, oid);
  op.off = off;
  add_op(op);
}

void Transaction::remove(const coll_t& cid, const ghobject_t& oid) {
  add_op(make_op(OP_REMOVE, cid, oid));
}

void Transaction::setattr(const coll_t& cid, const ghobject_t& oid, const char* name,
                          ceph::buffer::list& val) {
  setattr(cid, oid, std::string(name), val);
}

void Transaction::setattr(const coll_t& cid, const ghobject_t& oid, const std::string& name,
                          ceph::buffer::list& val) {
  add_op(make_op(OP_SETATTR, cid, oid));
  put_string(name);
  put_bl(val);
}

void Transaction::setattrs(const coll_t& cid, const ghobject_t& oid,
                           const std::map<std::string, ceph::buffer::ptr>& attrset) {
  add_op(make_op(OP_SETATTRS, cid, oid));
  put_u32(static_cast<uint32_t>(attrset.size()));
  for (const auto& [k, v] : attrset) {
    put_string(k);
    put_u32(v.length());
    data_bl.append(v.c_str(), v.length());
  }
}

void Transaction::setattrs(const coll_t& cid, const ghobject_t& oid,
                           const std::map<std::string, ceph::buffer::list>& attrset) {
  add_op(make_op(OP_SETATTRS, cid, oid));
  put_u32(static_cast<uint32_t>(attrset.size()));
  for (const auto& [k, v] : attrset) {
    put_string(k);
    put_bl(v);
  }
}

void Transaction::rmattr(const coll_t& cid, const ghobject_t& oid, const char* name) {
  rmattr(cid, oid, std::string(name));
}

void Transaction::rmattr(const coll_t& cid, const ghobject_t& oid, const std::string& name) {
  add_op(make_op(OP_RMATTR, cid, oid));
  put_string(name);
}

void Transaction::rmattrs(const coll_t& cid, const ghobject_t& oid) {
  add_op(make_op(OP_RMATTRS, cid, oid));
}

void Transaction::clone(const coll_t& cid, const ghobject_t& oid, const ghobject_t& noid) {
  Op op = make_op(OP_CLONE, cid, oid);
  op.dest_oid = object_id_of(noid);
  add_op(op);
}

void Transaction::clone_range(const coll_t& cid, const ghobject_t& oid, const ghobject_t& noid,
                              uint64_t srcoff, uint64_t srclen, uint64_t dstoff) {
  Op op = make_op(OP_CLONERANGE2, cid, oid);
  op.dest_oid = object_id_of(noid);
  op.off = srcoff;
  op.len = srclen;
  op.dest_off = dstoff;
  add_op(op);
}

void Transaction::create_collection(const coll_t& cid, int bits) {
  Op op = make_coll_op(OP_MKCOLL, cid);
  op.split_bits = static_cast<uint32_t>(bits);
  add_op(op);
}

void Transaction::remove_collection(const coll_t& cid) { add_op(make_coll_op(OP_RMCOLL, cid)); }

void Transaction::collection_hint(const coll_t& cid, uint32_t type,
                                  const ceph::buffer::list& hint) {
  Op op = make_coll_op(OP_COLL_HINT, cid);
  op.hint = type;
  add_op(op);
  put_bl(hint);
}

void Transaction::collection_move_rename(const coll_t& oldcid, const ghobject_t& oldoid,
                                         const coll_t& cid, const ghobject_t& oid) {
  Op op = make_op(OP_COLL_MOVE_RENAME, oldcid, oldoid);
  op.dest_cid = coll_id_of(cid);
  op.dest_oid = object_id_of(oid);
  add_op(op);
}

void Transaction::try_rename(const coll_t& cid, const ghobject_t& oldoid, const ghobject_t& oid) {
  Op op = make_op(OP_TRY_RENAME, cid, oldoid);
  op.dest_oid = object_id_of(oid);
  add_op(op);
}

void Transaction::omap_clear(const coll_t& cid, const ghobject_t& oid) {
  add_op(make_op(OP_OMAP_CLEAR, cid, oid));
}

void Transaction::omap_setkeys(const coll_t& cid, const ghobject_t& oid,
                               const std::map<std::string, ceph::buffer::list>& attrset) {
  add_op(make_op(OP_OMAP_SETKEYS, cid, oid));
  put_u32(static_cast<uint32_t>(attrset.size()));
  for (const auto& [k, v] : attrset) {
    put_string(k);
    put_bl(v);
  }
}

void Transaction::omap_rmkeys(const coll_t& cid, const ghobject_t& oid,
                              const std::set<std::string>& keys) {
  add_op(make_op(OP_OMAP_RMKEYS, cid, oid));
  put_u32(static_cast<uint32_t>(keys.size()));
  for (const std::string& k : keys) put_string(k);
}

void Transaction::omap_rmkey(const coll_t& cid, const ghobject_t& oid, const std::string& key) {
  omap_rmkeys(cid, oid, std::set<std::string>{key});
}

void Transaction::omap_rmkeyrange(const coll_t& cid, const ghobject_t& oid,
                                  const std::string& first, const std::string& last) {
  add_op(make_op(OP_OMAP_RMKEYRANGE, cid, oid));
  put_string(first);
  put_string(last);
}

void Transaction::omap_setheader(const coll_t& cid, const ghobject_t& oid,
                                 const ceph::buffer::list& bl) {
  add_op(make_op(OP_OMAP_SETHEADER, cid, oid));
  put_bl(bl);
}

void Transaction::split_collection(const coll_t& cid, uint32_t bits, uint32_t rem,
                                   const coll_t& destination) {
  Op op = make_coll_op(OP_SPLIT_COLLECTION2, cid);
  op.dest_cid = coll_id_of(destination);
  op.split_bits = bits;
  op.split_rem = rem;
  add_op(op);
}

void Transaction::merge_collection(const coll_t& cid, const coll_t& destination, uint32_t bits) {
  Op op = make_coll_op(OP_MERGE_COLLECTION, cid);
  op.dest_cid = coll_id_of(destination);
  op.split_bits = bits;
  add_op(op);
}

void Transaction::collection_set_bits(const coll_t& cid, int bits) {
  Op op = make_coll_op(OP_COLL_SET_BITS, cid);
  op.split_bits = static_cast<uint32_t>(bits);
  add_op(op);
}

void Transaction::set_alloc_hint(const coll_t& cid, const ghobject_t& oid,
                                 uint64_t expected_object_size, uint64_t expected_write_size,
                                 uint32_t flags) {
  Op op = make_op(OP_SETALLOCHINT, cid, oid);
  op.expected_object_size = expected_object_size;
  op.expected_write_size = expected_write_size;
  op.hint = flags;
  add_op(op);
}

// --- iterator ---

Transaction::iterator::iterator(Transaction* t)
    : colls(t->coll_index.size()), objects(t->object_index.size()), t_(t), ops_left_(t->data.ops),
      op_p_(t->op_bl.length() ? t->op_bl.c_str() : nullptr),
      op_end_(op_p_ ? op_p_ + t->op_bl.length() : nullptr), data_p_(t->data_bl.cbegin()) {
  // A Transaction decoded from a peer's message carries its index tables as they came:
  // a number past the table's size would write past `colls`/`objects` (Ceph's own
  // iterator trusts them).
  for (const auto& [c, id] : t->coll_index) {
    if (id >= colls.size()) {
      throw std::out_of_range("Transaction: collection " + c.to_str() + " has index " +
                              std::to_string(id) + ", past the table of " +
                              std::to_string(colls.size()));
    }
    colls[id] = c;
  }
  for (const auto& [o, id] : t->object_index) {
    if (id >= objects.size()) {
      throw std::out_of_range("Transaction: an object has index " + std::to_string(id) +
                              ", past the table of " + std::to_string(objects.size()));
    }
    objects[id] = o;
  }
}

Transaction::Op* Transaction::iterator::decode_op() {
  if (ops_left_ == 0) throw std::out_of_range("Transaction::iterator: no op left");
  if (op_p_ == nullptr || static_cast<size_t>(op_end_ - op_p_) < sizeof(Op)) {
    throw std::out_of_range("Transaction: op count " + std::to_string(t_->data.ops) +
                            " is more than op_bl holds (" + std::to_string(t_->op_bl.length()) +
                            " bytes)");
  }
  Op* op = reinterpret_cast<Op*>(const_cast<char*>(op_p_));
  op_p_ += sizeof(Op);
  --ops_left_;
  return op;
}

namespace {
uint32_t GetU32(ceph::buffer::list::const_iterator& p) {
  unsigned char b[4];
  p.copy(4, reinterpret_cast<char*>(b));
  return static_cast<uint32_t>(b[0]) | (static_cast<uint32_t>(b[1]) << 8) |
         (static_cast<uint32_t>(b[2]) << 16) | (static_cast<uint32_t>(b[3]) << 24);
}
// A length prefix, refused before anything is allocated for it when data_bl does not
// hold that many bytes (a decoded transaction's prefixes are a peer's numbers).
uint32_t GetLength(ceph::buffer::list::const_iterator& p) {
  const uint32_t n = GetU32(p);
  if (n > p.get_remaining()) {
    throw std::out_of_range("Transaction: a payload of " + std::to_string(n) +
                            " bytes, but data_bl holds " + std::to_string(p.get_remaining()) +
                            " more");
  }
  return n;
}
}  // namespace

std::string Transaction::iterator::decode_string() {
  const uint32_t n = GetLength(data_p_);
  std::string s;
  data_p_.copy(n, s);
  return s;
}

void Transaction::iterator::decode_bl(ceph::buffer::list& bl) {
  const uint32_t n = GetLength(data_p_);
  data_p_.copy(n, bl);
}

void Transaction::iterator::decode_attrset(std::map<std::string, ceph::buffer::ptr>& aset) {
  const uint32_t n = GetU32(data_p_);
  for (uint32_t i = 0; i < n; ++i) {
    std::string k = decode_string();
    const uint32_t len = GetLength(data_p_);
    ceph::buffer::ptr v(len);
    if (len) data_p_.copy(len, v.c_str());
    aset[std::move(k)] = std::move(v);
  }
}

void Transaction::iterator::decode_attrset(std::map<std::string, ceph::buffer::list>& aset) {
  const uint32_t n = GetU32(data_p_);
  for (uint32_t i = 0; i < n; ++i) {
    std::string k = decode_string();
    ceph::buffer::list v;
    decode_bl(v);
    aset[std::move(k)] = std::move(v);
  }
}

void Transaction::iterator::decode_keyset(std::set<std::string>& keys) {
  const uint32_t n = GetU32(data_p_);
  for (uint32_t i = 0; i < n; ++i) keys.insert(decode_string());
}

const ghobject_t& Transaction::iterator::get_oid(uint32_t oid_id) {
  if (oid_id >= objects.size()) throw std::out_of_range("Transaction: object index out of range");
  return objects[oid_id];
}

const coll_t& Transaction::iterator::get_cid(uint32_t cid_id) {
  if (cid_id >= colls.size()) throw std::out_of_range("Transaction: collection index out of range");
  return colls[cid_id];
}

}  // namespace ceph::os
