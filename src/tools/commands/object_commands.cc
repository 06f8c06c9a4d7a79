// smrstore-tool's collection and object commands, in the spirit of `rados`: mkcoll,
// rmcoll, lscoll, put, get, rm, ls, stat, setxattr, getxattr, listxattr, setomapval,
// setomapvals, getomapval, listomapkeys. Each mounts the store (read-only where it only
// looks), does one thing and unmounts; a mutation is one transaction (put: see CmdPut), so a failed or
// killed command changes nothing visible.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "object_commands.h"
#include "store_command_util.h"

namespace smr::tool {

using namespace storecmd;  // NOLINT: this file's own helpers

// ---------------------------------------------------------------------------------------
// Collections

int CmdMkcoll(const Args& args) {
  const std::string& coll = args.positional()[1];
  auto bits = args.number("bits", 0);
  if (!bits.ok()) return UsageFail("mkcoll", bits.status());
  if (*bits > 32) return UsageFail("mkcoll", Status::InvalidArgument("--bits must be <= 32"));
  if (coll.empty()) return UsageFail("mkcoll", Status::InvalidArgument("empty collection name"));
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("mkcoll", store.status());
  Transaction t;
  t.MkColl(coll, static_cast<uint32_t>(*bits));
  Status s = ApplyChecked(store->get(), std::move(t));
  if (!s.ok()) return Fail("mkcoll", s);
  std::cout << "created collection " << P(coll) << " (bits " << *bits << ")\n";
  return Unmount("mkcoll", std::move(*store));
}

int CmdRmcoll(const Args& args) {
  const std::string& coll = args.positional()[1];
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("rmcoll", store.status());
  // A missing collection is a no-op inside a transaction; the tool reports it.
  auto bits = (*store)->CollectionBits(coll);
  if (!bits.ok()) return Fail("rmcoll", bits.status());
  Transaction t;
  t.RmColl(coll);
  Status s = ApplyChecked(store->get(), std::move(t));
  if (!s.ok()) return Fail("rmcoll", s);
  std::cout << "removed collection " << P(coll) << "\n";
  return Unmount("rmcoll", std::move(*store));
}

int CmdLscoll(const Args& args) {
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("lscoll", store.status());
  auto colls = (*store)->ListCollections();
  if (!colls.ok()) return Fail("lscoll", colls.status());
  for (const std::string& c : *colls) std::cout << P(c) << "\n";
  return Unmount("lscoll", std::move(*store));
}

// ---------------------------------------------------------------------------------------
// Objects

// put streams FILE in transactions of kPutChunk bytes (memory stays bounded whatever the
// size) under a temporary id: the target's id with generation kPutTempGeneration. The
// last transaction carries the target's xattrs and omap over, removes the target and
// renames the temporary object onto it, so the object is replaced all-or-nothing. A put
// that fails removes what it wrote; one killed leaves the temporary object, which the
// next put of the same object removes first. A regular FILE that does not fit (df's
// "available") is refused with NoSpace before anything is written.
int CmdPut(const Args& args) {
  const std::string& coll = args.positional()[1];
  const std::string& file = args.positional()[3];
  ObjectId oid;
  int rc = 0;
  if (!ParseObject("put", args, 2, &oid, &rc)) return rc;
  ObjectId tmp = oid;
  tmp.generation = kPutTempGeneration;
  {
    Transaction names;
    names.Touch(coll, oid);
    if (!CheckNames("put", names, &rc)) return rc;
  }
  int fd = STDIN_FILENO;
  if (file != "-") {
    fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Fail("put", Status::FromErrno(errno, P(file)));
  }
  struct FdCloser {
    int fd;
    ~FdCloser() {
      if (fd != STDIN_FILENO) ::close(fd);
    }
  } closer{fd};
  uint64_t total = 0;
  bool sized = false;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    total = static_cast<uint64_t>(st.st_size);
    sized = true;
  }
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("put", store.status());
  auto bits = (*store)->CollectionBits(coll);  // fail before reading the file
  if (!bits.ok()) return Fail("put", bits.status());
  const StoreOptions& opts = (*store)->options();
  const uint64_t max_record = opts.max_record_payload;
  if (sized) {
    const StoreStatfs sf = (*store)->Statfs();
    const uint64_t need = PutZoneBytes(total, max_record, opts.inline_max);
    if (need > sf.user_available) {
      const uint64_t largest = LargestPut(sf.user_available, max_record, opts.inline_max);
      Unmount("put", std::move(*store));
      return Fail("put", Status::NoSpace(
                             P(file) + " is " + std::to_string(total) + " bytes (" +
                             Human(total) + "), the store can take at most " +
                             std::to_string(largest) + " (" + Human(largest) +
                             ", df's available); nothing was written"));
    }
  }
  const std::string what = P(coll) + "/" + P(oid.name);
  // Removes the temporary object after a failure; the target is untouched.
  auto fail = [&](const Status& s) {
    Transaction undo;
    undo.Remove(coll, tmp);
    Status u = (*store)->Apply(std::move(undo));
    Unmount("put", std::move(*store));
    Status r = s;
    if (!u.ok()) r = s.WithContext("and removing the partial copy failed: " + u.ToString());
    return Fail("put", r);
  };
  // Chunks are whole records (the records' bytes are then exactly PutZoneBytes).
  const uint64_t chunk = std::max<uint64_t>(max_record, kPutChunk / max_record * max_record);
  std::string buf;
  buf.reserve(static_cast<size_t>(chunk));
  uint64_t done = 0;
  bool first = true;
  Progress progress("put", total);
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    buf.resize(static_cast<size_t>(chunk));
    size_t have = 0;
    while (have < chunk) {
      ssize_t n = ::read(fd, buf.data() + have, static_cast<size_t>(chunk) - have);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fail(Status::FromErrno(errno, file == "-" ? "stdin" : P(file)));
      if (n == 0) break;
      have += static_cast<size_t>(n);
    }
    if (have == 0 && !first) break;
    buf.resize(have);
    Transaction t;
    if (first) {
      t.Remove(coll, tmp);  // a killed put's leftover (a no-op when there is none)
      t.Touch(coll, tmp);
    }
    if (have > 0) t.Write(coll, tmp, done, std::move(buf));
    buf = std::string();
    Status s = ApplyChecked(store->get(), std::move(t));
    if (!s.ok()) {
      return fail(s.WithContext("after " + std::to_string(done) + " of " +
                                (sized ? std::to_string(total) : std::string("?")) +
                                " bytes"));
    }
    first = false;
    done += have;
    progress.Update(done);
    if (have < chunk) break;
  }
  progress.Note("committing " + Human(done));
  // Replace the target: carry its xattrs and omap (rados put keeps them) onto the new
  // copy, then remove it and rename the copy, in one transaction.
  Transaction t;
  auto exists = (*store)->Exists(coll, oid);
  if (!exists.ok()) return fail(exists.status());
  if (*exists) {
    auto attrs = (*store)->GetAttrs(coll, oid);
    if (!attrs.ok()) return fail(attrs.status());
    if (!attrs->empty()) t.SetAttrs(coll, tmp, std::move(*attrs));
    auto header = (*store)->GetOmapHeader(coll, oid);
    if (!header.ok() && !header.status().IsNotFound() && !header.status().IsNoData()) {
      return fail(header.status());
    }
    if (header.ok() && !header->empty()) t.OmapSetHeader(coll, tmp, std::move(*header));
    auto omap = (*store)->ListOmap(coll, oid, nullptr, 0);
    if (!omap.ok()) return fail(omap.status());
    if (!omap->empty()) {
      std::map<std::string, std::string> kv(omap->begin(), omap->end());
      t.OmapSetKeys(coll, tmp, std::move(kv));
    }
    t.Remove(coll, oid);
  }
  t.CollMoveRename(coll, tmp, coll, oid);
  Status s = ApplyChecked(store->get(), std::move(t));
  progress.Done();
  if (!s.ok()) return fail(s);
  rc = Unmount("put", std::move(*store));
  if (rc != 0) return rc;
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "put " << what << ": " << done << " bytes";
  if (done >= (1u << 20) && secs > 0) {
    std::cout << ", committed at " << Fixed(done / secs / 1e6, 1) << " MB/s";
  }
  std::cout << "\n";
  return 0;
}

