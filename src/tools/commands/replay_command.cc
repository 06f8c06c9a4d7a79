// smrstore-tool replay: applies a captured real-OSD transaction trace (qa/traces/README.md,
// `smrstore.trace/1`) to a fresh SMRStore through the Ceph ObjectStore adapter, then checks
// the end state against the capture's `smrstore.expected/1` (itself cross-checked against
// the real OSD when the capture was made) and the data against the replay's own record of
// every byte range it wrote.
#include "replay_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/json.h"
#include "cli/gzip_file.h"
#include "objectstore/SMRStore.h"
#include "objectstore/standalone_context.h"

namespace smr::tool {
namespace {

// The trace and expected files are read with the project's JSON reader (common/json.h);
// a field of the wrong type or missing throws (nlohmann::json or the two helpers below),
// and replay reports it as the capture being malformed.
const std::string& Str(const Json& j) { return j.get_ref<const std::string&>(); }
uint64_t U64(const Json& j) {
  Result<uint64_t> v = JsonU64(j, "trace value");
  if (!v.ok()) throw std::runtime_error(v.status().ToString());
  return *v;
}

// The deterministic byte at `off` of any written range (payloads are not in the trace).
char PatternByte(uint64_t off) { return static_cast<char>((off * 131 + 7) & 0xff); }

std::string Pattern(uint64_t off, uint64_t len) {
  std::string s(len, '\0');
  for (uint64_t i = 0; i < len; ++i) s[i] = PatternByte(off + i);
  return s;
}

ceph::buffer::list Bl(const std::string& s) {
  ceph::buffer::list bl;
  bl.append(s.data(), s.size());
  return bl;
}

// Which byte ranges of each object hold pattern bytes (written) vs zeros.
struct Extents {
  std::map<uint64_t, uint64_t> m;  // offset -> end
  uint64_t size = 0;
  void Write(uint64_t off, uint64_t len) {
    if (len == 0) return;
    Erase(off, len);
    m[off] = off + len;
    size = std::max(size, off + len);
  }
  void Zero(uint64_t off, uint64_t len) {
    if (len == 0) return;
    Erase(off, len);
    size = std::max(size, off + len);
  }
  void Truncate(uint64_t n) {
    Erase(n, UINT64_MAX - n);
    size = n;
  }
  void Erase(uint64_t off, uint64_t len) {
    const uint64_t end = off + len;
    std::map<uint64_t, uint64_t> keep;
    for (const auto& [s, e] : m) {
      if (e <= off || s >= end) {
        keep[s] = e;
        continue;
      }
      if (s < off) keep[s] = off;
      if (e > end) keep[end] = e;
    }
    m.swap(keep);
  }
  bool Check(const std::string& data, std::string* why) const {
    if (data.size() != size) {
      *why = "read " + std::to_string(data.size()) + " bytes, size " + std::to_string(size);
      return false;
    }
    uint64_t pos = 0;
    auto zero_until = [&](uint64_t end) {
      for (; pos < end; ++pos) {
        if (data[pos] != 0) {
          *why = "byte " + std::to_string(pos) + " should be zero (hole)";
          return false;
        }
      }
      return true;
    };
    for (const auto& [s, e] : m) {
      if (!zero_until(s)) return false;
      for (pos = s; pos < e; ++pos) {
        if (data[pos] != PatternByte(pos)) {
          *why = "byte " + std::to_string(pos) + " differs from what was written";
          return false;
        }
      }
    }
    return zero_until(size);
  }
};

struct ReplayStats {
  uint64_t transactions = 0, ops = 0, failed = 0, bytes = 0;
};

class Replayer {
 public:
  Replayer(SMRStore* store) : store_(store) {}

  ObjectStore::CollectionHandle Handle(const coll_t& c) {
    auto it = handles_.find(c.to_str());
    if (it != handles_.end()) return it->second;
    auto h = store_->open_collection(c);
    if (!h) h = store_->create_new_collection(c);
    handles_[c.to_str()] = h;
    return h;
  }

  static coll_t Coll(const std::string& s) {
    coll_t c;
    if (!c.parse(s)) throw std::runtime_error("'" + s + "' is not a coll_t name");
    return c;
  }
  static ghobject_t Oid(const std::string& s) {
    ghobject_t g;
    if (!g.parse(s)) throw std::runtime_error("'" + s + "' is not a ghobject_t (ghobject_t::parse)");
    return g;
  }
  std::string Key(const std::string& coll, const std::string& oid) { return coll + "|" + oid; }

