// smrstore-tool scale-bench and probe-mount: how mount time and memory grow with the live
// data a store holds (issue 19, goal 6: mount <= 2 s and RAM <= 64 MB per TB of live data).
//
// Method, per size L of --sizes (smallest first):
//   1. A fresh store on --drives emulated drives of 256 MiB zones (by default), sized so
//      that L fills about 90 % of them. With drop_kib=128 in the drives' specs (the default;
//      --keep-payloads turns it off) the drives keep every record's header and tail block
//      but not its payload (device/emulated_zoned_device.h, "Dropped pieces"), so a TB of
//      live data needs a few GB of the host's disk. Zones, records, write pointers and
//      every metadata key are as with payloads: what mount and memory depend on.
//   2. Fill: L / --object-size objects spread over --colls collections, each created as an
//      OSD creates a RADOS object (one transaction: the data, and the xattrs "_" of 257
//      bytes and "snapset" of 35 bytes an OSD sets — their sizes from the captured OSD
//      traces in qa/traces), --depth transactions in flight. No deletes: no GC runs (GC
//      reads payloads, which dropped drives do not hold). The fill runs in a process of its
//      own (`probe-mount --write-then-kill`) that kills itself with SIGKILL once every PUT
//      is acknowledged: no unmount, RocksDB's memtables unflushed, zones open — an OSD
//      that crashed after writing all of it. (--clean-fill: in this process, then a clean
//      unmount, and no after-crash mount.)
//   3. The mount after that crash, in a fresh process (`probe-mount`, so that its memory
//      is the store's and nothing else's): the time of Store::Open (RocksDB's WAL replay
//      and the zones' reconciliation included), then the same figures as below.
//   4. Mount, --mounts times, each in a fresh process after a clean unmount: the time of
//      Store::Open, VmRSS before and after it, VmRSS after --stats lookups of random
//      objects' metadata (onode reads: the block cache fills), VmHWM, the time of the
//      clean unmount. With --cold (root only) the first of them starts after the page
//      cache is dropped (sync; drop_caches = 3), so RocksDB reads its files from the
//      disk: what a mount after a reboot costs.
//   5. The store and drives are deleted (unless --keep) before the next size.
// Then least-squares lines through the sizes: mount seconds and RSS against TB of live
// data. Their slope is the growth per TB; their value at 1 TB is extrapolated when the
// largest size is below it (said so in the output).
#include "scale_bench.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "bench_common.h"
#include "common/pattern.h"
#include "device/device_spec.h"
#include "cli/quantile.h"
#include "store/store.h"

namespace smr::tool {

namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr double kTB = 1e12;  // per-TB figures are per 10^12 bytes, as drives are sold
constexpr size_t kAttrHeadBytes = 257;    // "_" (object_info_t) in the captured traces
constexpr size_t kAttrSnapsetBytes = 35;  // "snapset"

std::string CollName(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "1.%" PRIx64 "_head", i);
  return buf;
}

// Object i of a scale run and the collection it is in.
ObjectId ScaleObject(uint64_t i) { return BenchObject("rbd_data.scale.", i); }
std::string ScaleColl(uint64_t i, uint64_t colls) { return CollName(i % colls); }

// VmRSS and VmHWM of this process, KiB (0 when /proc does not say).
struct Memory {
  uint64_t rss_kib = 0, hwm_kib = 0;
};
Memory ReadMemory() {
  Memory m;
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    unsigned long long v = 0;
    if (std::sscanf(line.c_str(), "VmRSS: %llu kB", &v) == 1) m.rss_kib = v;
    if (std::sscanf(line.c_str(), "VmHWM: %llu kB", &v) == 1) m.hwm_kib = v;
  }
  return m;
}

// Bytes the files under `path` occupy on the host's disk (st_blocks), and their sizes.
void DiskUse(const std::string& path, uint64_t* allocated, uint64_t* apparent) {
  *allocated = *apparent = 0;
  std::error_code ec;
  auto add = [&](const std::filesystem::path& p) {
    struct stat st;
    if (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      *allocated += static_cast<uint64_t>(st.st_blocks) * 512;
      *apparent += static_cast<uint64_t>(st.st_size);
    }
  };
  if (std::filesystem::is_directory(path, ec)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(path, ec)) add(e.path());
  } else {
    add(path);
  }
}

