// Store-level subcommands of smrstore-tool: mkfs, df, stats, fsck, the store form of
// `zones`, and object commands in the spirit of `rados` (mkcoll, rmcoll, lscoll, put, get,
// rm, ls, stat, setxattr, getxattr, listxattr, setomapval, getomapval, listomapkeys).
//
// Every command mounts the store (Store::Open), does one thing and unmounts. Mutations are
// one transaction each, so a failed or killed command changes nothing. Objects are named
// by their name plus --pool/--nspace/--locator/--hash/--snap (see ObjectOptions()).
#include "store_commands.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "common/crc32c.h"
#include "device/device_spec.h"
#include "device_commands.h"
#include "store/store.h"
#include "store/transaction.h"

namespace smr::tool {

namespace {

constexpr size_t kChunk = 4u << 20;        // put: bytes per Write op; get: bytes per Read
constexpr size_t kListPage = 1024;         // ls / listomapkeys page size

// ---------------------------------------------------------------------------------------
// Small helpers

// A usage-type error (malformed option value): one line, exit 2.
int UsageFail(const std::string& command, const Status& status) {
  std::cerr << "smrstore-tool " << command << ": " << status.ToString()
            << " (see smrstore-tool " << command << " --help)\n";
  return 2;
}

bool IsDir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool PathExists(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0;
}

std::string Human(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

// Percentage with one decimal, 0 when the whole is 0.
double Pct(uint64_t part, uint64_t whole) {
  if (whole == 0) return 0.0;
  return static_cast<double>(static_cast<uint64_t>(1000.0 * part / whole + 0.5)) / 10.0;
}

std::string Fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

Result<std::unique_ptr<Store>> Mount(const std::string& dir,
                                     Store::DeviceOpener opener = nullptr,
                                     bool read_only = false) {
  if (!PathExists(dir)) return Status::NotFound(dir + ": no such store directory");
  if (!IsDir(dir)) return Status::InvalidArgument(dir + " is not a directory");
  return Store::Open(dir, std::move(opener), read_only);
}

// Commands that only look mount read-only: nothing on the drives or in RocksDB changes.
Result<std::unique_ptr<Store>> MountReadOnly(const std::string& dir) {
  return Mount(dir, nullptr, /*read_only=*/true);
}

// Unmounts, reporting a failed clean unmount as the command's failure.
int Unmount(const std::string& command, std::unique_ptr<Store> store) {
  Status s = store->Close();
  if (!s.ok()) return Fail(command, s.WithContext("unmount"));
  return 0;
}

// Progress on stderr, only when stderr is a terminal: "put: 120.0 MiB / 200.0 MiB (60%)
// 151.2 MB/s", redrawn at most 5 times a second.
class Progress {
 public:
  Progress(std::string what, uint64_t total)
      : what_(std::move(what)), total_(total), enabled_(::isatty(STDERR_FILENO) == 1) {
    start_ = last_ = std::chrono::steady_clock::now();
  }
  ~Progress() { Done(); }
  void Update(uint64_t done, bool force = false) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - start_).count();
    std::string line = "\r" + what_ + ": " + Human(done);
    if (total_ > 0) line += " / " + Human(total_) + " (" + Fixed(Pct(done, total_), 0) + "%)";
    if (secs > 0) line += "  " + Fixed(done / secs / 1e6, 1) + " MB/s";
    line += "\033[K";
    std::cerr << line << std::flush;
    drawn_ = true;
  }
  // Replaces the line with a message (e.g. "committing...").
  void Note(const std::string& msg) {
    if (!enabled_) return;
    std::cerr << "\r" << what_ << ": " << msg << "\033[K" << std::flush;
    drawn_ = true;
  }
  void Done() {
    if (enabled_ && drawn_) std::cerr << "\r\033[K" << std::flush;
    drawn_ = false;
  }

