// Store-level subcommands of smrstore-tool: mkfs, df, stats, fsck, the store form of
// `zones`, and object commands in the spirit of `rados` (mkcoll, rmcoll, lscoll, put, get,
// rm, ls, stat, setxattr, getxattr, listxattr, setomapval, getomapval, listomapkeys).
//
// Every command mounts the store (Store::Open), does one thing and unmounts. Mutations are
// one transaction each, so a failed or killed command changes nothing. Objects are named
// by their name plus --pool/--nspace/--locator/--hash/--snap (see ObjectOptions()).
#include "store_commands.h"

#include <fcntl.h>
#include <signal.h>
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

constexpr size_t kChunk = 4u << 20;        // get: bytes per Read
constexpr uint64_t kPutChunk = 16u << 20;  // put: bytes per transaction (rounded to records)
constexpr uint64_t kBlock = 4096;          // record header / payload padding unit
// A put writes under the target's id with this generation, then renames (see CmdPut).
constexpr uint64_t kPutTempGeneration = 0x736d727075740000ull;  // "smrput\0\0"
constexpr size_t kListPage = 1024;         // ls / listomapkeys page size

// ---------------------------------------------------------------------------------------
// Small helpers

// Names as printed (control bytes escaped, cli.h PrintableName).
std::string P(const std::string& name) { return PrintableName(name); }

// Names over Ceph's limits are invalid arguments (exit 2), found before mounting.
bool CheckNames(const std::string& cmd, const Transaction& t, int* rc) {
  Status s = t.Validate();
  if (s.ok()) return true;
  *rc = UsageFail(cmd, s);
  return false;
}

// Validates (Ceph's name limits), then applies.
Status ApplyChecked(Store* store, Transaction t) {
  Status v = t.Validate();
  if (!v.ok()) return v;
  return store->Apply(std::move(t));
}

// Zone bytes a put of `size` bytes needs: data records of at most `max_record` payload
// bytes (put writes whole multiples of it per op, so only the last record is partial),
// each a 4 KiB header plus its payload padded to 4 KiB (txn_planner AddRecordWrite,
// format/record_format.h). Objects up to `inline_max` stay in RocksDB: no zone bytes.
uint64_t PutZoneBytes(uint64_t size, uint64_t max_record, uint64_t inline_max) {
  if (size <= inline_max) return 0;
  const uint64_t full = size / max_record, rest = size % max_record;
  uint64_t bytes = full * (kBlock + (max_record + kBlock - 1) / kBlock * kBlock);
  if (rest > 0) bytes += kBlock + (rest + kBlock - 1) / kBlock * kBlock;
  return bytes;
}