// Writes objects [first, first + count) as the fill does: each one transaction of the
// data and the two xattrs an OSD sets, `depth` in flight; returns once all are durable.
// `progress`, when given, is called about every 30 s with the objects submitted so far.
Status WriteScaleObjects(Store* store, uint64_t first, uint64_t count, uint64_t object_size,
                         uint64_t colls, uint64_t depth,
                         const std::function<void(uint64_t, double)>& progress = nullptr) {
  std::string data(object_size, '\0');
  FillPattern(7, 0, data.data(), data.size());
  const std::string head(kAttrHeadBytes, 'o'), snapset(kAttrSnapsetBytes, 's');
  InFlightWindow window(depth);
  const auto t0 = Clock::now();
  auto last_note = t0;
  for (uint64_t i = first; i < first + count; ++i) {
    Transaction t;
    const std::string coll = ScaleColl(i, colls);
    const ObjectId oid = ScaleObject(i);
    t.Write(coll, oid, 0, data);
    t.SetAttrs(coll, oid, {{"_", head}, {"snapset", snapset}});
    window.Acquire();
    store->Submit(std::move(t), [&window](const Status& s) { window.Release(s); });
    if (progress && Seconds(Clock::now() - last_note) >= 30) {
      last_note = Clock::now();
      progress(i - first, Seconds(last_note - t0));
    }
  }
  return window.Drain();
}

// Open and sealed zones (Store::Stats "zones" by state): the zones that hold data.
uint64_t ZonesUsed(Store* store) {
  uint64_t used = 0;
  const Json stats = store->Stats();
  for (const auto& [state, n] : stats.at("zones").items()) {
    if (state.rfind("open", 0) == 0 || state.rfind("sealed", 0) == 0) used += n.get<uint64_t>();
  }
  return used;
}

int CmdProbeMount(const Args& args) {
  const std::string dir = args.positional()[0];
  auto stats = args.number("stats", 0);
  auto objects = args.number("objects", 0);
  auto colls = args.number("colls", 64);
  auto kill_after = args.number("write-then-kill", 0);
  auto first = args.number("first", objects.ok() ? *objects : 0);
  auto depth = args.number("depth", 32);
  auto object_size = args.size("object-size", 4 * kMiB);
  for (const Status* s : {&stats.status(), &objects.status(), &colls.status(),
                          &kill_after.status(), &first.status(), &depth.status(),
                          &object_size.status()}) {
    if (!s->ok()) return UsageFail("probe-mount", *s);
  }
  if (*object_size == 0 || *object_size % 4096 != 0 || *depth == 0) {
    return UsageFail("probe-mount", Status::InvalidArgument(
                                        "--object-size must be a non-zero multiple of 4096, "
                                        "--depth > 0"));
  }
  if ((*stats > 0 || *kill_after > 0) && (*objects == 0 || *colls == 0)) {
    return UsageFail("probe-mount", Status::InvalidArgument(
                                        "--stats and --write-then-kill need --objects N (and "
                                        "--colls N > 0): the objects scale-bench wrote"));
  }
  const Memory before = ReadMemory();
  auto t0 = Clock::now();
  auto store = Store::Open(dir);
  if (!store.ok()) return Fail("probe-mount", store.status());
  const double open_s = Seconds(Clock::now() - t0);
  const Memory opened = ReadMemory();
  if (*kill_after > 0) {
    // The crash a mount after a crash recovers from: objects [first, first + N), every one
    // acknowledged (durable), then kill -9 — no unmount, RocksDB's memtables unflushed.
    t0 = Clock::now();
    Status w = WriteScaleObjects(store->get(), *first, *kill_after, *object_size, *colls, *depth,
                                 [&](uint64_t done, double seconds) {
                                   std::fprintf(stderr,
                                                "probe-mount: %llu of %llu objects written "
                                                "(%.0f s)\n",
                                                static_cast<unsigned long long>(done),
                                                static_cast<unsigned long long>(*kill_after),
                                                seconds);
                                 });
    if (!w.ok()) return Fail("probe-mount", w);
    const Json written = {{"written", *kill_after},
                          {"write_s", JsonNum(Seconds(Clock::now() - t0))},
                          {"user_bytes", (*store)->Counters().user_bytes_written},
                          {"zones_used", ZonesUsed(store->get())}};
    std::printf("%s\n", written.dump().c_str());
    std::fflush(nullptr);
    ::kill(::getpid(), SIGKILL);
  }
  t0 = Clock::now();
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (uint64_t k = 0; k < *stats; ++k) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t i = (x >> 11) % *objects;
    auto st = (*store)->Stat(ScaleColl(i, *colls), ScaleObject(i));
    if (!st.ok()) return Fail("probe-mount", st.status().WithContext("stat of object " +
                                                                      std::to_string(i)));
  }
  const double stats_s = Seconds(Clock::now() - t0);
  const Memory statted = ReadMemory();
  t0 = Clock::now();
  Status closed = (*store)->Close();
  if (!closed.ok()) return Fail("probe-mount", closed);
  const double close_s = Seconds(Clock::now() - t0);
  Json out = {{"dir", dir},
              {"open_s", JsonNum(open_s)},
              {"close_s", JsonNum(close_s)},
              {"stats", *stats},
              {"stats_s", JsonNum(stats_s)},
              {"rss_kib_before", before.rss_kib},
              {"rss_kib_open", opened.rss_kib},
              {"rss_kib_stats", statted.rss_kib},
              {"hwm_kib", ReadMemory().hwm_kib}};
  if (args.has("json")) {
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("mounted %s in %.3f s (RSS %.1f -> %.1f MiB), %llu metadata lookups in %.3f s "
                "(RSS %.1f MiB), unmounted in %.3f s\n",
                dir.c_str(), open_s, before.rss_kib / 1024.0, opened.rss_kib / 1024.0,
                static_cast<unsigned long long>(*stats), stats_s, statted.rss_kib / 1024.0,
                close_s);
  }
  return 0;
}