 private:
  std::string what_;
  uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// Shows "WHAT: MSG, N s" on a terminal while a call without progress reporting runs.
class Ticker {
 public:
  Ticker(std::string what, std::string msg) : enabled_(::isatty(STDERR_FILENO) == 1) {
    if (!enabled_) return;
    thread_ = std::thread([this, what = std::move(what), msg = std::move(msg)] {
      const auto start = std::chrono::steady_clock::now();
      std::unique_lock<std::mutex> lock(mu_);
      while (!cv_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; })) {
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cerr << "\r" << what << ": " << msg << ", " << Fixed(secs, 1) << " s\033[K"
                  << std::flush;
      }
      std::cerr << "\r\033[K" << std::flush;
    });
  }
  ~Ticker() {
    if (!enabled_) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  bool enabled_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// ---------------------------------------------------------------------------------------
// Object naming

const std::vector<OptionSpec>& ObjectOptions() {
  static const std::vector<OptionSpec> opts = {
      {"pool", "N", "pool id (default 0; may be negative)"},
      {"nspace", "S", "namespace (default empty)"},
      {"locator", "S", "locator key (default none)"},
      {"hash", "HEX", "32-bit placement hash (default crc32c of the locator, else name)"},
      {"snap", "N", "snap id, or head / snapdir (default head)"}};
  return opts;
}

std::vector<OptionSpec> With(std::vector<OptionSpec> a, const std::vector<OptionSpec>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Builds the ObjectId of `name` from the object options; malformed option values are
// usage errors (*usage = true), limits are ObjectId::Validate's errors.
Result<ObjectId> ObjectFromArgs(const Args& args, const std::string& name, bool* usage) {
  *usage = true;
  ObjectId oid;
  oid.name = name;
  oid.nspace = args.get("nspace");
  oid.key = args.get("locator");
  if (args.has("pool")) {
    const std::string p = args.get("pool");
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(p.c_str(), &end, 10);
    if (p.empty() || *end != '\0' || errno == ERANGE) {
      return Status::InvalidArgument("--pool: '" + p + "' is not an integer");
    }
    oid.pool = v;
  }
  if (args.has("hash")) {
    std::string h = args.get("hash");
    if (h.rfind("0x", 0) == 0 || h.rfind("0X", 0) == 0) h = h.substr(2);
    if (h.empty() || h.size() > 8 || h.find_first_not_of("0123456789abcdefABCDEF") !=
                                         std::string::npos) {
      return Status::InvalidArgument("--hash: '" + args.get("hash") +
                                     "' is not a 32-bit hex number");
    }
    oid.hash = static_cast<uint32_t>(std::stoul(h, nullptr, 16));
  } else {
    const std::string& k = oid.key.empty() ? oid.name : oid.key;
    oid.hash = crc32c::Value(k.data(), k.size());
  }
  if (args.has("snap")) {
    const std::string s = args.get("snap");
    if (s == "head") {
      oid.snap = ObjectId::kNoSnap;
    } else if (s == "snapdir") {
      oid.snap = ObjectId::kSnapDir;
    } else {
      auto n = args.number("snap", 0);
      if (!n.ok()) return n.status();
      if (*n >= ObjectId::kNoSnap) {
        return Status::InvalidArgument("--snap: " + s + " is reserved (use head or snapdir)");
      }
      oid.snap = *n;
    }
  }
  *usage = false;
  if (name.empty()) return Status::InvalidArgument("the object name is empty");
  Status v = oid.Validate();
  if (!v.ok()) return v;
  return oid;
}

// Parses the object argument at positional index `i`; on failure prints the error and
// sets *rc.
bool ParseObject(const std::string& cmd, const Args& args, size_t i, ObjectId* oid, int* rc) {
  bool usage = false;
  auto r = ObjectFromArgs(args, args.positional()[i], &usage);
  if (!r.ok()) {
    *rc = usage ? UsageFail(cmd, r.status()) : Fail(cmd, r.status());
    return false;
  }
  *oid = std::move(r).value();
  return true;
}

std::string SnapText(uint64_t snap) {
  if (snap == ObjectId::kNoSnap) return "head";
  if (snap == ObjectId::kSnapDir) return "snapdir";
  return std::to_string(snap);
}

std::string HashHex(uint32_t h) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%08x", h);
  return buf;
}

std::string ObjectJson(const ObjectId& o) {
  std::ostringstream j;
  j << "{\"name\": \"" << JsonEscape(o.name) << "\", \"pool\": " << o.pool
    << ", \"namespace\": \"" << JsonEscape(o.nspace) << "\", \"locator\": \""
    << JsonEscape(o.key) << "\", \"hash\": \"" << HashHex(o.hash) << "\", \"snap\": \""
    << SnapText(o.snap) << "\", \"id\": \"" << JsonEscape(o.ToString()) << "\"}";
  return j.str();
}

// Reads all of standard input, or the value argument when given.
Result<std::string> ValueArg(const Args& args, size_t i) {
  if (args.positional().size() > i) return args.positional()[i];
  std::string v;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, "stdin");
    if (n == 0) break;
    v.append(buf, static_cast<size_t>(n));
  }
  return v;
}

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// A minimal JSON reader, only to print Store::StatsJson() as "path value" lines.

class JsonFlattener {
 public:
  explicit JsonFlattener(const std::string& s) : s_(s) {}
  Status Run(std::vector<std::pair<std::string, std::string>>* out) {
    out_ = out;
    Value("");
    Skip();
    if (!error_.empty() || i_ != s_.size()) {
      return Status::Corruption("stats JSON is malformed near byte " + std::to_string(i_) +
                                (error_.empty() ? "" : ": " + error_));
    }
    return Status::OK();
  }

