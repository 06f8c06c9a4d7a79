// nbdkit-smrtiming-filter: gives a block device served by nbdkit the HDD cost of the
// emulated drive's timing model — the same HeadModel (device/head_model.h), the same
// parameters — so a QEMU VM's kernel zoned device (an NVMe ZNS namespace whose backing
// drive is this NBD export) costs what `--mbps X --seek-ms Y` costs the emulated drive
// (issue 19 goal 1; qa/vm/peers.sh with PEERS_DEVICE=hdd).
//
//   nbdkit --filter=PATH/nbdkit-smrtiming-filter.so file FILE mbps=250 seek_ms=8
//          [stats=STATS.json]   (one command line)
//
// Contract: every read and write is passed to the plugin, then the caller (the NBD
// request) waits until HeadModel says the I/O completes: one head, so concurrent requests
// queue on it. Zero/trim (QEMU's ZNS zone reset writes zeroes over the zone) and flush are
// passed through uncharged, as the emulated drive charges neither resets nor flushes.
// STATS.json is rewritten with the counts so far (JSON, one object) at most once a second
// while I/O flows, and at each connection's close, so a watcher can take per-phase deltas
// (qa/vm/peers.sh does, per system).
//
// Requests are served one at a time in the order they arrive (thread model
// SERIALIZE_REQUESTS): a head works in order, and parallel workers would charge requests the
// client sent in LBA order in whatever order the threads happened to run (measured: a
// sequential 4 MiB-request run at half the model's bandwidth).
//
// Thread safety: HeadModel and the counters are thread-safe, and the stats file is written
// under a mutex (nbdkit may still call open/close from other threads).
#include <nbdkit-filter.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "device/head_model.h"

namespace {

double g_mbps = 0;
double g_seek_ms = -1;
std::string g_stats_path;
std::unique_ptr<smr::HeadModel> g_head;
std::atomic<uint64_t> g_reads{0}, g_read_bytes{0}, g_writes{0}, g_write_bytes{0};
std::atomic<uint64_t> g_zeroes{0}, g_zero_bytes{0}, g_flushes{0};
std::mutex g_stats_mu;

bool ParseDouble(const char* key, const char* value, double* out) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(value, &end);
  if (errno != 0 || end == value || *end != '\0' || v < 0) {
    nbdkit_error("smrtiming: %s=%s: expected a number >= 0", key, value);
    return false;
  }
  *out = v;
  return true;
}

int Config(nbdkit_next_config* next, nbdkit_backend* nxdata, const char* key,
           const char* value) {
  const std::string k = key;
  if (k == "mbps") return ParseDouble(key, value, &g_mbps) ? 0 : -1;
  if (k == "seek_ms") return ParseDouble(key, value, &g_seek_ms) ? 0 : -1;
  if (k == "stats") {
    g_stats_path = value;
    return 0;
  }
  return next(nxdata, key, value);
}

int ConfigComplete(nbdkit_next_config_complete* next, nbdkit_backend* nxdata) {
  if (g_mbps <= 0) {
    nbdkit_error("smrtiming: mbps=X (sequential MB/s, > 0) is required");
    return -1;
  }
  if (g_seek_ms < 0) {
    nbdkit_error("smrtiming: seek_ms=Y (positioning time, ms) is required");
    return -1;
  }
  g_head = std::make_unique<smr::HeadModel>(g_mbps, g_seek_ms);
  return next(nxdata);
}

