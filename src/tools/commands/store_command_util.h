// Helpers shared by smrstore-tool's store commands (store_admin_commands.cc,
// object_commands.cc): mounting and unmounting, object naming options, the sizes a put
// needs, number formatting, terminal progress.
//
// Contract: every function reports failure as a Status/Result or as the command's exit code
// (cli.h Fail/UsageFail: 1 the operation failed, 2 usage), never as a silent false; the
// progress displays draw only when stderr is a terminal. JSON output is built as
// nlohmann::json values (common/json.h) and printed with JsonText.
// Thread safety: functions are pure or touch only their arguments; a Progress or Ticker
// belongs to the thread that made it (Ticker draws from a thread of its own).
#pragma once

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli.h"
#include "common/json.h"
#include "store/store.h"
#include "store/transaction.h"

namespace smr::tool::storecmd {

constexpr size_t kChunk = 4u << 20;        // get: bytes per Read
constexpr uint64_t kPutChunk = 16u << 20;  // put: bytes per transaction (rounded to records)
constexpr uint64_t kBlock = 4096;          // record header / payload padding unit
// A put writes under the target's id with this generation, then renames (see CmdPut).
constexpr uint64_t kPutTempGeneration = 0x736d727075740000ull;  // "smrput\0\0"
constexpr size_t kListPage = 1024;         // ls / listomapkeys page size

// Names as printed (control bytes escaped, cli.h PrintableName).
std::string P(const std::string& name);
// Names over Ceph's limits are invalid arguments (exit 2, *rc), found before mounting.
bool CheckNames(const std::string& cmd, const Transaction& t, int* rc);
// Validates (Ceph's name limits), then applies.
Status ApplyChecked(Store* store, Transaction t);
// Zone bytes a put of `size` bytes needs: data records of at most `max_record` payload
// bytes, each a 4 KiB header plus its payload padded to 4 KiB; objects up to `inline_max`
// stay in RocksDB (no zone bytes).
uint64_t PutZoneBytes(uint64_t size, uint64_t max_record, uint64_t inline_max);
// The largest put whose PutZoneBytes fits in `zone_bytes` (df's "available").
uint64_t LargestPut(uint64_t zone_bytes, uint64_t max_record, uint64_t inline_max);
bool IsDir(const std::string& p);
bool PathExists(const std::string& p);
// "12.3 MiB".
std::string Human(uint64_t bytes);
// Percentage with one decimal, 0 when the whole is 0.
double Pct(uint64_t part, uint64_t whole);
// `v` with `decimals` decimals, as text.
std::string Fixed(double v, int decimals);
// Mounts STORE (a clear NotFound / InvalidArgument when it is no store directory).
Result<std::unique_ptr<Store>> Mount(const std::string& dir, Store::DeviceOpener opener = nullptr,
                                     bool read_only = false);
// Commands that only look mount read-only: nothing on the drives or in RocksDB changes.
Result<std::unique_ptr<Store>> MountReadOnly(const std::string& dir);
// Unmounts, reporting a failed clean unmount as the command's failure (its exit code).
int Unmount(const std::string& command, std::unique_ptr<Store> store);

// The object options (--pool, --nspace, --locator, --hash, --snap) and `a` + `b`.
const std::vector<OptionSpec>& ObjectOptions();
std::vector<OptionSpec> With(std::vector<OptionSpec> a, const std::vector<OptionSpec>& b);
// The ObjectId of `name` from the object options; malformed option values are usage errors
// (*usage = true), limits are ObjectId::Validate's errors.
Result<ObjectId> ObjectFromArgs(const Args& args, const std::string& name, bool* usage);
// The object argument at positional index `i`; on failure prints the error, sets *rc.
bool ParseObject(const std::string& cmd, const Args& args, size_t i, ObjectId* oid, int* rc);
std::string SnapText(uint64_t snap);
std::string HashHex(uint32_t h);
// An object's identity as JSON: name, pool, namespace, locator, hash, snap, id.
Json ObjectJson(const ObjectId& o);
// All of standard input, or the value argument at `i` when given.
Result<std::string> ValueArg(const Args& args, size_t i);
// write(2) until done; false with errno set on failure.
bool WriteAll(int fd, const char* p, size_t n);
// The store's uuid, from the engine's own stats structure.
std::string StoreUuid(Store* store);
// Compact JSON text (bytes that are not UTF-8 replaced, so the output is valid JSON).
std::string JsonText(const Json& j);

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

}  // namespace smr::tool::storecmd