 private:
  void Skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool Eat(char c) {
    Skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  std::string String() {
    std::string v;
    if (!Eat('"')) {
      error_ = "expected a string";
      return v;
    }
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
      v += s_[i_++];
    }
    if (i_ >= s_.size()) error_ = "unterminated string";
    ++i_;
    return v;
  }
  void Value(const std::string& path) {
    if (!error_.empty()) return;
    Skip();
    if (i_ >= s_.size()) {
      error_ = "unexpected end";
      return;
    }
    if (s_[i_] == '{') {
      ++i_;
      if (Eat('}')) return;
      do {
        const std::string k = String();
        if (!Eat(':')) error_ = "expected ':'";
        if (!error_.empty()) return;
        Value(path.empty() ? k : path + "." + k);
      } while (error_.empty() && Eat(','));
      if (error_.empty() && !Eat('}')) error_ = "expected '}'";
      return;
    }
    if (s_[i_] == '[') {
      ++i_;
      if (Eat(']')) return;
      size_t n = 0;
      do {
        Value(path + "[" + std::to_string(n++) + "]");
      } while (error_.empty() && Eat(','));
      if (error_.empty() && !Eat(']')) error_ = "expected ']'";
      return;
    }
    if (s_[i_] == '"') {
      out_->emplace_back(path, String());
      return;
    }
    const size_t b = i_;
    while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']' &&
           !std::isspace(static_cast<unsigned char>(s_[i_]))) {
      ++i_;
    }
    if (i_ == b) {
      error_ = "expected a value";
      return;
    }
    out_->emplace_back(path, s_.substr(b, i_ - b));
  }

  const std::string& s_;
  size_t i_ = 0;
  std::string error_;
  std::vector<std::pair<std::string, std::string>>* out_ = nullptr;
};

// The value of `key` (a dotted path) in the stats JSON, or "".
std::string StatsValue(const std::string& json, const std::string& key) {
  std::vector<std::pair<std::string, std::string>> kv;
  if (!JsonFlattener(json).Run(&kv).ok()) return "";
  for (const auto& [k, v] : kv) {
    if (k == key) return v;
  }
  return "";
}

// ---------------------------------------------------------------------------------------
// mkfs, df, stats, fsck

int CmdMkfs(const Args& args) {
  const std::string& dir = args.positional()[0];
  std::vector<std::string> specs(args.positional().begin() + 1, args.positional().end());
  StoreOptions opts;
  auto inline_max = args.size("inline-max", opts.inline_max);
  auto max_record = args.size("max-record", opts.max_record_payload);
  if (!inline_max.ok()) return UsageFail("mkfs", inline_max.status());
  if (!max_record.ok()) return UsageFail("mkfs", max_record.status());
  if (*inline_max > UINT32_MAX || *max_record > UINT32_MAX) {
    return Fail("mkfs", Status::InvalidArgument("--inline-max / --max-record too large"));
  }
  opts.inline_max = static_cast<uint32_t>(*inline_max);
  opts.max_record_payload = static_cast<uint32_t>(*max_record);
  // The engine creates DIR only after formatting the drives (and does not undo that when
  // it cannot), so the tool creates DIR first and removes it again if mkfs fails.
  bool made_dir = false;
  if (PathExists(dir) && !IsDir(dir)) {
    return Fail("mkfs", Status::InvalidArgument(dir + " exists and is not a directory"));
  }
  if (!PathExists(dir)) {
    if (::mkdir(dir.c_str(), 0755) != 0) return Fail("mkfs", Status::FromErrno(errno, dir));
    made_dir = true;
  }
  Status s = Store::Mkfs(dir, specs, opts, args.has("force"));
  if (!s.ok()) {
    if (made_dir) ::rmdir(dir.c_str());
    return Fail("mkfs", s);
  }
  auto store = Mount(dir);
  if (!store.ok()) return Fail("mkfs", store.status().WithContext("mount after mkfs"));
  const std::string json = (*store)->StatsJson();
  const StoreStatfs st = (*store)->Statfs();
  std::cout << "created store " << dir << ": uuid " << StatsValue(json, "store.uuid") << ", "
            << specs.size() << " drive" << (specs.size() == 1 ? "" : "s") << ", capacity "
            << Human(st.total) << " (" << st.total << " bytes), inline_max " << opts.inline_max
            << ", max_record " << opts.max_record_payload << "\n";
  for (size_t i = 0; i < specs.size(); ++i) {
    std::cout << "  drive " << i << ": " << specs[i] << "\n";
  }
  return Unmount("mkfs", std::move(*store));
}