namespace {

// get's output file. The bytes go to an O_TMPFILE file in FILE's directory (no name at
// all), linked to FILE once complete (linkat never replaces a file), so even a get killed
// with SIGKILL leaves nothing. Where O_TMPFILE is unsupported: a named temporary file
// "FILE.smrstore-get.XXXXXX", removed on every error path and on SIGINT/SIGTERM/SIGHUP/
// SIGPIPE (only kill -9 can leave it). SMRSTORE_GET_NO_TMPFILE=1 forces that fallback
// (tests).
char g_get_tmp[4096];  // the fallback's temporary path, for the signal handler

void RemoveGetTmpAndDie(int sig) {
  if (g_get_tmp[0] != '\0') ::unlink(g_get_tmp);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

class GetOutput {
 public:
  ~GetOutput() { Abandon(); }
  Status Open(const std::string& file) {
    file_ = file;
    const size_t slash = file.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : file.substr(0, slash);
    const char* no_tmpfile = ::getenv("SMRSTORE_GET_NO_TMPFILE");
    if (no_tmpfile == nullptr || std::string(no_tmpfile) != "1") {
      fd_ = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);  // umask applies
      if (fd_ >= 0) return Status::OK();
      if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
        return Status::FromErrno(errno, P(dir));
      }
    }
    tmp_ = file + ".smrstore-get.XXXXXX";
    if (tmp_.size() >= sizeof(g_get_tmp)) return Status::InvalidArgument("path too long");
    std::snprintf(g_get_tmp, sizeof(g_get_tmp), "%s", tmp_.c_str());  // the template
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(sig, RemoveGetTmpAndDie);
    sigset_t all, old;
    sigfillset(&all);
    ::sigprocmask(SIG_BLOCK, &all, &old);  // no handler between mkstemp and noting the name
    fd_ = ::mkstemp(tmp_.data());
    const int err = errno;
    if (fd_ >= 0) {
      std::snprintf(g_get_tmp, sizeof(g_get_tmp), "%s", tmp_.c_str());
    } else {
      g_get_tmp[0] = '\0';
    }
    ::sigprocmask(SIG_SETMASK, &old, nullptr);
    if (fd_ < 0) return Status::FromErrno(err, P(tmp_));
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd_, 0666 & ~mask);  // mkstemp made it 0600; give it open(O_CREAT)'s mode
    return Status::OK();
  }
  int fd() const { return fd_; }
  const std::string& name() const { return tmp_.empty() ? file_ : tmp_; }
  // fsync, then give the file its name.
  Status Commit() {
    if (::fsync(fd_) != 0) return Status::FromErrno(errno, P(name()));
    if (tmp_.empty()) {
      const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, file_.c_str(), AT_SYMLINK_FOLLOW) != 0) {
        const int err = errno;
        // Without /proc: AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH).
        if (err == EEXIST ||
            ::linkat(fd_, "", AT_FDCWD, file_.c_str(), AT_EMPTY_PATH) != 0) {
          return Status::FromErrno(err, P(file_));
        }
      }
      ::close(fd_);
      fd_ = -1;
      return Status::OK();
    }
    ::close(fd_);
    fd_ = -1;
    const int r = ::link(tmp_.c_str(), file_.c_str());
    const int err = errno;
    Abandon();
    if (r != 0) return Status::FromErrno(err, P(file_));
    return Status::OK();
  }
  // Closes and removes whatever was written (nothing is left under any name).
  void Abandon() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!tmp_.empty()) {
      ::unlink(tmp_.c_str());
      g_get_tmp[0] = '\0';
      tmp_.clear();
    }
  }

 private:
  std::string file_, tmp_;
  int fd_ = -1;
};

}  // namespace