// Runs `argv` with stdout to a pipe; its output, or the error (exit status, signal). With
// `expect_signal`, the child must die of that signal (and its output is returned).
Result<std::string> RunChild(const std::vector<std::string>& argv, int expect_signal = 0) {
  int fds[2];
  if (::pipe(fds) != 0) return Status::FromErrno(errno, "pipe");
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return Status::FromErrno(e, "fork");
  }
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    std::vector<char*> cargv;
    for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    ::execv(cargv[0], cargv.data());
    std::fprintf(stderr, "exec %s: %s\n", cargv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (expect_signal != 0) {
    if (WIFSIGNALED(status) && WTERMSIG(status) == expect_signal) return out;
    return Status::IOError(argv[1] + " did not end by signal " + std::to_string(expect_signal) +
                           " (status " + std::to_string(status) + ")");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Status::IOError(argv[1] + " exited with status " +
                           std::to_string(WIFEXITED(status) ? WEXITSTATUS(status)
                                                            : 128 + WTERMSIG(status)));
  }
  return out;
}

// Flushes dirty pages and drops the page cache (root only).
Status DropPageCache() {
  ::sync();
  const int fd = ::open("/proc/sys/vm/drop_caches", O_WRONLY);
  if (fd < 0) return Status::FromErrno(errno, "/proc/sys/vm/drop_caches (--cold needs root)");
  const bool ok = ::write(fd, "3", 1) == 1;
  const int e = errno;
  ::close(fd);
  return ok ? Status::OK() : Status::FromErrno(e, "/proc/sys/vm/drop_caches");
}

struct ScaleConfig {
  uint64_t object_size = 4 * kMiB;
  uint64_t drives = 4;
  uint64_t zone_mib = 256;
  uint64_t depth = 32;
  uint64_t colls = 64;
  uint64_t mounts = 3;
  uint64_t stats = 2000;
  bool clean_fill = false;  // false: the fill ends in kill -9, the first mount after it
  bool drop = true;
  bool cold = false;
  bool keep = false;
  std::string dir;
  std::string self;  // this executable, for probe-mount
};

struct Probe {
  double open_s = 0, close_s = 0, stats_s = 0;
  double rss_before_mib = 0, rss_open_mib = 0, rss_stats_mib = 0, hwm_mib = 0;
};

struct SizePoint {
  uint64_t live_bytes = 0;  // user bytes written (= live: nothing is deleted)
  uint64_t objects = 0;
  uint64_t zones = 0;       // sequential zones of all drives
  uint64_t zones_used = 0;  // zones holding data after the fill
  double fill_s = 0;
  uint64_t meta_bytes = 0;        // RocksDB directory after the fill
  uint64_t drive_disk_bytes = 0;  // host disk the drive files use
  std::vector<Probe> probes;      // the first is cold with --cold
  double warm_open_s = 0;         // median over the warm probes
  double rss_open_mib = 0, rss_stats_mib = 0;  // median over all probes
  double cold_open_s = -1;
  double crash_open_s = -1;  // the mount after the fill's kill -9 (unless clean_fill)
};