int CmdDf(const Args& args) {
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("df", store.status());
  const StoreStatfs st = (*store)->Statfs();
  const StoreCounters c = (*store)->Counters();
  const uint64_t used = st.total >= st.available ? st.total - st.available : 0;
  if (args.has("json")) {
    std::cout << "{\"total\": " << st.total << ", \"available\": " << st.available
              << ", \"used\": " << used << ", \"allocated\": " << st.allocated
              << ", \"stored\": " << st.stored << ", \"meta_bytes\": " << st.meta_bytes
              << ",\n \"available_pct\": " << Fixed(Pct(st.available, st.total), 1)
              << ", \"used_pct\": " << Fixed(Pct(used, st.total), 1)
              << ", \"allocated_pct\": " << Fixed(Pct(st.allocated, st.total), 1)
              << ", \"stored_pct\": " << Fixed(Pct(st.stored, st.total), 1)
              << ", \"stored_of_allocated_pct\": " << Fixed(Pct(st.stored, st.allocated), 1)
              << ",\n \"dead_on_mount_bytes\": " << c.dead_on_mount_bytes << "}\n";
  } else {
    auto row = [&](const char* name, uint64_t v, const std::string& note) {
      char line[160];
      std::snprintf(line, sizeof(line), "%-10s %12s %20" PRIu64 " bytes%s\n", name,
                    Human(v).c_str(), v, note.c_str());
      std::cout << line;
    };
    row("total", st.total, "");
    row("available", st.available, "  " + Fixed(Pct(st.available, st.total), 1) + " %");
    row("used", used, "  " + Fixed(Pct(used, st.total), 1) + " %");
    row("allocated", st.allocated, "  " + Fixed(Pct(st.allocated, st.total), 1) + " %");
    row("stored", st.stored,
        "  " + Fixed(Pct(st.stored, st.total), 1) + " % (" +
            Fixed(Pct(st.stored, st.allocated), 1) + " % of allocated)");
    row("meta", st.meta_bytes, "  (RocksDB, on flash)");
    if (c.dead_on_mount_bytes > 0) {
      row("dead", c.dead_on_mount_bytes, "  written after the last commit, found at mount");
    }
  }
  return Unmount("df", std::move(*store));
}

int CmdStats(const Args& args) {
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("stats", store.status());
  if (args.has("document")) {
    // The operator document of doc/stats-schema.md (what serve --publish sends).
    StatsDocumentOptions doc_opts;
    doc_opts.zone_maps = !args.has("compact");
    std::string name = args.get("name");
    if (name.empty()) name = std::filesystem::path(args.positional()[0]).filename().string();
    std::cout << (*store)->StatsDocument(name, doc_opts) << "\n";
    return Unmount("stats", std::move(*store));
  }
  const std::string json = (*store)->StatsJson();
  if (args.has("json")) {
    std::cout << json;
    if (json.empty() || json.back() != '\n') std::cout << "\n";
  } else {
    std::vector<std::pair<std::string, std::string>> kv;
    Status s = JsonFlattener(json).Run(&kv);
    if (!s.ok()) return Fail("stats", s);
    size_t width = 0;
    for (const auto& [k, v] : kv) width = std::max(width, k.size());
    for (const auto& [k, v] : kv) {
      std::cout << k << std::string(width + 2 - k.size(), ' ') << v << "\n";
    }
  }
  return Unmount("stats", std::move(*store));
}

int CmdGc(const Args& args) {
  auto zones = args.number("zones", 1);
  if (!zones.ok()) return Fail("gc", zones.status());
  if (*zones == 0 || *zones > 1000000) {
    return Fail("gc", Status::InvalidArgument("--zones must be between 1 and 1000000"));
  }
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("gc", store.status());
  auto r = (*store)->RunGc(static_cast<uint32_t>(*zones));
  if (!r.ok()) {
    Unmount("gc", std::move(*store));
    return Fail("gc", r.status());
  }
  const StoreCounters c = (*store)->Counters();
  if (args.has("json")) {
    std::cout << "{\"zones_cleaned\": " << r->zones_cleaned << ", \"live_moved\": "
              << r->live_moved << ", \"bytes_written\": " << r->bytes_written
              << ", \"bytes_freed\": " << r->bytes_freed << ", \"lifetime_gc_bytes\": "
              << c.lifetime_gc_bytes << "}\n";
  } else {
    std::cout << "gc: cleaned " << r->zones_cleaned << " zone(s), relocated "
              << Human(r->live_moved) << " of live data (" << Human(r->bytes_written)
              << " written), freed " << Human(r->bytes_freed) << "\n";
  }
  return Unmount("gc", std::move(*store));
}