  // Translates one trace op; returns false for an op it does not know.
  void AddOp(const Json& op, ObjectStore::Transaction* t) {
    const std::string name = Str(op.at("op"));
    const std::string cs = Str(op.at("coll"));
    const coll_t c = Coll(cs);
    auto oid_s = [&]() { return Str(op.at("oid")); };
    ++stats_.ops;
    if (name == "nop") {
      t->nop();
    } else if (name == "create" || name == "touch") {
      const ghobject_t o = Oid(oid_s());
      name == "create" ? t->create(c, o) : t->touch(c, o);
      extents_[Key(cs, oid_s())];  // exists now
    } else if (name == "write") {
      const uint64_t off = U64(op.at("offset")), len = U64(op.at("length"));
      ceph::buffer::list bl = Bl(Pattern(off, len));
      t->write(c, Oid(oid_s()), off, len, bl);
      extents_[Key(cs, oid_s())].Write(off, len);
      stats_.bytes += len;
    } else if (name == "zero") {
      const uint64_t off = U64(op.at("offset")), len = U64(op.at("length"));
      t->zero(c, Oid(oid_s()), off, len);
      extents_[Key(cs, oid_s())].Zero(off, len);
    } else if (name == "truncate") {
      const uint64_t n = U64(op.at("offset"));
      t->truncate(c, Oid(oid_s()), n);
      auto it = extents_.find(Key(cs, oid_s()));
      if (it != extents_.end()) it->second.Truncate(n);
    } else if (name == "remove") {
      t->remove(c, Oid(oid_s()));
      extents_.erase(Key(cs, oid_s()));
    } else if (name == "setattrs" || name == "setattr") {
      std::map<std::string, ceph::buffer::list> attrs;
      for (const auto& [k, v] : op.at("attrs").items()) attrs[k] = Bl(std::string(U64(v), 'a'));
      t->setattrs(c, Oid(oid_s()), attrs);
    } else if (name == "rmattr") {
      t->rmattr(c, Oid(oid_s()), Str(op.at("name")));
    } else if (name == "rmattrs") {
      t->rmattrs(c, Oid(oid_s()));
    } else if (name == "clone") {
      const std::string d = Str(op.at("dest_oid"));
      t->clone(c, Oid(oid_s()), Oid(d));
      auto it = extents_.find(Key(cs, oid_s()));
      extents_[Key(cs, d)] = it == extents_.end() ? Extents{} : it->second;
    } else if (name == "clonerange2") {
      const std::string d = Str(op.at("dest_oid"));
      const uint64_t so = U64(op.at("src_offset")), len = U64(op.at("length")),
                     dof = U64(op.at("dest_offset"));
      t->clone_range(c, Oid(oid_s()), Oid(d), so, len, dof);
      // Pattern bytes depend on the offset, so a range cloned elsewhere cannot be predicted:
      // the destination's data is not checked.
      unchecked_.insert(Key(cs, d));
      extents_[Key(cs, d)].size = std::max(extents_[Key(cs, d)].size, dof + len);
    } else if (name == "omap_setkeys") {
      std::map<std::string, ceph::buffer::list> kv;
      for (const auto& [k, v] : op.at("keys").items()) kv[k] = Bl(std::string(U64(v), 'v'));
      t->omap_setkeys(c, Oid(oid_s()), kv);
    } else if (name == "omap_rmkeys") {
      std::set<std::string> keys;
      for (const Json& k : op.at("keys")) keys.insert(Str(k));
      t->omap_rmkeys(c, Oid(oid_s()), keys);
    } else if (name == "omap_rmkeyrange") {
      t->omap_rmkeyrange(c, Oid(oid_s()), Str(op.at("first")), Str(op.at("last")));
    } else if (name == "omap_clear") {
      t->omap_clear(c, Oid(oid_s()));
    } else if (name == "omap_setheader") {
      t->omap_setheader(c, Oid(oid_s()), Bl(std::string(U64(op.at("header_length")), 'h')));
    } else if (name == "op_setallochint") {
      t->set_alloc_hint(c, Oid(oid_s()), U64(op.at("expected_object_size")),
                        U64(op.at("expected_write_size")), 0);
    } else if (name == "mkcoll") {
      t->create_collection(c, static_cast<int>(op.contains("bits") ? U64(op.at("bits")) : 0));
    } else if (name == "coll_hint") {
      t->collection_hint(c, static_cast<uint32_t>(op.contains("type") ? U64(op.at("type")) : 1),
                         ceph::buffer::list());
    } else if (name == "rmcoll") {
      t->remove_collection(c);
    } else if (name == "coll_set_bits") {
      t->collection_set_bits(c, static_cast<int>(U64(op.at("bits"))));
    } else if (name == "split_collection2") {
      t->split_collection(c, static_cast<uint32_t>(U64(op.at("bits"))),
                          static_cast<uint32_t>(U64(op.at("rem"))),
                          Coll(Str(op.at("dest_coll"))));
      split_seen_ = true;
    } else if (name == "merge_collection") {
      t->merge_collection(c, Coll(Str(op.at("dest_coll"))),
                          static_cast<uint32_t>(U64(op.at("bits"))));
      split_seen_ = true;
    } else if (name == "coll_move_rename" || name == "try_rename") {
      const std::string dc = name == "coll_move_rename" ? Str(op.at("dest_coll")) : cs;
      const std::string d = Str(op.at("dest_oid"));
      if (name == "coll_move_rename") {
        t->collection_move_rename(c, Oid(oid_s()), Coll(dc), Oid(d));
      } else {
        t->try_rename(c, Oid(oid_s()), Oid(d));
      }
      auto it = extents_.find(Key(cs, oid_s()));
      if (it != extents_.end()) {
        extents_[Key(dc, d)] = it->second;
        extents_.erase(it);
      }
    } else {
      throw std::runtime_error("unknown trace op '" + name + "'");
    }
  }