Result<Probe> ParseProbe(const std::string& text) {
  SMR_ASSIGN_OR_RETURN(Json j, ParseJson(text));
  Probe p;
  try {
    p.open_s = j.at("open_s").get<double>();
    p.close_s = j.at("close_s").get<double>();
    p.stats_s = j.at("stats_s").get<double>();
    p.rss_before_mib = j.at("rss_kib_before").get<double>() / 1024.0;
    p.rss_open_mib = j.at("rss_kib_open").get<double>() / 1024.0;
    p.rss_stats_mib = j.at("rss_kib_stats").get<double>() / 1024.0;
    p.hwm_mib = j.at("hwm_kib").get<double>() / 1024.0;
  } catch (const std::exception& e) {
    return Status::Corruption(std::string("probe-mount printed an unexpected document: ") +
                              e.what());
  }
  return p;
}

Result<SizePoint> RunSize(const ScaleConfig& c, uint64_t live, size_t index) {
  SizePoint pt;
  pt.objects = live / c.object_size;
  if (pt.objects == 0) return Status::InvalidArgument("a size is smaller than --object-size");
  const uint64_t zone = c.zone_mib * kMiB;
  // Record bytes: a header block per record (1 MiB records) plus the payload. 90 % full.
  const uint64_t records_per_object = (c.object_size + kMiB - 1) / kMiB;
  const uint64_t needed = pt.objects * (c.object_size + records_per_object * 4096);
  const uint64_t zones_per_drive =
      (needed * 10 / 9 + zone * c.drives - 1) / (zone * c.drives) +
      6;  // + GC reserve (2), the journal's zones (2) and its reserve of free zones (2)
  const std::string stem = c.dir + "/scale-" + std::to_string(index);
  std::vector<std::string> specs;
  for (uint64_t d = 0; d < c.drives; ++d) {
    specs.push_back("emu:" + stem + ".d" + std::to_string(d) + ".img?zones=" +
                    std::to_string(zones_per_drive + 1) + "&zone_mib=" +
                    std::to_string(c.zone_mib) + "&conv=1&max_open=128" +
                    (c.drop ? "&drop_kib=128" : ""));
  }
  pt.zones = zones_per_drive * c.drives;
  const std::string store_dir = stem + ".store";
  for (const std::string& spec : specs) {
    auto dev = CreateDevice(spec);
    if (!dev.ok()) return dev.status().WithContext(spec);
  }
  StoreOptions options;
  SMR_RETURN_IF_ERROR(Store::Mkfs(store_dir, specs, options));
  {
    SMR_ASSIGN_OR_RETURN(auto store, Store::Open(store_dir));
    Transaction mk;
    for (uint64_t k = 0; k < c.colls; ++k) mk.MkColl(CollName(k), 6);
    SMR_RETURN_IF_ERROR(store->Apply(std::move(mk)));
    if (c.clean_fill) {
      const auto t0 = Clock::now();
      SMR_RETURN_IF_ERROR(WriteScaleObjects(
          store.get(), 0, pt.objects, c.object_size, c.colls, c.depth,
          [&](uint64_t done, double seconds) {
            std::fprintf(stderr,
                         "scale-bench: %.1f GiB: %llu of %llu objects written (%.0f s)\n",
                         static_cast<double>(live) / (1u << 30),
                         static_cast<unsigned long long>(done),
                         static_cast<unsigned long long>(pt.objects), seconds);
          }));
      pt.fill_s = Seconds(Clock::now() - t0);
      pt.live_bytes = store->Counters().user_bytes_written;
      pt.zones_used = ZonesUsed(store.get());
    }
    SMR_RETURN_IF_ERROR(store->Close());
  }
  const std::vector<std::string> probe = {c.self,
                                          "probe-mount",
                                          store_dir,
                                          "--stats",
                                          std::to_string(c.stats),
                                          "--objects",
                                          std::to_string(pt.objects),
                                          "--colls",
                                          std::to_string(c.colls),
                                          "--json"};
  if (!c.clean_fill) {
    // The fill runs in a process that ends in kill -9 once every PUT is acknowledged (an
    // OSD crashing after it wrote all this); the first mount is the one after that crash.
    std::vector<std::string> fill = {c.self, "probe-mount", store_dir, "--objects",
                                     std::to_string(pt.objects), "--first", "0",
                                     "--write-then-kill", std::to_string(pt.objects),
                                     "--colls", std::to_string(c.colls), "--object-size",
                                     std::to_string(c.object_size), "--depth",
                                     std::to_string(c.depth)};
    SMR_ASSIGN_OR_RETURN(std::string out, RunChild(fill, SIGKILL));
    auto j = ParseJson(out);
    if (!j.ok() || !j->is_object() || !j->contains("write_s")) {
      return Status::Corruption("the fill process printed an unexpected document: " + out);
    }
    pt.fill_s = j->at("write_s").get<double>();
    pt.live_bytes = j->at("user_bytes").get<uint64_t>();
    pt.zones_used = j->at("zones_used").get<uint64_t>();
    SMR_ASSIGN_OR_RETURN(std::string crash_out, RunChild(probe));
    SMR_ASSIGN_OR_RETURN(Probe p, ParseProbe(crash_out));
    pt.crash_open_s = p.open_s;
  }
  uint64_t apparent = 0;
  DiskUse(store_dir, &pt.meta_bytes, &apparent);
  for (uint64_t d = 0; d < c.drives; ++d) {
    uint64_t alloc = 0, size = 0;
    DiskUse(stem + ".d" + std::to_string(d) + ".img", &alloc, &size);
    pt.drive_disk_bytes += alloc;
  }
  std::vector<double> warm, rss_open, rss_stats;
  for (uint64_t m = 0; m < c.mounts; ++m) {
    const bool cold = c.cold && m == 0;
    if (cold) SMR_RETURN_IF_ERROR(DropPageCache());
    SMR_ASSIGN_OR_RETURN(std::string out, RunChild(probe));
    SMR_ASSIGN_OR_RETURN(Probe p, ParseProbe(out));
    pt.probes.push_back(p);
    if (cold) {
      pt.cold_open_s = p.open_s;
    } else {
      warm.push_back(p.open_s);
    }
    rss_open.push_back(p.rss_open_mib);
    rss_stats.push_back(p.rss_stats_mib);
  }
  pt.warm_open_s = warm.empty() ? pt.cold_open_s : Quantile(warm, 0.5);
  pt.rss_open_mib = Quantile(rss_open, 0.5);
  pt.rss_stats_mib = Quantile(rss_stats, 0.5);
  if (!c.keep) {
    std::error_code ec;
    std::filesystem::remove_all(store_dir, ec);
    for (uint64_t d = 0; d < c.drives; ++d) {
      std::filesystem::remove(stem + ".d" + std::to_string(d) + ".img", ec);
    }
  }
  return pt;
}