// The largest put whose PutZoneBytes fits in `zone_bytes` (Store::Statfs user_available):
// what df prints as available. Never less than inline_max (those stay in RocksDB).
uint64_t LargestPut(uint64_t zone_bytes, uint64_t max_record, uint64_t inline_max) {
  const uint64_t per = kBlock + max_record;  // max_record is a 4 KiB multiple (mkfs)
  uint64_t n = zone_bytes / per * max_record;
  const uint64_t left = zone_bytes % per;
  if (left > kBlock) n += (left - kBlock) / kBlock * kBlock;
  return std::max(n, inline_max);
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
  // An empty name or one over Ceph's limits is an invalid argument too (exit 2).
  if (name.empty()) return Status::InvalidArgument("the object name is empty");
  Transaction check;
  check.Touch("", oid);
  Status v = check.Validate();
  if (!v.ok()) return v;
  *usage = false;
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

// The store's uuid, from the engine's own stats structure.
std::string StoreUuid(Store* store) { return store->Stats().at("store").at("uuid").get<std::string>(); }

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
    return UsageFail("mkfs", Status::InvalidArgument("--inline-max / --max-record too large"));
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
  const StoreStatfs st = (*store)->Statfs();
  std::cout << "created store " << dir << ": uuid " << StoreUuid(store->get()) << ", "
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
  // "available" is what a put can really use: the largest object `put` stores now (its
  // records and their 4 KiB headers fit in Statfs().user_available, which leaves out the
  // GC reserve and a record's tail per zone); a put one byte larger is refused NoSpace.
  const StoreOptions& o = (*store)->options();
  const uint64_t available = LargestPut(st.user_available, o.max_record_payload, o.inline_max);
  // "free": free zones + room in open zones (GC reserve included); used = total - free.
  const uint64_t used = st.total >= st.available ? st.total - st.available : 0;
  if (args.has("json")) {
    std::cout << "{\"total\": " << st.total << ", \"available\": " << available
              << ", \"free\": " << st.available << ", \"user_available\": " << st.user_available
              << ", \"reclaimable\": " << st.reclaimable
              << ", \"used\": " << used << ", \"allocated\": " << st.allocated
              << ", \"stored\": " << st.stored << ", \"meta_bytes\": " << st.meta_bytes
              << ",\n \"available_pct\": " << Fixed(Pct(available, st.total), 1)
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
    row("available", available,
        "  " + Fixed(Pct(available, st.total), 1) + " % (largest put now)");
    row("free", st.available, "  " + Fixed(Pct(st.available, st.total), 1) +
                                  " % (free zones + open zones' room, GC reserve incl.)");
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
  if (args.has("json")) {
    std::cout << (*store)->StatsJson();
  } else {
    const auto kv = FlattenJson((*store)->Stats());
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
  if (!zones.ok()) return UsageFail("gc", zones.status());
  if (*zones == 0 || *zones > 1000000) {
    return UsageFail("gc", Status::InvalidArgument("--zones must be between 1 and 1000000"));
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
    std::cout << "],\n \"lost\": [";
    for (size_t i = 0; i < f.lost.size(); ++i) {
      std::cout << (i ? ", " : "") << "\"" << JsonEscape(f.lost[i]) << "\"";
    }
    std::cout << "]}\n";
  } else {
    std::cout << "fsck" << (deep ? " --deep" : "") << (repair ? " --repair" : "") << ": "
              << f.collections << " collections, " << f.objects << " objects, " << f.extents
              << " extents";
    if (deep) std::cout << ", " << f.records_verified << " records verified";
    std::cout << "\n";
    for (const std::string& e : f.errors) std::cout << "error: " << P(e) << "\n";
    for (const std::string& e : f.repaired) std::cout << "repaired: " << P(e) << "\n";
    for (const std::string& e : f.lost) std::cout << "lost: " << P(e) << "\n";
    std::cout << (f.ok() ? "clean" : std::to_string(f.errors.size()) + " errors") << "\n";
    if (!f.lost.empty()) std::cout << f.lost.size() << " objects lost\n";
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
  if (json) out << "{\"collection\": \"" << JsonEscape(coll) << "\", \"objects\": [";
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
        std::string j = ObjectJson(o);
        if (partial) j.insert(j.size() - 1, ", \"partial_put\": true");
        out << (count ? ",\n  " : "\n  ") << j;
      } else {
        out << P(o.name) << (partial ? "  (partial copy of a killed put; the next put of it removes it)" : "")
            << "\n";
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
  if (!first.ok()) return UsageFail("zones", first.status());
  if (!count.ok()) return UsageFail("zones", count.status());
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
  const Json stats = (*store)->Stats();
  const std::string uuid = stats.at("store").at("uuid").get<std::string>();
  std::ostringstream out;
  if (json) {
    const Json head = {{"dir", dir}, {"uuid", uuid}, {"zone_states", stats.at("zones")}};
    out << "{\"store\": " << head.dump(-1, ' ', false, Json::error_handler_t::replace)
        << ",\n \"drives\": [";
  } else {
    out << "store " << P(dir) << ": uuid " << uuid << ", "
        << drives.size() << " drive" << (drives.size() == 1 ? "" : "s") << "\n";
    out << "store zone states (all drives):";
    for (const auto& [k, v] : stats.at("zones").items()) out << " " << k << "=" << v.dump();
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
      "--hash to match a RADOS object's placement). Ceph's limits apply: names and locator\n"
      "keys <= 2048 bytes, namespaces <= 256, xattr names <= 100 (longer ones: exit 2).\n"
      "Names are printed with control bytes escaped as \\xNN (a backslash as \\\\).";
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
            "Total data capacity; available: the largest object put can store now (its\n"
            "records with their 4 KiB headers fit in the space users can surely still write,\n"
            "Statfs user_available: free zones beyond the GC reserve and open zones' room,\n"
            "less a record per zone); a put one byte larger fails NoSpace before writing.\n"
            "free (free zones + room in open zones), used (total - free), allocated (written\n"
            "into data zones), stored (live object bytes) and RocksDB size, with percentages\n"
            "of total.",
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
            "Replaces the object's data with FILE's bytes, all or nothing (xattrs and omap\n"
            "are kept, like rados put). FILE is streamed in 16 MiB transactions into a\n"
            "temporary copy (the object's id with generation 0x736d727075740000) that the\n"
            "last transaction renames onto OBJ; memory stays bounded whatever the size. A\n"
            "regular FILE larger than df's available is refused with NoSpace before\n"
            "anything is written; a put that fails later removes its copy. A killed put\n"
            "leaves the copy behind; the next put of OBJ removes it.\n" +
                obj_note,
            4, 4, ObjectOptions(), CmdPut});
  cli->Add({"get", "STORE COLL OBJ FILE", "save object OBJ to FILE ('-' = stdout)",
            "Never overwrites FILE; FILE appears only once complete. The bytes go to an\n"
            "unnamed O_TMPFILE file in FILE's directory that is linked to FILE at the end,\n"
            "so even kill -9 leaves nothing (where O_TMPFILE is unsupported: a temporary\n"
            "FILE.smrstore-get.XXXXXX removed on errors and on SIGINT/SIGTERM).\n" + obj_note, 4, 4,
            ObjectOptions(), CmdGet});
  cli->Add({"rm", "STORE COLL OBJ", "remove an object", obj_note, 3, 3, ObjectOptions(),
            CmdRm});
  cli->Add({"ls", "STORE COLL", "list a collection's objects (Ceph order)",
            "Prints one object name per line, or every field with --json, in Ceph's\n"
            "collection-list order (by reversed hash bits, then namespace, key, name). A\n"
            "killed put's partial copy is marked (--json: \"partial_put\": true).",
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