int CmdFsck(const Args& args) {
  const bool deep = args.has("deep"), repair = args.has("repair");
  auto store = Mount(args.positional()[0], nullptr, /*read_only=*/!args.has("repair"));
  if (!store.ok()) return Fail("fsck", store.status());
  // Fsck reports no progress; on a terminal, show that it is running.
  const uint64_t to_read = deep ? (*store)->Statfs().stored : 0;
  auto ticker = std::make_unique<Ticker>(
      "fsck", deep ? "verifying " + Human(to_read) + " of records" : "checking");
  Result<FsckReport> r = (*store)->Fsck(deep, repair);
  ticker.reset();
  if (!r.ok()) return Fail("fsck", r.status());
  const FsckReport& f = *r;
  if (args.has("json")) {
    std::cout << "{\"deep\": " << (deep ? "true" : "false")
              << ", \"repair\": " << (repair ? "true" : "false")
              << ", \"ok\": " << (f.ok() ? "true" : "false")
              << ",\n \"collections\": " << f.collections << ", \"objects\": " << f.objects
              << ", \"extents\": " << f.extents << ", \"records_verified\": "
              << f.records_verified << ",\n \"errors\": [";
    for (size_t i = 0; i < f.errors.size(); ++i) {
      std::cout << (i ? ", " : "") << "\"" << JsonEscape(f.errors[i]) << "\"";
    }
    std::cout << "],\n \"repaired\": [";
    for (size_t i = 0; i < f.repaired.size(); ++i) {
      std::cout << (i ? ", " : "") << "\"" << JsonEscape(f.repaired[i]) << "\"";
    }
    std::cout << "]}\n";
  } else {
    std::cout << "fsck" << (deep ? " --deep" : "") << (repair ? " --repair" : "") << ": "
              << f.collections << " collections, " << f.objects << " objects, " << f.extents
              << " extents";
    if (deep) std::cout << ", " << f.records_verified << " records verified";
    std::cout << "\n";
    for (const std::string& e : f.errors) std::cout << "error: " << e << "\n";
    for (const std::string& e : f.repaired) std::cout << "repaired: " << e << "\n";
    std::cout << (f.ok() ? "clean" : std::to_string(f.errors.size()) + " errors") << "\n";
  }
  std::cout.flush();
  const int rc = Unmount("fsck", std::move(*store));
  if (rc != 0) return rc;
  if (!f.ok()) {
    return Fail("fsck", Status::Corruption(std::to_string(f.errors.size()) +
                                           " errors remain (listed on stdout)"));
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// Collections

int CmdMkcoll(const Args& args) {
  const std::string& coll = args.positional()[1];
  auto bits = args.number("bits", 0);
  if (!bits.ok()) return UsageFail("mkcoll", bits.status());
  if (*bits > 32) return UsageFail("mkcoll", Status::InvalidArgument("--bits must be <= 32"));
  if (coll.empty()) return Fail("mkcoll", Status::InvalidArgument("empty collection name"));
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("mkcoll", store.status());
  Transaction t;
  t.MkColl(coll, static_cast<uint32_t>(*bits));
  Status s = (*store)->Apply(std::move(t));
  if (!s.ok()) return Fail("mkcoll", s);
  std::cout << "created collection " << coll << " (bits " << *bits << ")\n";
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
  Status s = (*store)->Apply(std::move(t));
  if (!s.ok()) return Fail("rmcoll", s);
  std::cout << "removed collection " << coll << "\n";
  return Unmount("rmcoll", std::move(*store));
}

int CmdLscoll(const Args& args) {
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("lscoll", store.status());
  auto colls = (*store)->ListCollections();
  if (!colls.ok()) return Fail("lscoll", colls.status());
  for (const std::string& c : *colls) std::cout << c << "\n";
  return Unmount("lscoll", std::move(*store));
}

// ---------------------------------------------------------------------------------------
// Objects

int CmdPut(const Args& args) {
  const std::string& coll = args.positional()[1];
  const std::string& file = args.positional()[3];
  ObjectId oid;
  int rc = 0;
  if (!ParseObject("put", args, 2, &oid, &rc)) return rc;
  int fd = STDIN_FILENO;
  if (file != "-") {
    fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Fail("put", Status::FromErrno(errno, file));
  }
  uint64_t total = 0;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) total = static_cast<uint64_t>(st.st_size);
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("put", store.status());
  auto bits = (*store)->CollectionBits(coll);  // fail before reading the file
  if (!bits.ok()) return Fail("put", bits.status());

  // One transaction: the object is replaced all-or-nothing (touch creates an empty one;
  // truncate drops the old data, keeping xattrs and omap, like rados put).
  Transaction t;
  t.Touch(coll, oid);
  t.Truncate(coll, oid, 0);
  uint64_t done = 0;
  Progress progress("put", total);
  for (;;) {
    std::string chunk(kChunk, '\0');
    size_t have = 0;
    while (have < kChunk) {
      ssize_t n = ::read(fd, chunk.data() + have, kChunk - have);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Fail("put", Status::FromErrno(errno, file == "-" ? "stdin" : file));
      if (n == 0) break;
      have += static_cast<size_t>(n);
    }
    if (have == 0) break;
    chunk.resize(have);
    t.Write(coll, oid, done, std::move(chunk));
    done += have;
    progress.Update(done);
  }
  if (fd != STDIN_FILENO) ::close(fd);
  progress.Note("committing " + Human(done));
  const auto start = std::chrono::steady_clock::now();
  Status s = (*store)->Apply(std::move(t));
  progress.Done();
  if (!s.ok()) return Fail("put", s);
  rc = Unmount("put", std::move(*store));
  if (rc != 0) return rc;
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "put " << coll << "/" << oid.name << ": " << done << " bytes";
  if (done >= (1u << 20) && secs > 0) {
    std::cout << ", committed at " << Fixed(done / secs / 1e6, 1) << " MB/s";
  }
  std::cout << "\n";
  return 0;
}

int CmdGet(const Args& args) {
  const std::string& coll = args.positional()[1];
  const std::string& file = args.positional()[3];
  ObjectId oid;
  int rc = 0;
  if (!ParseObject("get", args, 2, &oid, &rc)) return rc;
  const bool to_stdout = file == "-";
  if (!to_stdout && PathExists(file)) {
    return Fail("get", Status::AlreadyExists(file + " exists (get never overwrites a file)"));
  }
  auto store = MountReadOnly(args.positional()[0]);
  if (!store.ok()) return Fail("get", store.status());
  auto stat = (*store)->Stat(coll, oid);
  if (!stat.ok()) return Fail("get", stat.status());
  // The bytes go to a temporary file beside FILE, linked to FILE only once complete (link
  // never replaces an existing file), so a failed or killed get leaves no partial FILE.
  int fd = STDOUT_FILENO;
  std::string tmp;
  if (!to_stdout) {
    tmp = file + ".smrstore-get.XXXXXX";
    fd = ::mkstemp(tmp.data());
    if (fd < 0) return Fail("get", Status::FromErrno(errno, tmp));
  }
  auto fail = [&](const Status& s) {
    if (!to_stdout) {
      ::close(fd);
      ::unlink(tmp.c_str());
    }
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
      return fail(Status::FromErrno(errno, to_stdout ? "stdout" : tmp));
    }
    done += n;
    progress.Update(done);
  }
  progress.Done();
  if (!to_stdout) {
    if (::fsync(fd) != 0) return fail(Status::FromErrno(errno, tmp));
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);  // mkstemp made it 0600; give it open(O_CREAT)'s mode
    ::close(fd);
    if (::link(tmp.c_str(), file.c_str()) != 0) {
      const int err = errno;
      ::unlink(tmp.c_str());
      return Fail("get", Status::FromErrno(err, file));
    }
    ::unlink(tmp.c_str());
  }
  rc = Unmount("get", std::move(*store));
  if (rc != 0) return rc;
  if (!to_stdout) std::cout << "got " << coll << "/" << oid.name << ": " << done << " bytes\n";
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
  Status s = (*store)->Apply(std::move(t));
  if (!s.ok()) return Fail("rm", s);
  std::cout << "removed " << coll << "/" << oid.name << "\n";
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
  if (json) out << "{\"collection\": \"" << JsonEscape(coll) << "\", \"objects\": [";
  size_t count = 0;
  for (;;) {
    std::vector<ObjectId> page;
    ObjectId next;
    Status s = (*store)->ListObjects(coll, start, end, kListPage, &page, &next);
    if (!s.ok()) return Fail("ls", s);
    for (const ObjectId& o : page) {
      if (json) {
        out << (count ? ",\n  " : "\n  ") << ObjectJson(o);
      } else {
        out << o.name << "\n";
      }
      ++count;
    }
    if (next.max || page.empty()) break;
    start = next;
  }
  if (json) out << (count ? "\n ], " : "], ") << "\"count\": " << count << "}\n";
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
    std::cout << "{\"collection\": \"" << JsonEscape(coll) << "\", \"object\": "
              << ObjectJson(oid) << ",\n \"size\": " << st->size << ", \"nid\": " << st->nid
              << ", \"data_inline\": " << (st->data_inline ? "true" : "false")
              << ", \"extents\": " << st->extents << ", \"mapped_bytes\": " << mapped
              << ", \"xattrs\": " << attrs->size() << ", \"omap_keys\": " << omap->size()
              << "}\n";
  } else {
    std::cout << coll << "/" << oid.name << " (" << oid.ToString() << "): size " << st->size
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
  if (name.empty()) return Fail("setxattr", Status::InvalidArgument("empty attribute name"));
  auto value = ValueArg(args, 4);
  if (!value.ok()) return Fail("setxattr", value.status());
  auto store = Mount(args.positional()[0]);
  if (!store.ok()) return Fail("setxattr", store.status());
  Transaction t;
  t.SetAttr(coll, oid, name, std::move(*value));
  Status s = (*store)->Apply(std::move(t));
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
  for (const auto& [k, v] : *attrs) std::cout << k << "\n";
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
  Status s = (*store)->Apply(std::move(t));
  if (!s.ok()) return Fail("setomapval", s);
  return Unmount("setomapval", std::move(*store));
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
  if (it == v->end()) return Fail("getomapval", Status::NoData("no omap key " + key));
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
    for (const auto& [k, v] : *page) out << k << "\n";
    if (page->size() < kListPage) break;
    after = page->back().first;
    first = false;
  }
  std::cout << out.str();
  return Unmount("listomapkeys", std::move(*store));
}

}  // namespace