// Least-squares line y = a + b x.
struct Line {
  double a = 0, b = 0;
  double at(double x) const { return a + b * x; }
};
Line Fit(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  Line l;
  const double den = n * sxx - sx * sx;
  l.b = den != 0 ? (n * sxy - sx * sy) / den : 0;
  l.a = (sy - l.b * sx) / n;
  return l;
}

Result<std::vector<uint64_t>> ParseSizes(const std::string& text) {
  std::vector<uint64_t> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    SMR_ASSIGN_OR_RETURN(uint64_t v, ParseSize(item));
    sizes.push_back(v);
  }
  if (sizes.size() < 2) {
    return Status::InvalidArgument("--sizes needs at least two sizes to fit a growth line");
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

int CmdScaleBench(const Args& args) {
  ScaleConfig c;
  auto sizes = ParseSizes(args.get("sizes", "16G,64G,256G,1T"));
  auto object_size = args.size("object-size", c.object_size);
  auto drives = args.number("drives", c.drives);
  auto zone_mib = args.number("zone-mib", c.zone_mib);
  auto depth = args.number("depth", c.depth);
  auto colls = args.number("colls", c.colls);
  auto mounts = args.number("mounts", c.mounts);
  auto stats = args.number("stats", c.stats);
  for (const Status* s : {&sizes.status(), &object_size.status(), &drives.status(),
                          &zone_mib.status(), &depth.status(), &colls.status(),
                          &mounts.status(), &stats.status()}) {
    if (!s->ok()) return UsageFail("scale-bench", *s);
  }
  if (*object_size == 0 || *object_size % 4096 != 0 || *drives == 0 || *drives > 64 ||
      *zone_mib == 0 || *depth == 0 || *colls == 0 || *mounts == 0) {
    return UsageFail("scale-bench",
                     Status::InvalidArgument("--object-size must be a non-zero multiple of "
                                             "4096; --drives 1..64; --zone-mib, --depth, "
                                             "--colls and --mounts > 0"));
  }
  c.object_size = *object_size;
  c.drives = *drives;
  c.zone_mib = *zone_mib;
  c.depth = *depth;
  c.colls = *colls;
  c.mounts = *mounts;
  c.stats = *stats;
  c.clean_fill = args.has("clean-fill");
  c.drop = !args.has("keep-payloads");
  c.cold = args.has("cold");
  c.keep = args.has("keep");
  if (c.cold && ::geteuid() != 0) {
    return UsageFail("scale-bench", Status::InvalidArgument(
                                        "--cold drops the page cache: run as root"));
  }
  std::error_code ec;
  c.dir = args.get("dir", "/var/tmp/smrstore-scale-" + std::to_string(::getpid()));
  const bool made_dir = !std::filesystem::exists(c.dir, ec);
  std::filesystem::create_directories(c.dir, ec);
  if (ec) return Fail("scale-bench", Status::IOError(c.dir + ": " + ec.message()));
  c.self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) return Fail("scale-bench", Status::IOError("/proc/self/exe: " + ec.message()));

  std::vector<SizePoint> points;
  for (size_t i = 0; i < sizes->size(); ++i) {
    std::fprintf(stderr, "scale-bench: size %zu of %zu: %.1f GiB\n", i + 1, sizes->size(),
                 static_cast<double>((*sizes)[i]) / (1u << 30));
    auto pt = RunSize(c, (*sizes)[i], i);
    if (!pt.ok()) return Fail("scale-bench", pt.status());
    points.push_back(std::move(*pt));
  }
  if (made_dir && !c.keep) std::filesystem::remove(c.dir, ec);

  std::vector<double> tb, mount, rss_open, rss_stats, meta;
  for (const SizePoint& p : points) {
    tb.push_back(static_cast<double>(p.live_bytes) / kTB);
    mount.push_back(p.warm_open_s);
    rss_open.push_back(p.rss_open_mib * 1.048576);  // MB (10^6 bytes), as the goal says
    rss_stats.push_back(p.rss_stats_mib * 1.048576);
    meta.push_back(static_cast<double>(p.meta_bytes) / 1e6);
  }
  const Line mount_fit = Fit(tb, mount), open_fit = Fit(tb, rss_open),
             stats_fit = Fit(tb, rss_stats), meta_fit = Fit(tb, meta);
  const bool extrapolated = tb.back() < 1.0;
  std::vector<double> cold, crash;
  for (const SizePoint& p : points) {
    if (p.cold_open_s >= 0) cold.push_back(p.cold_open_s);
    if (p.crash_open_s >= 0) crash.push_back(p.crash_open_s);
  }
  const bool have_cold = cold.size() == tb.size(), have_crash = crash.size() == tb.size();
  const Line cold_fit = have_cold ? Fit(tb, cold) : Line{};
  const Line crash_fit = have_crash ? Fit(tb, crash) : Line{};
  const bool mount_met = mount_fit.at(1) <= 2.0 && (!have_cold || cold_fit.at(1) <= 2.0) &&
                         (!have_crash || crash_fit.at(1) <= 2.0);
  const double mount_goal = 2.0, ram_goal = 64.0;

  if (args.has("json")) {
    Json jpoints = Json::array();
    for (const SizePoint& p : points) {
      Json probes = Json::array();
      for (const Probe& q : p.probes) {
        probes.push_back({{"open_s", JsonNum(q.open_s)},
                          {"close_s", JsonNum(q.close_s)},
                          {"stats_s", JsonNum(q.stats_s)},
                          {"rss_mib_before", JsonNum(q.rss_before_mib)},
                          {"rss_mib_open", JsonNum(q.rss_open_mib)},
                          {"rss_mib_stats", JsonNum(q.rss_stats_mib)},
                          {"hwm_mib", JsonNum(q.hwm_mib)}});
      }
      jpoints.push_back({{"live_bytes", p.live_bytes},
                         {"objects", p.objects},
                         {"zones", p.zones},
                         {"zones_used", p.zones_used},
                         {"fill_s", JsonNum(p.fill_s)},
                         {"meta_bytes", p.meta_bytes},
                         {"drive_disk_bytes", p.drive_disk_bytes},
                         {"mount_warm_s", JsonNum(p.warm_open_s)},
                         {"mount_cold_s", p.cold_open_s >= 0 ? JsonNum(p.cold_open_s) : Json()},
                         {"mount_after_crash_s",
                          p.crash_open_s >= 0 ? JsonNum(p.crash_open_s) : Json()},
                         {"rss_mib_open", JsonNum(p.rss_open_mib)},
                         {"rss_mib_stats", JsonNum(p.rss_stats_mib)},
                         {"probes", probes}});
    }
    auto line = [](const Line& l) {
      return Json{{"intercept", JsonNum(l.a)}, {"per_tb", JsonNum(l.b)}, {"at_1tb", JsonNum(l.at(1))}};
    };
    Json doc = {{"bench", "smrstore-tool scale-bench"},
                {"config",
                 {{"object_size", c.object_size},
                  {"drives", c.drives},
                  {"zone_mib", c.zone_mib},
                  {"depth", c.depth},
                  {"colls", c.colls},
                  {"mounts", c.mounts},
                  {"stats", c.stats},
                  {"fill_ends_in_crash", !c.clean_fill},
                  {"payloads_dropped", c.drop},
                  {"cold", c.cold}}},
                {"points", jpoints},
                {"fit",
                 {{"mount_warm_s", line(mount_fit)},
                  {"mount_cold_s", have_cold ? line(cold_fit) : Json()},
                  {"mount_after_crash_s", have_crash ? line(crash_fit) : Json()},
                  {"rss_mb_open", line(open_fit)},
                  {"rss_mb_stats", line(stats_fit)},
                  {"meta_mb", line(meta_fit)},
                  {"at_1tb_extrapolated", extrapolated}}},
                {"goals",
                 {{"mount_s_per_tb", mount_goal},
                  {"ram_mb_per_tb", ram_goal},
                  {"mount_met", mount_met},
                  {"ram_growth_met", stats_fit.b <= ram_goal}}}};
    std::printf("%s", JsonText(doc).c_str());
    return 0;
  }
  std::printf("scale-bench: %llu KiB objects (+ xattrs _ %zu B, snapset %zu B) in %llu "
              "collections, %llu drives of %llu MiB zones, %s; %llu mounts per size (%s), "
              "%llu metadata lookups after each\n",
              static_cast<unsigned long long>(c.object_size >> 10), kAttrHeadBytes,
              kAttrSnapsetBytes, static_cast<unsigned long long>(c.colls),
              static_cast<unsigned long long>(c.drives),
              static_cast<unsigned long long>(c.zone_mib),
              c.drop ? "payloads dropped (drop_kib=128: record headers kept)" : "payloads stored",
              static_cast<unsigned long long>(c.mounts),
              c.cold ? "the first after dropping the page cache" : "page cache warm",
              static_cast<unsigned long long>(c.stats));
  std::printf("  %10s %9s %6s %8s %9s %9s %9s %9s %9s %10s %10s\n", "live GB", "objects",
              "zones", "fill s", "meta MB", "disk MB", "mount s", "cold s", "crash s",
              "RSS open", "RSS stats");
  for (const SizePoint& p : points) {
    char cold_text[32] = "-", crash_text[32] = "-";
    if (p.cold_open_s >= 0) std::snprintf(cold_text, sizeof(cold_text), "%.3f", p.cold_open_s);
    if (p.crash_open_s >= 0) {
      std::snprintf(crash_text, sizeof(crash_text), "%.3f", p.crash_open_s);
    }
    std::printf("  %10.1f %9llu %6llu %8.1f %9.1f %9.1f %9.3f %9s %9s %8.1f MB %8.1f MB\n",
                static_cast<double>(p.live_bytes) / 1e9,
                static_cast<unsigned long long>(p.objects),
                static_cast<unsigned long long>(p.zones_used), p.fill_s,
                static_cast<double>(p.meta_bytes) / 1e6,
                static_cast<double>(p.drive_disk_bytes) / 1e6, p.warm_open_s, cold_text, crash_text,
                p.rss_open_mib * 1.048576, p.rss_stats_mib * 1.048576);
  }
  const char* how = extrapolated ? "extrapolated beyond the largest size measured"
                                 : "within the sizes measured";
  std::printf("fit over %zu sizes (least squares; 1 TB = 10^12 bytes of live data; the value at "
              "1 TB %s):\n",
              points.size(), how);
  std::printf("  mount (warm)      %.3f s + %.3f s/TB -> %.3f s at 1 TB   goal <= %.0f s per TB: "
              "%s\n",
              mount_fit.a, mount_fit.b, mount_fit.at(1), mount_goal,
              mount_fit.at(1) <= mount_goal ? "met" : "NOT met");
  const std::pair<const char*, const Line*> more[] = {{"mount (cold)     ", &cold_fit},
                                                       {"mount after crash", &crash_fit}};
  for (const auto& [name, fit] : more) {
    if (fit == &cold_fit ? !have_cold : !have_crash) continue;
    std::printf("  %s %.3f s + %.3f s/TB -> %.3f s at 1 TB   goal <= %.0f s per TB: %s\n", name,
                fit->a, fit->b, fit->at(1), mount_goal,
                fit->at(1) <= mount_goal ? "met" : "NOT met");
  }
  std::printf("  RSS after mount   %.1f MB + %.1f MB/TB -> %.1f MB at 1 TB\n", open_fit.a,
              open_fit.b, open_fit.at(1));
  std::printf("  RSS after lookups %.1f MB + %.1f MB/TB -> %.1f MB at 1 TB   goal <= %.0f MB "
              "per TB of growth: %s (the fixed part is RocksDB's bounded caches and the "
              "process)\n",
              stats_fit.a, stats_fit.b, stats_fit.at(1), ram_goal,
              stats_fit.b <= ram_goal ? "met" : "NOT met");
  std::printf("  RocksDB on flash  %.1f MB + %.1f MB/TB\n", meta_fit.a, meta_fit.b);
  return 0;
}

}  // namespace