  // Queues every transaction (pipelined: the adapter commits in queue order), then waits.
  Status Run(const Json& trace) {
    if (!trace.contains("format") || Str(trace.at("format")) != "smrstore.trace/1") {
      return Status::InvalidArgument("trace: format is not smrstore.trace/1");
    }
    std::vector<std::future<int>> done;
    auto queue = [&](ObjectStore::Transaction&& t, const coll_t& c) {
      auto p = std::make_shared<std::promise<int>>();
      done.push_back(p->get_future());
      t.register_on_commit(make_lambda_context([p](int r) { p->set_value(r); }));
      auto h = Handle(c);
      const int q = store_->queue_transaction(h, std::move(t));
      if (q < 0) throw std::runtime_error("queue_transaction: " + std::to_string(q));
      ++stats_.transactions;
    };
    if (trace.contains("seed")) {
      const Json& seed = trace.at("seed");
      ObjectStore::Transaction t;
      std::string first;
      for (const Json& c : seed.at("collections")) {
        const std::string cs = Str(c.at("coll"));
        if (first.empty()) first = cs;
        t.create_collection(Coll(cs), static_cast<int>(c.contains("bits") ? U64(c.at("bits")) : 0));
      }
      for (const Json& o : seed.at("objects")) {
        const std::string cs = Str(o.at("coll")), os = Str(o.at("oid"));
        t.touch(Coll(cs), Oid(os));
        extents_[Key(cs, os)];
        unchecked_.insert(Key(cs, os));  // real pre-capture contents unknown
      }
      if (!t.empty()) queue(std::move(t), Coll(first));
    }
    for (const Json& tx : trace.at("transactions")) {
      ObjectStore::Transaction t;
      std::string first;
      for (const Json& op : tx.at("ops")) {
        if (first.empty()) first = Str(op.at("coll"));
        AddOp(op, &t);
      }
      if (t.empty()) continue;
      queue(std::move(t), Coll(tx.contains("osr") ? Str(tx.at("osr")) : first));
    }
    for (auto& f : done) {
      if (f.get() != 0) ++stats_.failed;
    }
    return Status::OK();
  }