// ---------------------------------------------------------------------------------------
// zones STORE

bool IsStoreTarget(const std::string& target) {
  if (target.rfind("emu:", 0) == 0 || target.rfind("zbd:", 0) == 0) return false;
  return IsDir(target);
}

int CmdStoreZones(const Args& args) {
  const std::string& dir = args.positional()[0];
  auto first = args.number("zone", 0);
  auto count = args.number("count", 0);
  if (!first.ok()) return Fail("zones", first.status());
  if (!count.ok()) return Fail("zones", count.status());
  // The store owns its drives (and locks them); the opener lets the tool see them.
  std::vector<std::pair<std::string, ZonedDevice*>> drives;
  auto opener = [&drives](const std::string& spec) -> Result<std::unique_ptr<ZonedDevice>> {
    auto dev = OpenDevice(spec);
    if (dev.ok()) drives.emplace_back(spec, dev->get());
    return dev;
  };
  auto store = Mount(dir, opener);
  if (!store.ok()) return Fail("zones", store.status());
  const bool json = args.has("json");
  const std::string stats = (*store)->StatsJson();
  std::vector<std::pair<std::string, std::string>> kv;
  Status parsed = JsonFlattener(stats).Run(&kv);
  if (!parsed.ok()) return Fail("zones", parsed);
  std::ostringstream out;
  if (json) {
    out << "{\"store\": {\"dir\": \"" << JsonEscape(dir) << "\", \"uuid\": \""
        << JsonEscape(StatsValue(stats, "store.uuid")) << "\", \"zone_states\": {";
    bool firstkv = true;
    for (const auto& [k, v] : kv) {
      if (k.rfind("zones.", 0) != 0) continue;
      out << (firstkv ? "" : ", ") << "\"" << JsonEscape(k.substr(6)) << "\": " << v;
      firstkv = false;
    }
    out << "}},\n \"drives\": [";
  } else {
    out << "store " << dir << ": uuid " << StatsValue(stats, "store.uuid") << ", "
        << drives.size() << " drive" << (drives.size() == 1 ? "" : "s") << "\n";
    out << "store zone states (all drives):";
    for (const auto& [k, v] : kv) {
      if (k.rfind("zones.", 0) == 0) out << " " << k.substr(6) << "=" << v;
    }
    out << "\n";
  }
  for (size_t i = 0; i < drives.size(); ++i) {
    auto report = ZoneReport(drives[i].first, drives[i].second, *first, *count, json);
    if (!report.ok()) return Fail("zones", report.status().WithContext(drives[i].first));
    if (json) {
      // Indent the device report by one level inside the array.
      std::string r = *report;
      while (!r.empty() && r.back() == '\n') r.pop_back();
      std::string indented;
      for (char c : r) {
        indented += c;
        if (c == '\n') indented += "  ";
      }
      out << (i ? ",\n  " : "\n  ") << indented;
    } else {
      out << "\ndrive " << i << " (" << drives[i].first << ")\n" << *report;
    }
  }
  if (json) out << "\n ]}\n";
  std::cout << out.str();
  return Unmount("zones", std::move(*store));
}