void AddScaleBenchCommands(Cli* cli) {
  cli->Add({"scale-bench", "",
            "mount time and memory against live data: a store filled at several sizes",
            "Per size of --sizes: a fresh store on --drives emulated drives (payloads dropped:\n"
            "drop_kib=128, headers kept; --keep-payloads stores them), filled with --object-size\n"
            "objects (+ the two xattrs an OSD sets), unmounted, then mounted --mounts times in\n"
            "fresh processes (probe-mount): mount time, RSS after mount and after --stats\n"
            "metadata lookups. Then least-squares lines against TB of live data, the value at\n"
            "1 TB labelled extrapolated when the sizes stop below it.",
            0,
            0,
            {{"dir", "DIR", "scratch directory (default /var/tmp/smrstore-scale-PID)"},
             {"sizes", "LIST", "live data sizes, comma-separated (default 16G,64G,256G,1T)"},
             {"object-size", "BYTES", "object size (default 4M)"},
             {"drives", "N", "emulated drives (default 4)"},
             {"zone-mib", "N", "zone size (default 256)"},
             {"depth", "N", "transactions in flight while filling (default 32)"},
             {"colls", "N", "collections the objects are spread over (default 64)"},
             {"mounts", "N", "mounts measured per size (default 3)"},
             {"stats", "N", "metadata lookups of random objects after each mount (default 2000)"},
             {"clean-fill", "",
              "fill in this process and unmount cleanly (default: the fill runs in a process "
              "killed with SIGKILL once all is acknowledged, and the first mount is after "
              "that crash)"},
             {"cold", "", "drop the page cache before each size's first mount (root)"},
             {"keep-payloads", "", "store payloads (the host's disk must hold the data)"},
             {"keep", "", "keep the stores and drives"},
             {"json", "", "print JSON"}},
            CmdScaleBench});
  cli->Add({"probe-mount", "DIR",
            "mount a store, measure open time and memory, look up metadata, unmount",
            "Opens the store in DIR (read-write, as an OSD does), prints the time Store::Open\n"
            "took, VmRSS before and after it, then after --stats lookups of random objects'\n"
            "metadata (the objects scale-bench wrote: --objects, --colls), VmHWM and the\n"
            "time of the clean unmount. One process per measurement: scale-bench runs it.",
            1,
            1,
            {{"stats", "N", "metadata lookups after mounting (default 0)"},
             {"objects", "N", "objects scale-bench wrote to the store"},
             {"colls", "N", "collections scale-bench spread them over (default 64)"},
             {"write-then-kill", "N",
              "after mounting, PUT objects --first .. --first+N-1 as scale-bench does, wait "
              "until all are durable, print {written, write_s, user_bytes, zones_used}, then "
              "kill -9 this process (scale-bench's fill: the crash it mounts after)"},
             {"first", "K", "first object of --write-then-kill (default --objects)"},
             {"depth", "N", "PUTs in flight of --write-then-kill (default 32)"},
             {"object-size", "BYTES", "object size of --write-then-kill (default 4M)"},
             {"json", "", "print one JSON line"}},
            CmdProbeMount});
}

}  // namespace smr::tool