int CmdGet(const Args& args) {
  const std::string& coll = args.positional()[1];
  const std::string& file = args.positional()[3];
  ObjectId oid;
  int rc = 0;
  if (!ParseObject("get", args, 2, &oid, &rc)) return rc;
  const bool to_stdout = file == "-";
  if (!to_stdout && PathExists(file)) {
    return Fail("get", Status::AlreadyExists(P(file) + " exists (get never overwrites a file)"));
  }
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("get", store.status());
  auto stat = (*store)->Stat(coll, oid);
  if (!stat.ok()) return Fail("get", stat.status());
  GetOutput out;
  int fd = STDOUT_FILENO;
  if (!to_stdout) {
    Status s = out.Open(file);
    if (!s.ok()) return Fail("get", s);
    fd = out.fd();
  }
  auto fail = [&](const Status& s) {
    out.Abandon();
    return Fail("get", s);
  };
  Progress progress("get", stat->size);
  uint64_t done = 0;
  while (done < stat->size) {
    const uint64_t n = std::min<uint64_t>(kChunk, stat->size - done);
    auto data = (*store)->Read(coll, oid, done, n);
    if (!data.ok()) return fail(data.status());
    if (data->size() != n) {
      return fail(Status::Corruption("short read at " + std::to_string(done) + ": " +
                                     std::to_string(data->size()) + " of " +
                                     std::to_string(n) + " bytes (object changed?)"));
    }
    if (!WriteAll(fd, data->data(), data->size())) {
      return fail(Status::FromErrno(errno, to_stdout ? "stdout" : P(out.name())));
    }
    done += n;
    progress.Update(done);
  }
  progress.Done();
  if (!to_stdout) {
    Status s = out.Commit();
    if (!s.ok()) return fail(s);
  }
  rc = Unmount("get", std::move(*store));
  if (rc != 0) return rc;
  if (!to_stdout) std::cout << "got " << P(coll) << "/" << P(oid.name) << ": " << done << " bytes\n";
  return 0;
}