void WriteStats() {
  if (g_stats_path.empty() || !g_head) return;
  std::lock_guard<std::mutex> lock(g_stats_mu);
  const smr::HeadModel::Stats s = g_head->stats();
  const std::string tmp = g_stats_path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) {
    nbdkit_error("smrtiming: %s: cannot write stats", tmp.c_str());
    return;
  }
  std::fprintf(f,
               "{\"mbps\": %g, \"seek_ms\": %g, \"reads\": %llu, \"read_bytes\": %llu, "
               "\"writes\": %llu, \"write_bytes\": %llu, \"zeroes\": %llu, \"zero_bytes\": %llu, "
               "\"flushes\": %llu, \"charged_ios\": %llu, \"sequential\": %llu, \"skips\": %llu, "
               "\"seeks\": %llu, \"busy_seconds\": %.6f}\n",
               g_mbps, g_seek_ms, static_cast<unsigned long long>(g_reads.load()),
               static_cast<unsigned long long>(g_read_bytes.load()),
               static_cast<unsigned long long>(g_writes.load()),
               static_cast<unsigned long long>(g_write_bytes.load()),
               static_cast<unsigned long long>(g_zeroes.load()),
               static_cast<unsigned long long>(g_zero_bytes.load()),
               static_cast<unsigned long long>(g_flushes.load()),
               static_cast<unsigned long long>(s.ios), static_cast<unsigned long long>(s.sequential),
               static_cast<unsigned long long>(s.skips), static_cast<unsigned long long>(s.seeks),
               s.busy_seconds);
  const bool ok = std::fclose(f) == 0;
  if (!ok || std::rename(tmp.c_str(), g_stats_path.c_str()) != 0) {
    nbdkit_error("smrtiming: %s: cannot write stats", g_stats_path.c_str());
  }
}

void Close(void*) { WriteStats(); }

// From the data path: WriteStats() if a second has passed since the last one.
std::atomic<int64_t> g_last_stats_ns{0};
void MaybeWriteStats() {
  if (g_stats_path.empty()) return;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  int64_t last = g_last_stats_ns.load();
  if (now - last < 1000000000 || !g_last_stats_ns.compare_exchange_strong(last, now)) return;
  WriteStats();
}

int Pread(nbdkit_next* next, void*, void* buf, uint32_t count, uint64_t offset, uint32_t flags,
          int* err) {
  const int r = next->pread(next, buf, count, offset, flags, err);
  if (r == -1) return r;
  g_reads.fetch_add(1);
  g_read_bytes.fetch_add(count);
  g_head->ChargeAndWait(offset, count, /*read=*/true);
  MaybeWriteStats();
  return r;
}

int Pwrite(nbdkit_next* next, void*, const void* buf, uint32_t count, uint64_t offset,
           uint32_t flags, int* err) {
  const int r = next->pwrite(next, buf, count, offset, flags, err);
  if (r == -1) return r;
  g_writes.fetch_add(1);
  g_write_bytes.fetch_add(count);
  g_head->ChargeAndWait(offset, count, /*read=*/false);
  MaybeWriteStats();
  return r;
}

int Zero(nbdkit_next* next, void*, uint32_t count, uint64_t offset, uint32_t flags, int* err) {
  const int r = next->zero(next, count, offset, flags, err);
  if (r == -1) return r;
  g_zeroes.fetch_add(1);
  g_zero_bytes.fetch_add(count);
  return r;
}

int Flush(nbdkit_next* next, void*, uint32_t flags, int* err) {
  g_flushes.fetch_add(1);
  return next->flush(next, flags, err);
}

// The drive is a disk: say so to the NBD client.
int IsRotational(nbdkit_next*, void*) { return 1; }

int ThreadModel() { return NBDKIT_THREAD_MODEL_SERIALIZE_REQUESTS; }

nbdkit_filter MakeFilter() {
  nbdkit_filter f{};
  f.name = "smrtiming";
  f.longname = "smrstore HDD timing model filter";
  f.config = Config;
  f.config_complete = ConfigComplete;
  f.config_help =
      "mbps=<MB/s>       (required) sequential bandwidth, 10^6 bytes/s\n"
      "seek_ms=<ms>      (required) positioning time of a non-sequential I/O\n"
      "stats=<FILE>      write counters as JSON at each connection's close";
  f.thread_model = ThreadModel;
  f.close = Close;
  f.pread = Pread;
  f.pwrite = Pwrite;
  f.zero = Zero;
  f.flush = Flush;
  f.is_rotational = IsRotational;
  return f;
}

nbdkit_filter filter = MakeFilter();

}  // namespace

NBDKIT_REGISTER_FILTER(filter)