  // Compares the end state with expected.json; returns one line per difference.
  std::vector<std::string> Check(const Json& expected, uint64_t* objects_checked,
                                 uint64_t* data_checked) {
    std::vector<std::string> diffs;
    auto diff = [&](const std::string& s) {
      if (diffs.size() < 50) diffs.push_back(s);
    };
    for (const auto& [cs, cj] : expected.at("collections").items()) {
      const coll_t c = Coll(cs);
      auto h = store_->open_collection(c);
      if (!h) {
        diff(cs + ": collection missing");
        continue;
      }
      for (const auto& [os, want] : cj.at("objects").items()) {
        ++*objects_checked;
        const ghobject_t o = Oid(os);
        const std::string who = cs + " " + os;
        struct stat st;
        if (int r = store_->stat(h, o, &st, false); r < 0) {
          diff(who + ": stat " + std::to_string(r));
          continue;
        }
        if (static_cast<uint64_t>(st.st_size) != U64(want.at("size"))) {
          diff(who + ": size " + std::to_string(st.st_size) + ", expected " +
               std::to_string(U64(want.at("size"))));
        }
        std::map<std::string, ceph::buffer::ptr> attrs;
        store_->getattrs(h, o, attrs);
        std::map<std::string, uint64_t> got_attrs, want_attrs;
        for (const auto& [k, v] : attrs) got_attrs[k] = v.length();
        for (const auto& [k, v] : want.at("xattrs").items()) want_attrs[k] = U64(v);
        if (got_attrs != want_attrs) diff(who + ": xattrs differ");
        ceph::buffer::list header;
        std::map<std::string, ceph::buffer::list> omap;
        store_->omap_get(h, o, &header, &omap);
        std::set<std::string> got_keys, want_keys;
        for (const auto& [k, v] : omap) got_keys.insert(k);
        for (const auto& [k, v] : want.at("omap").items()) {
          want_keys.insert(k);
          auto it = omap.find(k);
          if (it != omap.end() && it->second.length() != U64(v)) {
            diff(who + ": omap " + k + " value length " + std::to_string(it->second.length()) +
                 ", expected " + std::to_string(U64(v)));
          }
        }
        if (got_keys != want_keys) {
          diff(who + ": omap keys differ (" + std::to_string(got_keys.size()) + " vs " +
               std::to_string(want_keys.size()) + ")");
        }
        if (want.contains("omap_header") && header.length() != U64(want.at("omap_header"))) {
          diff(who + ": omap header length " + std::to_string(header.length()));
        }
        const std::string k = Key(cs, os);
        auto ex = extents_.find(k);
        if (ex != extents_.end() && !unchecked_.count(k) && !split_seen_) {
          ceph::buffer::list data;
          const int r = store_->read(h, o, 0, 0, data, 0);
          std::string why;
          if (r < 0) {
            diff(who + ": read " + std::to_string(r));
          } else if (!ex->second.Check(std::string(data.c_str(), data.length()), &why)) {
            diff(who + ": data: " + why);
          } else {
            ++*data_checked;
          }
        }
      }
    }
    for (const Json& a : expected.at("absent")) {
      const coll_t c = Coll(Str(a.at(0)));
      auto h = store_->open_collection(c);
      if (h && store_->exists(h, Oid(Str(a.at(1))))) {
        diff(Str(a.at(0)) + " " + Str(a.at(1)) + ": exists, expected absent");
      }
    }
    return diffs;
  }

  const ReplayStats& stats() const { return stats_; }