int CmdRm(const Args& args) {
  const std::string& coll = args.positional()[1];
  ObjectId oid;
  int rc = 0;
  if (!ParseObject("rm", args, 2, &oid, &rc)) return rc;
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("rm", store.status());
  // Removing a missing object is a no-op inside a transaction; the tool reports it.
  auto stat = (*store)->Stat(coll, oid);
  if (!stat.ok()) return Fail("rm", stat.status());
  Transaction t;
  t.Remove(coll, oid);
  Status s = ApplyChecked(store->get(), std::move(t));
  if (!s.ok()) return Fail("rm", s);
  std::cout << "removed " << P(coll) << "/" << P(oid.name) << "\n";
  return Unmount("rm", std::move(*store));
}

int CmdLs(const Args& args) {
  const std::string& coll = args.positional()[1];
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("ls", store.status());
  ObjectId start = ObjectId::Min();
  const ObjectId end = ObjectId::Max();
  const bool json = args.has("json");
  std::ostringstream out;
  Json listed = Json::array();
  size_t count = 0;
  for (;;) {
    std::vector<ObjectId> page;
    ObjectId next;
    Status s = (*store)->ListObjects(coll, start, end, kListPage, &page, &next);
    if (!s.ok()) return Fail("ls", s);
    for (const ObjectId& o : page) {
      // A killed put's temporary copy (see CmdPut) is marked as such.
      const bool partial = o.generation == kPutTempGeneration;
      if (json) {
        Json j = ObjectJson(o);
        if (partial) j["partial_put"] = true;
        listed.push_back(std::move(j));
      } else {
        out << P(o.name) << (partial ? "  (partial copy of a killed put; the next put of it removes it)" : "")
            << "\n";
      }
      ++count;
    }
    if (next.max || page.empty()) break;
    start = next;
  }
  if (json) {
    const Json doc = {{"collection", coll}, {"objects", std::move(listed)}, {"count", count}};
    out << doc.dump(1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace) << "\n";
  }
  std::cout << out.str();
  return Unmount("ls", std::move(*store));
}

