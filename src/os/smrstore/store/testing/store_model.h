// The reference model of the store's randomized model test (store/store_model_test.cc):
// collections -> objects -> {data, attrs, omap header, omap}, changed by Transaction ops
// with the semantics and error codes of store/transaction.h (ModelOp, one op; ModelApply,
// a whole transaction all-or-nothing, with an Undo that can revert it), and the comparison
// of a real Store with it (DiffStore, DiffObject: "" when equal, else the first
// difference), with the descriptions of ops and transactions that failure messages print.
// Objects are shared copy-on-write, so saving a collection for undo is cheap. The random
// transactions that drive it are store/testing/store_model_generator.h's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "format/object_id.h"
#include "store/store.h"
#include "store/transaction.h"

namespace smr::store_model {

using Kv = std::map<std::string, std::string>;
using Op = Transaction::Op;
using C = Transaction::OpCode;

// ---------------------------------------------------------------------------------------
// The reference model

struct IdLess {
  bool operator()(const ObjectId& a, const ObjectId& b) const { return Compare(a, b) < 0; }
};

struct MObj {
  std::string data;
  Kv attrs;
  std::string header;
  Kv omap;
};

// Objects are shared copy-on-write so that saving a collection for undo is cheap.
struct MColl {
  uint32_t bits = 0;
  std::map<ObjectId, std::shared_ptr<const MObj>, IdLess> objs;
};

using Model = std::map<std::string, MColl>;

inline MObj& Mutable(MColl* c, const ObjectId& oid) {
  auto& p = c->objs[oid];
  if (!p) {
    p = std::make_shared<MObj>();
  } else if (p.use_count() > 1) {
    p = std::make_shared<MObj>(*p);
  }
  return const_cast<MObj&>(*p);
}

// Saved collections (before a transaction) to undo it.
struct Undo {
  std::map<std::string, std::optional<MColl>> saved;
  void Save(const Model& m, const std::string& name) {
    if (name.empty() || saved.count(name)) return;
    auto it = m.find(name);
    saved[name] = it == m.end() ? std::nullopt : std::optional<MColl>(it->second);
  }
  void Revert(Model* m) const {
    for (const auto& [name, c] : saved) {
      if (c) {
        (*m)[name] = *c;
      } else {
        m->erase(name);
      }
    }
  }
};

inline void ModelZero(MObj* o, uint64_t off, uint64_t len) {
  if (len == 0) return;
  if (o->data.size() < off + len) o->data.resize(off + len, '\0');
  std::fill(o->data.begin() + off, o->data.begin() + off + len, '\0');
}

inline void ModelWrite(MObj* o, uint64_t off, const std::string& d) {
  if (d.empty()) return;
  if (o->data.size() < off + d.size()) o->data.resize(off + d.size(), '\0');
  o->data.replace(off, d.size(), d);
}

// One op, per transaction.h. Checks its preconditions before changing anything.
inline Status ModelOp(Model* m, const Op& op) {
  switch (op.code) {
    case C::kNop:
    case C::kCollHint:
      return Status::OK();
    case C::kMkColl: {
      if (m->count(op.coll)) return Status::AlreadyExists("mkcoll");
      (*m)[op.coll].bits = op.bits;
      return Status::OK();
    }
    case C::kRmColl: {
      auto it = m->find(op.coll);
      if (it == m->end()) return Status::NotFound("rmcoll");
      if (!it->second.objs.empty()) return Status::NotEmpty("rmcoll");
      m->erase(it);
      return Status::OK();
    }
    case C::kCollSetBits: {
      auto it = m->find(op.coll);
      if (it == m->end()) return Status::NotFound("coll");
      it->second.bits = op.bits;
      return Status::OK();
    }
    case C::kSplitCollection:
    case C::kMergeCollection: {
      auto src = m->find(op.coll);
      if (src == m->end()) return Status::NotFound("coll");
      auto dst = m->find(op.dest_coll);
      if (dst == m->end()) return Status::NotFound("dest coll");
      const bool split = op.code == C::kSplitCollection;
      const uint32_t mask = op.bits >= 32 ? 0xffffffffu : ((1u << op.bits) - 1);
      for (auto it = src->second.objs.begin(); it != src->second.objs.end();) {
        if (!split || (it->first.hash & mask) == op.rem) {
          dst->second.objs[it->first] = it->second;
          it = src->second.objs.erase(it);
        } else {
          ++it;
        }
      }
      dst->second.bits = op.bits;
      if (split) {
        src->second.bits = op.bits;
      } else {
        m->erase(src);
      }
      return Status::OK();
    }
    default:
      break;
  }
  auto cit = m->find(op.coll);
  if (cit == m->end()) return Status::NotFound("coll");
  MColl& c = cit->second;
  auto oit = c.objs.find(op.oid);
  const bool exists = oit != c.objs.end();
  switch (op.code) {
    case C::kTouch:
      Mutable(&c, op.oid);
      return Status::OK();
    case C::kWrite:
      ModelWrite(&Mutable(&c, op.oid), op.offset, std::string(op.write_data()));
      return Status::OK();
    case C::kZero:
      ModelZero(&Mutable(&c, op.oid), op.offset, op.length);
      return Status::OK();
    case C::kTruncate:
      if (exists) Mutable(&c, op.oid).data.resize(op.offset, '\0');
      return Status::OK();
    case C::kRemove:
      if (exists) c.objs.erase(oit);
      return Status::OK();
    case C::kSetAttrs: {
      if (!exists) return Status::NotFound("setattrs");
      MObj& o = Mutable(&c, op.oid);
      for (const auto& [k, v] : op.kv) o.attrs[k] = v;
      return Status::OK();
    }
    case C::kRmAttr:
      if (!exists) return Status::NotFound("rmattr");
      Mutable(&c, op.oid).attrs.erase(op.data);
      return Status::OK();
    case C::kRmAttrs:
      if (exists) Mutable(&c, op.oid).attrs.clear();
      return Status::OK();
    case C::kClone: {
      if (!exists) return Status::NotFound("clone source");
      c.objs[op.dest_oid] = oit->second;  // shared until either side changes
      return Status::OK();
    }
    case C::kCloneRange: {
      if (!exists) return Status::NotFound("clone_range source");
      const std::string& sd = oit->second->data;
      const std::string piece =
          op.offset >= sd.size() ? std::string() : sd.substr(op.offset, op.length);
      MObj& d = Mutable(&c, op.dest_oid);
      ModelZero(&d, op.dest_offset, op.length);
      ModelWrite(&d, op.dest_offset, piece);
      return Status::OK();
    }
    case C::kCollMoveRename: {
      auto dit = m->find(op.dest_coll);
      if (dit == m->end()) return Status::NotFound("dest coll");
      if (!exists) return Status::OK();
      if (dit->second.objs.count(op.dest_oid)) return Status::AlreadyExists("rename");
      std::shared_ptr<const MObj> o = oit->second;
      c.objs.erase(oit);
      dit->second.objs[op.dest_oid] = std::move(o);
      return Status::OK();
    }
    case C::kOmapClear:
      if (exists) {
        MObj& o = Mutable(&c, op.oid);
        o.omap.clear();
        o.header.clear();
      }
      return Status::OK();
    case C::kOmapSetKeys: {
      if (!exists) return Status::NotFound("omap_setkeys");
      MObj& o = Mutable(&c, op.oid);
      for (const auto& [k, v] : op.kv) o.omap[k] = v;
      return Status::OK();
    }
    case C::kOmapRmKeys: {
      if (!exists) return Status::NotFound("omap_rmkeys");
      MObj& o = Mutable(&c, op.oid);
      for (const auto& k : op.keys) o.omap.erase(k);
      return Status::OK();
    }
    case C::kOmapRmKeyRange: {
      if (!exists) return Status::NotFound("omap_rmkeyrange");
      MObj& o = Mutable(&c, op.oid);
      if (op.data < op.data2) {
        o.omap.erase(o.omap.lower_bound(op.data), o.omap.lower_bound(op.data2));
      }
      return Status::OK();
    }
    case C::kOmapSetHeader:
      if (!exists) return Status::NotFound("omap_setheader");
      Mutable(&c, op.oid).header = op.data;
      return Status::OK();
    case C::kSetAllocHint:
      // The generator only hints existing objects (see the conformance suite for the
      // missing-object case).
      return Status::OK();
    default:
      return Status::NotSupported("model: op");
  }
}

// Applies `t` all-or-nothing; *undo (when given) can revert a successful application.
inline Status ModelApply(Model* m, const Transaction& t, Undo* undo_out = nullptr) {
  Undo undo;
  for (const Op& op : t.ops()) {
    undo.Save(*m, op.coll);
    undo.Save(*m, op.dest_coll);
    Status s = ModelOp(m, op);
    if (!s.ok()) {
      undo.Revert(m);
      return s;
    }
  }
  if (undo_out != nullptr) *undo_out = std::move(undo);
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Describing things for failure messages

inline std::string Short(const std::string& s) {
  std::ostringstream o;
  for (size_t i = 0; i < s.size() && i < 24; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      o << c;
    } else {
      o << "\\x" << std::hex << static_cast<int>(c) << std::dec;
    }
  }
  if (s.size() > 24) o << "..(" << s.size() << ")";
  return o.str();
}

inline std::string DescribeOp(const Op& op) {
  std::ostringstream o;
  o << OpName(op.code) << " " << op.coll;
  switch (op.code) {
    case C::kMkColl:
    case C::kRmColl:
    case C::kCollSetBits:
    case C::kCollHint:
    case C::kNop:
      o << " bits=" << op.bits;
      return o.str();
    case C::kSplitCollection:
    case C::kMergeCollection:
      o << " -> " << op.dest_coll << " bits=" << op.bits << " rem=" << op.rem;
      return o.str();
    default:
      break;
  }
  o << " " << op.oid.ToString();
  switch (op.code) {
    case C::kWrite:
      o << " @" << op.offset << "+" << op.write_data().size();
      break;
    case C::kZero:
    case C::kTruncate:
      o << " @" << op.offset << "+" << op.length;
      break;
    case C::kClone:
      o << " -> " << op.dest_oid.ToString();
      break;
    case C::kCloneRange:
      o << " [" << op.offset << "+" << op.length << "] -> " << op.dest_oid.ToString() << " @"
        << op.dest_offset;
      break;
    case C::kCollMoveRename:
      o << " -> " << op.dest_coll << "/" << op.dest_oid.ToString()
        << (op.tolerate_missing ? " (try)" : "");
      break;
    case C::kRmAttr:
    case C::kOmapSetHeader:
      o << " '" << Short(op.data) << "'";
      break;
    case C::kOmapRmKeyRange:
      o << " ['" << Short(op.data) << "', '" << Short(op.data2) << "')";
      break;
    case C::kSetAttrs:
    case C::kOmapSetKeys:
      o << " {";
      for (const auto& [k, v] : op.kv) o << Short(k) << " ";
      o << "}";
      break;
    case C::kOmapRmKeys:
      o << " {";
      for (const auto& k : op.keys) o << Short(k) << " ";
      o << "}";
      break;
    default:
      break;
  }
  return o.str();
}

inline std::string DescribeTxn(const Transaction& t) {
  std::string s;
  for (const Op& op : t.ops()) s += "    " + DescribeOp(op) + "\n";
  return s;
}

inline std::string Id(const ObjectId& o) { return o.ToString() + "|" + o.key; }

// "" when the store's object equals the model's, else the difference.
inline std::string DiffObject(Store* store, const std::string& coll, const ObjectId& oid,
                              const MObj& want) {
  const std::string who = coll + "/" + oid.ToString();
  auto st = store->Stat(coll, oid);
  if (!st.ok()) return who + ": stat: " + st.status().ToString();
  if (st->size != want.data.size()) {
    return who + ": size " + std::to_string(st->size) + ", model " +
           std::to_string(want.data.size());
  }
  auto data = store->Read(coll, oid, 0, 0);
  if (!data.ok()) return who + ": read: " + data.status().ToString();
  if (*data != want.data) {
    size_t i = 0;
    while (i < data->size() && i < want.data.size() && (*data)[i] == want.data[i]) ++i;
    return who + ": data differs at byte " + std::to_string(i) + " (store " +
           std::to_string(data->size()) + " bytes, model " + std::to_string(want.data.size()) +
           ")";
  }
  auto attrs = store->GetAttrs(coll, oid);
  if (!attrs.ok()) return who + ": getattrs: " + attrs.status().ToString();
  if (*attrs != want.attrs) {
    std::string s = who + ": attrs differ: store {";
    for (const auto& [k, v] : *attrs) s += Short(k) + "=" + Short(v) + " ";
    s += "} model {";
    for (const auto& [k, v] : want.attrs) s += Short(k) + "=" + Short(v) + " ";
    return s + "}";
  }
  auto header = store->GetOmapHeader(coll, oid);
  if (!header.ok()) return who + ": omap header: " + header.status().ToString();
  if (*header != want.header) {
    return who + ": omap header '" + Short(*header) + "', model '" + Short(want.header) + "'";
  }
  auto omap = store->ListOmap(coll, oid, nullptr, 0);
  if (!omap.ok()) return who + ": list omap: " + omap.status().ToString();
  if (Kv(omap->begin(), omap->end()) != want.omap || omap->size() != want.omap.size()) {
    std::string s = who + ": omap differs: store {";
    for (const auto& [k, v] : *omap) s += Short(k) + "=" + Short(v) + " ";
    s += "} model {";
    for (const auto& [k, v] : want.omap) s += Short(k) + "=" + Short(v) + " ";
    return s + "}";
  }
  // Listing order of omap keys is byte order.
  for (size_t i = 1; i < omap->size(); ++i) {
    if (!((*omap)[i - 1].first < (*omap)[i].first)) return who + ": omap not in key order";
  }
  return "";
}

// "" when the store equals the model, else the first difference.
inline std::string DiffStore(Store* store, const Model& model) {
  auto colls = store->ListCollections();
  if (!colls.ok()) return "list collections: " + colls.status().ToString();
  std::vector<std::string> want_colls;
  for (const auto& [name, c] : model) want_colls.push_back(name);
  if (*colls != want_colls) {
    std::string s = "collections: store {";
    for (auto& c : *colls) s += c + " ";
    s += "} model {";
    for (auto& c : want_colls) s += c + " ";
    return s + "}";
  }
  for (const auto& [name, c] : model) {
    auto bits = store->CollectionBits(name);
    if (!bits.ok()) return name + ": bits: " + bits.status().ToString();
    if (*bits != c.bits) {
      return name + ": bits " + std::to_string(*bits) + ", model " + std::to_string(c.bits);
    }
    std::vector<std::string> want;
    for (const auto& [oid, o] : c.objs) want.push_back(Id(oid));
    // One listing, and one paginated listing, both in Ceph's order.
    for (size_t page : {size_t{0}, size_t{7}}) {
      std::vector<std::string> got;
      ObjectId start = ObjectId::Min();
      for (int guard = 0; guard < 10000; ++guard) {
        std::vector<ObjectId> out;
        ObjectId next;
        Status s = store->ListObjects(name, start, ObjectId::Max(), page, &out, &next);
        if (!s.ok()) return name + ": list objects: " + s.ToString();
        for (const ObjectId& o : out) got.push_back(Id(o));
        if (next.max || out.empty()) break;
        start = next;
      }
      if (got != want) {
        std::string s = name + ": listing (page " + std::to_string(page) + ") store [";
        for (auto& g : got) s += g + " ";
        s += "] model [";
        for (auto& w : want) s += w + " ";
        return s + "]";
      }
    }
    auto empty = store->CollectionEmpty(name);
    if (!empty.ok() || *empty != c.objs.empty()) return name + ": CollectionEmpty disagrees";
    for (const auto& [oid, o] : c.objs) {
      std::string d = DiffObject(store, name, oid, *o);
      if (!d.empty()) return d;
    }
  }
  return "";
}

}  // namespace smr::store_model