void AddStoreCommands(Cli* cli) {
  const std::string obj_note =
      "OBJ is the object name; --pool, --nspace, --locator, --hash and --snap give the\n"
      "rest of its identity (Ceph's ghobject_t). The default --hash is the crc32c of the\n"
      "locator key, or of the name when there is none (Ceph itself uses rjenkins; pass\n"
      "--hash to match a RADOS object's placement). Names, keys and namespaces are limited\n"
      "to 2048 bytes.";
  cli->Add({"mkfs", "STORE SPEC [SPEC...]", "create a store in directory STORE on zoned drives",
            "Creates the store's metadata in STORE (which must not hold a store) and formats\n"
            "the drives; emu: drives that do not exist are created. Drives holding another\n"
            "store are refused unless --force. Prints the new store's uuid and capacity.",
            2,
            65,
            {{"force", "", "format drives that belong to another store"},
             {"inline-max", "BYTES", "objects up to this size stay in RocksDB (default 0)"},
             {"max-record", "BYTES", "largest data record payload (default 1M, 4K multiple)"}},
            CmdMkfs});
  cli->Add({"df", "STORE", "space used and available",
            "Total data capacity, available (free zones + room in open zones), used\n"
            "(total - available), allocated (written into data zones), stored (live object\n"
            "bytes) and RocksDB size, with percentages of total.",
            1,
            1,
            {{"json", "", "print JSON"}},
            CmdDf});
  cli->Add({"stats", "STORE", "store statistics (statfs, counters, zone states)",
            "Mounts the store and prints Store::StatsJson(): as 'key value' lines, or the\n"
            "JSON itself with --json. Counters count since this mount. --document prints\n"
            "the smrstore.stats/1 document of doc/stats-schema.md instead (one line of\n"
            "JSON, with each drive's zonemap and streams unless --compact).",
            1,
            1,
            {{"json", "", "print JSON"},
             {"document", "", "print the smrstore.stats/1 document"},
             {"name", "NAME", "the document's name (default: the store directory's name)"},
             {"compact", "", "with --document: leave out the zone maps"}},
            CmdStats});
  cli->Add({"fsck", "STORE", "check the store's metadata against its zones",
            "Checks metadata, zone accounting and record placement; --deep also reads and\n"
            "verifies every referenced record; --repair fixes what can be fixed without\n"
            "losing data. Prints the counts and every error. Exit 0 when clean, 1 when\n"
            "errors remain.",
            1,
            1,
            {{"deep", "", "read and verify every record"},
             {"repair", "", "fix repairable errors"},
             {"json", "", "print JSON"}},
            CmdFsck});
  cli->Add({"gc", "STORE", "run zone GC now",
            "Cleans up to --zones victim zones chosen by the store's GC policy: live data is\n"
            "relocated and committed first, then each victim is reset. Safe to interrupt.",
            1,
            1,
            {{"zones", "N", "victims to clean at most (default 1)"}, {"json", "", "print JSON"}},
            CmdGc});
  cli->Add({"mkcoll", "STORE COLL", "create a collection",
            "COLL is a collection name as Ceph's coll_t prints it (e.g. 1.0_head, meta).", 2,
            2, {{"bits", "N", "hash bits of the collection (default 0)"}}, CmdMkcoll});
  cli->Add({"rmcoll", "STORE COLL", "remove an empty collection", "", 2, 2, {}, CmdRmcoll});
  cli->Add({"lscoll", "STORE", "list collections", "", 1, 1, {}, CmdLscoll});
  cli->Add({"put", "STORE COLL OBJ FILE", "store FILE ('-' = stdin) as object OBJ",
            "Replaces the object's data with FILE's bytes in one transaction (all or\n"
            "nothing; xattrs and omap are kept, like rados put). The whole file is held in\n"
            "memory until it commits.\n" +
                obj_note,
            4, 4, ObjectOptions(), CmdPut});
  cli->Add({"get", "STORE COLL OBJ FILE", "save object OBJ to FILE ('-' = stdout)",
            "Never overwrites FILE; FILE appears only once complete.\n" + obj_note, 4, 4,
            ObjectOptions(), CmdGet});
  cli->Add({"rm", "STORE COLL OBJ", "remove an object", obj_note, 3, 3, ObjectOptions(),
            CmdRm});
  cli->Add({"ls", "STORE COLL", "list a collection's objects (Ceph order)",
            "Prints one object name per line, or every field with --json, in Ceph's\n"
            "collection-list order (by reversed hash bits, then namespace, key, name).",
            2, 2, {{"json", "", "print JSON"}}, CmdLs});
  cli->Add({"stat", "STORE COLL OBJ", "size and layout of an object", obj_note, 3, 3,
            With({{"json", "", "print JSON"}}, ObjectOptions()), CmdStat});
  cli->Add({"setxattr", "STORE COLL OBJ NAME [VALUE]", "set an attribute (VALUE or stdin)",
            "The object must exist. Without VALUE, the value is read from stdin.\n" + obj_note,
            4, 5, ObjectOptions(), CmdSetxattr});
  cli->Add({"getxattr", "STORE COLL OBJ NAME", "print an attribute's value and a newline",
            obj_note, 4, 4, ObjectOptions(), CmdGetxattr});
  cli->Add({"listxattr", "STORE COLL OBJ", "list attribute names", obj_note, 3, 3,
            ObjectOptions(), CmdListxattr});
  cli->Add({"setomapval", "STORE COLL OBJ KEY [VALUE]", "set an omap key (VALUE or stdin)",
            "The object must exist. Without VALUE, the value is read from stdin.\n" + obj_note,
            4, 5, ObjectOptions(), CmdSetomapval});
  cli->Add({"getomapval", "STORE COLL OBJ KEY", "print an omap value and a newline", obj_note,
            4, 4, ObjectOptions(), CmdGetomapval});
  cli->Add({"listomapkeys", "STORE COLL OBJ", "list omap keys", obj_note, 3, 3,
            ObjectOptions(), CmdListomapkeys});
}

}  // namespace smr::tool