int CmdStat(const Args& args) {
  const std::string& coll = args.positional()[1];
  ObjectId oid;
  int rc = 0;
  if (!ParseObject("stat", args, 2, &oid, &rc)) return rc;
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("stat", store.status());
  auto st = (*store)->Stat(coll, oid);
  if (!st.ok()) return Fail("stat", st.status());
  auto attrs = (*store)->GetAttrs(coll, oid);
  if (!attrs.ok()) return Fail("stat", attrs.status());
  auto omap = (*store)->ListOmap(coll, oid, nullptr, 0);
  if (!omap.ok()) return Fail("stat", omap.status());
  auto fiemap = (*store)->Fiemap(coll, oid, 0, 0);
  if (!fiemap.ok()) return Fail("stat", fiemap.status());
  uint64_t mapped = 0;
  for (const auto& [off, len] : *fiemap) mapped += len;
  if (args.has("json")) {
    const Json doc = {{"collection", coll},          {"object", ObjectJson(oid)},
                      {"size", st->size},            {"nid", st->nid},
                      {"data_inline", st->data_inline}, {"extents", st->extents},
                      {"mapped_bytes", mapped},      {"xattrs", attrs->size()},
                      {"omap_keys", omap->size()}};
    std::cout << JsonText(doc) << "\n";
  } else {
    std::cout << P(coll) << "/" << P(oid.name) << " (" << P(oid.ToString()) << "): size " << st->size
              << ", " << (st->data_inline ? "inline" : std::to_string(st->extents) + " extents")
              << ", mapped " << mapped << ", nid " << st->nid << ", " << attrs->size()
              << " xattrs, " << omap->size() << " omap keys\n";
  }
  return Unmount("stat", std::move(*store));
}

int CmdSetxattr(const Args& args) {
  const std::string& coll = args.positional()[1];
  const std::string& name = args.positional()[3];
  ObjectId oid;
  int rc = 0;
  if (!ParseObject("setxattr", args, 2, &oid, &rc)) return rc;
  if (name.empty()) return UsageFail("setxattr", Status::InvalidArgument("empty attribute name"));
  {
    Transaction names;
    names.SetAttr(coll, oid, name, "");
    if (!CheckNames("setxattr", names, &rc)) return rc;
  }
  auto value = ValueArg(args, 4);
  if (!value.ok()) return Fail("setxattr", value.status());
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("setxattr", store.status());
  Transaction t;
  t.SetAttr(coll, oid, name, std::move(*value));
  Status s = ApplyChecked(store->get(), std::move(t));
  if (!s.ok()) return Fail("setxattr", s);
  return Unmount("setxattr", std::move(*store));
}

int CmdGetxattr(const Args& args) {
  const std::string& coll = args.positional()[1];
  ObjectId oid;
  int rc = 0;
  if (!ParseObject("getxattr", args, 2, &oid, &rc)) return rc;
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("getxattr", store.status());
  auto v = (*store)->GetAttr(coll, oid, args.positional()[3]);
  if (!v.ok()) return Fail("getxattr", v.status());
  std::cout << *v << "\n";
  return Unmount("getxattr", std::move(*store));
}

int CmdListxattr(const Args& args) {
  const std::string& coll = args.positional()[1];
  ObjectId oid;
  int rc = 0;
  if (!ParseObject("listxattr", args, 2, &oid, &rc)) return rc;
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("listxattr", store.status());
  auto attrs = (*store)->GetAttrs(coll, oid);
  if (!attrs.ok()) return Fail("listxattr", attrs.status());
  for (const auto& [k, v] : *attrs) std::cout << P(k) << "\n";
  return Unmount("listxattr", std::move(*store));
}

