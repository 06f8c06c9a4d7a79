// The helpers of store_command_util.h.
#include "store_command_util.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>

#include "common/crc32c.h"

namespace smr::tool::storecmd {

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

Result<std::unique_ptr<Store>> Mount(const std::string& dir, Store::DeviceOpener opener,
                                     bool read_only) {
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

Json ObjectJson(const ObjectId& o) {
  return {{"name", o.name},          {"pool", o.pool},
          {"namespace", o.nspace},   {"locator", o.key},
          {"hash", HashHex(o.hash)}, {"snap", SnapText(o.snap)},
          {"id", o.ToString()}};
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

std::string StoreUuid(Store* store) {
  return store->Stats().at("store").at("uuid").get<std::string>();
}

std::string JsonText(const Json& j) {
  return j.dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

}  // namespace smr::tool::storecmd