 private:
  SMRStore* store_;
  std::map<std::string, ObjectStore::CollectionHandle> handles_;
  std::map<std::string, Extents> extents_;
  std::set<std::string> unchecked_;
  bool split_seen_ = false;
  ReplayStats stats_;
};

int RunReplay(const Args& args) {
  const std::string capture = args.positional().at(0);
  auto trace_text = ReadGzipOrPlain(capture + "/trace.json.gz");
  if (!trace_text.ok()) trace_text = ReadGzipOrPlain(capture + "/trace.json");
  if (!trace_text.ok()) return Fail("replay", trace_text.status());
  auto expected_text = ReadGzipOrPlain(capture + "/expected.json");
  if (!expected_text.ok()) return Fail("replay", expected_text.status());
  auto trace_json = ParseJson(*trace_text);
  if (!trace_json.ok()) return Fail("replay", trace_json.status().WithContext(capture + "/trace.json"));
  auto expected_json = ParseJson(*expected_text);
  if (!expected_json.ok()) {
    return Fail("replay", expected_json.status().WithContext(capture + "/expected.json"));
  }
  const Json& trace = *trace_json;
  const Json& expected = *expected_json;
  try {
    if (!expected.contains("format") || Str(expected.at("format")) != "smrstore.expected/1") {
      return Fail("replay", Status::InvalidArgument("expected.json: format is not smrstore.expected/1"));
    }
  } catch (const std::exception& e) {
    return Fail("replay", Status::Corruption(capture + ": " + e.what()));
  }

  std::string work = args.get("work");
  bool temp = false;
  if (work.empty()) {
    char tmpl[] = "/tmp/smrstore-replay-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) return Fail("replay", Status::FromErrno(errno, "mkdtemp"));
    work = tmpl;
    temp = true;
  } else if (::mkdir(work.c_str(), 0755) != 0 && errno != EEXIST) {
    return Fail("replay", Status::FromErrno(errno, "mkdir " + work));
  }
  const std::string osd = work + "/osd";
  ::mkdir(osd.c_str(), 0755);
  auto zones = args.number("zones", 64);
  auto zone_mib = args.number("zone-mib", 64);
  if (!zones.ok()) return UsageFail("replay", zones.status());
  if (!zone_mib.ok()) return UsageFail("replay", zone_mib.status());
  const std::string geometry = "?zones=" + std::to_string(*zones) +
                               "&zone_mib=" + std::to_string(*zone_mib) + "&conv=1";
  const std::string specs = args.has("devices")
                                ? args.get("devices")
                                : "emu:" + work + "/d0.img" + geometry + " emu:" + work +
                                      "/d1.img" + geometry;

  int rc = 0;
  {
    ceph_adapter::StandaloneCephContext ctx(args.get("admin-socket"));
    SMRStore store(ctx.get(), osd);
    if (int r = store.write_meta("smrstore_devices", specs); r < 0) {
      return Fail("replay", Status::FromErrno(-r, "write " + osd + "/smrstore_devices"));
    }
    if (int r = store.mkfs(); r < 0) return Fail("replay", Status::FromErrno(-r, "SMRStore::mkfs"));
    if (int r = store.mount(); r < 0) return Fail("replay", Status::FromErrno(-r, "SMRStore::mount"));
    Replayer rep(&store);
    const auto t0 = std::chrono::steady_clock::now();
    try {
      const Status s = rep.Run(trace);
      if (!s.ok()) {
        store.umount();
        return Fail("replay", s);
      }
    } catch (const std::exception& e) {
      store.umount();
      return Fail("replay", Status::Corruption(capture + ": " + e.what()));
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Check, then remount and check again: the state must be durable.
    uint64_t objects = 0, data = 0;
    std::vector<std::string> diffs = rep.Check(expected, &objects, &data);
    if (int r = store.umount(); r < 0) return Fail("replay", Status::FromErrno(-r, "umount"));
    const int fsck_errors = store.fsck(true);
    if (int r = store.mount(); r < 0) return Fail("replay", Status::FromErrno(-r, "remount"));
    uint64_t objects2 = 0, data2 = 0;
    std::vector<std::string> diffs2 = rep.Check(expected, &objects2, &data2);
    for (auto& d : diffs2) diffs.push_back("after remount: " + d);
    store_statfs_t sf;
    store.statfs(&sf);
    store.umount();
    const ReplayStats& st = rep.stats();
    const Json out = {{"capture", capture},
                      {"transactions", st.transactions},
                      {"ops", st.ops},
                      {"failed_transactions", st.failed},
                      {"write_bytes", st.bytes},
                      {"seconds", secs},
                      {"objects_checked", objects},
                      {"data_checked", data},
                      {"fsck_errors", fsck_errors},
                      {"stored", sf.data_stored},
                      {"differences", diffs.size()}};
    std::printf("%s\n", out.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
    for (const std::string& d : diffs) std::fprintf(stderr, "replay: %s\n", d.c_str());
    if (st.failed > 0 || !diffs.empty() || fsck_errors != 0) rc = 1;
  }
  if (temp && !args.has("keep")) {
    std::string cmd = "rm -rf '" + work + "'";
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "replay: could not remove %s\n", work.c_str());
  }
  if (rc != 0) std::fprintf(stderr, "replay: FAILED (%s)\n", capture.c_str());
  return rc;
}

}  // namespace

void AddReplayCommand(Cli* cli) {
  CommandSpec c;
  c.name = "replay";
  c.positional_usage = "CAPTURE_DIR";
  c.summary = "apply a real OSD transaction capture to SMRStore and check the end state";
  c.description =
      "Reads CAPTURE_DIR/trace.json.gz (smrstore.trace/1, qa/traces/README.md) and\n"
      "CAPTURE_DIR/expected.json (smrstore.expected/1), creates a fresh SMRStore on emulated\n"
      "drives (or --devices), applies the seed and every transaction through the Ceph\n"
      "ObjectStore adapter (queue_transactions, as an OSD would), then checks every expected\n"
      "object (size, xattr names and lengths, omap keys and value lengths, header length),\n"
      "every absent object, and the data of every object whose bytes the trace wrote, before\n"
      "and after a remount, plus a deep fsck. Prints one JSON line; exit status 1 on any\n"
      "difference.";
  c.min_positional = 1;
  c.max_positional = 1;
  c.options = {{"work", "DIR", "working directory (default: a temporary one, removed)"},
               {"devices", "SPECS", "drive specs, space separated (default: two emulated)"},
               {"zones", "N", "zones per emulated drive (default 64)"},
               {"zone-mib", "N", "zone size of emulated drives in MiB (default 64)"},
               {"admin-socket", "PATH", "serve SMRStore's admin socket here while replaying"},
               {"keep", "", "keep the temporary working directory"}};
  c.run = RunReplay;
  cli->Add(std::move(c));
}

}  // namespace smr::tool