int CmdSetomapval(const Args& args) {
  const std::string& coll = args.positional()[1];
  ObjectId oid;
  int rc = 0;
  if (!ParseObject("setomapval", args, 2, &oid, &rc)) return rc;
  auto value = ValueArg(args, 4);
  if (!value.ok()) return Fail("setomapval", value.status());
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("setomapval", store.status());
  Transaction t;
  t.OmapSetKeys(coll, oid, {{args.positional()[3], std::move(*value)}});
  Status s = ApplyChecked(store->get(), std::move(t));
  if (!s.ok()) return Fail("setomapval", s);
  return Unmount("setomapval", std::move(*store));
}

namespace {

// "-" is empty; else an even number of hex digits.
bool UnhexField(const std::string& h, std::string* out) {
  out->clear();
  if (h == "-") return true;
  if (h.size() % 2 != 0) return false;
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  out->reserve(h.size() / 2);
  for (size_t i = 0; i < h.size(); i += 2) {
    const int hi = nib(h[i]), lo = nib(h[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi << 4 | lo));
  }
  return true;
}

}  // namespace

int CmdSetomapvals(const Args& args) {
  const std::string& coll = args.positional()[1];
  ObjectId oid;
  int rc = 0;
  if (!ParseObject("setomapvals", args, 2, &oid, &rc)) return rc;
  std::map<std::string, std::string> kv;
  std::string line;
  size_t lineno = 0;
  while (std::getline(std::cin, line)) {
    ++lineno;
    if (line.empty()) continue;
    std::istringstream in(line);
    std::string k, v, extra, key, value;
    if (!(in >> k >> v) || (in >> extra) || k == "-" || !UnhexField(k, &key) ||
        !UnhexField(v, &value)) {
      return UsageFail("setomapvals", Status::InvalidArgument(
                                          "stdin line " + std::to_string(lineno) +
                                          ": expected 'KEYHEX VALUEHEX'"));
    }
    kv[std::move(key)] = std::move(value);
  }
  if (std::cin.bad()) return Fail("setomapvals", Status::IOError("reading stdin failed"));
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("setomapvals", store.status());
  Transaction t;
  t.OmapSetKeys(coll, oid, kv);
  Status s = ApplyChecked(store->get(), std::move(t));
  if (!s.ok()) return Fail("setomapvals", s);
  return Unmount("setomapvals", std::move(*store));
}

int CmdGetomapval(const Args& args) {
  const std::string& coll = args.positional()[1];
  const std::string& key = args.positional()[3];
  ObjectId oid;
  int rc = 0;
  if (!ParseObject("getomapval", args, 2, &oid, &rc)) return rc;
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("getomapval", store.status());
  auto v = (*store)->GetOmapValues(coll, oid, {key});
  if (!v.ok()) return Fail("getomapval", v.status());
  auto it = v->find(key);
  if (it == v->end()) return Fail("getomapval", Status::NoData("no omap key " + P(key)));
  std::cout << it->second << "\n";
  return Unmount("getomapval", std::move(*store));
}

int CmdListomapkeys(const Args& args) {
  const std::string& coll = args.positional()[1];
  ObjectId oid;
  int rc = 0;
  if (!ParseObject("listomapkeys", args, 2, &oid, &rc)) return rc;
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("listomapkeys", store.status());
  std::ostringstream out;
  std::string after;
  bool first = true;
  for (;;) {
    auto page = (*store)->ListOmap(coll, oid, first ? nullptr : &after, kListPage);
    if (!page.ok()) return Fail("listomapkeys", page.status());
    for (const auto& [k, v] : *page) out << P(k) << "\n";
    if (page->size() < kListPage) break;
    after = page->back().first;
    first = false;
  }
  std::cout << out.str();
  return Unmount("listomapkeys", std::move(*store));
}

}  // namespace smr::tool
