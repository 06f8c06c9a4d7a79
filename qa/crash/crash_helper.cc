// smrstore-crash: the in-process half of the crash sweep (qa/crash/sweep.py).
//
//   smrstore-crash dump STORE [--data DIR]
//     Mounts STORE read-only once and prints every object of every collection as one line
//       obj COLL NAMEHEX GEN size=N crc=C hdr=HEX xattrs=NAMEHEX:VALHEX,... omap=KEYHEX:VALHEX,...
//     (crc: zlib's CRC-32 of the data, as Python's zlib.crc32; values hex-encoded whole),
//     then, for hybrid drives, one line per realm as the store accounts for it
//       realm DRIVE REALM cmr|smr in_use=ZONES live=BYTES [converting]
//     then "end OBJECTS". With --data, each object's bytes also go to DIR/COLL.NAMEHEX.GEN
//     for a byte-exact comparison. One mount instead of a tool call per object and attribute.
//
//   smrstore-crash powercut STORE --cut-at N [--mode lose|torn] [--seed S] [--depth K]
//                           [--cut-when activate|activated] [--trace 1]
//     Mounts STORE with every drive wrapped in a FaultInjectionDevice, then runs the ops
//     read from stdin (one a line, below), up to K transactions in flight (Submit). All
//     device I/O goes through one lock; the N-th mutating device call (write, flush or zone
//     operation) does not happen: instead, with that lock held (no other I/O in flight), every
//     drive is power-cut (FaultInjectionDevice::PowerCut: writes since the last flush are
//     lost, or with --mode torn a random block-aligned prefix of them survives; open zones
//     closed) and the process ends at once with _exit(0), unmounting nothing. RocksDB keeps
//     what it had written (a process death for it; see qa/crash/README.md).
//     Prints, unbuffered: "S i" before op i is submitted, "A i" once its commit callback
//     reported success, "F i MESSAGE" on failure, "CUT N" at the cut, "DONE CALLS" (mutating
//     device calls made) when the ops ran out before the cut (the store is then closed).
//     --trace 1 lists every mutating call on stderr (to aim a cut at one).
//     Hybrid drives: the drives are opened from their specs (OpenDevice), so realm keys pass
//     through; ReportRealms and ActivateRealms are forwarded. A realm conversion counts as two
//     mutating calls: "activate" before the drive converts (a cut there: it never starts) and
//     "activated" once it has (a cut there: the drive converted, the store has not recorded
//     it). The drive's conversion itself (convert_ms) runs outside the I/O lock, as on a
//     drive: other I/O goes on meanwhile, and a cut at one of those calls lands inside it.
//     A cut while a realm converts can find unflushed writes in that realm's zones, which
//     FaultInjectionDevice::PowerCut cannot undo (the zones refuse I/O while the realm
//     converts): it stops there and "CUTFAIL N MESSAGE" is printed instead of "CUT N" (exit
//     3). The drives are then as after a cut that lost only the unflushed writes the wrapper
//     had undone before it stopped (newest first; the rest, and all of the drives after it,
//     survived): a state a power cut can leave too; qa/crash/sweep.py verifies it as a cut.
//     --cut-when activated cuts at the first "activated" call instead (with --cut-at 0, only
//     there; else at whichever comes first): the drive has converted the realm, the store
//     has not recorded it. --cut-when activate: at the first "activate" call.
//   Ops (names and values hex-encoded, data from a file):
//     put COLL NAMEHEX FILE        truncate to 0 + write FILE's bytes (xattrs/omap kept)
//     write COLL NAMEHEX OFF FILE  write FILE's bytes at OFF (a partial overwrite)
//     rm COLL NAMEHEX
//     setattr COLL NAMEHEX ATTRHEX VALHEX
//     omap COLL NAMEHEX KEYHEX VALHEX
//     omapn COLL NAMEHEX FILE      one transaction setting every key of FILE (lines
//                                  "KEYHEX VALHEX", '-' empty): hundreds to thousands of keys
//     writes COLL NAMEHEX FILE     one transaction of many writes (FILE: lines "OFF DATAHEX",
//                                  applied in order): more small writes than a pack holds
//     gc N                         waits for the ops in flight, then Store::RunGc(N)
//     convert DRIVE REALM cmr|smr  Store::ConvertRealm on a thread of its own (the ops after
//                                  it go on meanwhile; at most one at a time: a second one
//                                  waits for the first); "A i" once it returned OK, "F i
//                                  CODE MESSAGE" if it failed (e.g. Busy, NoSpace: refusals)
//     await-activation             waits until a drive has begun converting a realm since
//                                  the last convert op (its ActivateRealms was called) or
//                                  that op has returned: the ops after it then run, and
//                                  their device calls happen, while the drive converts
//   Objects are named as smrstore-tool names them (hash = crc32c of the name, head, no gen).
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/crc32c.h"
#include "device/device_spec.h"
#include "device/fault_injection_device.h"
#include "store/store.h"
#include "store/transaction.h"

namespace {

using namespace smr;

uint32_t ZlibCrc32(const std::string& s) {
  static uint32_t table[256];
  static bool init = false;
  if (!init) {
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    init = true;
  }
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : s) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::string Hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() * 2);
  for (unsigned char c : s) {
    out.push_back(d[c >> 4]);
    out.push_back(d[c & 15]);
  }
  return out.empty() ? "-" : out;
}

std::string Unhex(const std::string& h) {
  if (h == "-") return "";
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

[[noreturn]] void Die(const std::string& msg) {
  std::fprintf(stderr, "smrstore-crash: %s\n", msg.c_str());
  std::exit(1);
}

void Say(const std::string& line) {  // one unbuffered write per line
  std::string l = line + "\n";
  ssize_t n = ::write(1, l.data(), l.size());
  (void)n;
}

ObjectId ToolOid(const std::string& name) {
  ObjectId o;
  o.name = name;
  o.hash = crc32c::Value(name.data(), name.size());
  return o;
}

int Dump(const std::string& dir, const std::string& data_dir) {
  auto st = Store::Open(dir, nullptr, /*read_only=*/true);
  if (!st.ok()) Die("mount: " + st.status().ToString());
  Store& s = *st.value();
  auto colls = s.ListCollections();
  if (!colls.ok()) Die("list collections: " + colls.status().ToString());
  size_t n = 0;
  for (const auto& c : colls.value()) {
    ObjectId start = ObjectId::Min(), next;
    for (;;) {
      std::vector<ObjectId> objs;
      Status ls = s.ListObjects(c, start, ObjectId::Max(), 256, &objs, &next);
      if (!ls.ok()) Die("list " + c + ": " + ls.ToString());
      for (const auto& o : objs) {
        auto data = s.Read(c, o, 0, 0);
        auto attrs = s.GetAttrs(c, o);
        auto hdr = s.GetOmapHeader(c, o);
        auto omap = s.ListOmap(c, o, nullptr, 0);
        std::ostringstream line;
        line << "obj " << c << " " << Hex(o.name) << " " << std::hex << o.generation
             << std::dec;
        if (!data.ok()) {
          line << " error=read:" << Hex(data.status().ToString());
        } else {
          line << " size=" << data.value().size() << " crc=" << ZlibCrc32(data.value());
          if (!data_dir.empty()) {
            std::ostringstream path;
            path << data_dir << "/" << c << "." << Hex(o.name) << "." << std::hex
                 << o.generation;
            std::ofstream f(path.str(), std::ios::binary | std::ios::trunc);
            f.write(data.value().data(), static_cast<std::streamsize>(data.value().size()));
            if (!f) Die("cannot write " + path.str());
          }
        }
        line << " hdr=" << (hdr.ok() ? Hex(hdr.value()) : "ERR");
        line << " xattrs=";
        if (!attrs.ok()) {
          line << "ERR";
        } else {
          bool first = true;
          for (const auto& [k, v] : attrs.value()) {
            line << (first ? "" : ",") << Hex(k) << ":" << Hex(v);
            first = false;
          }
          if (first) line << "-";
        }
        line << " omap=";
        if (!omap.ok()) {
          line << "ERR";
        } else {
          bool first = true;
          for (const auto& [k, v] : omap.value()) {
            line << (first ? "" : ",") << Hex(k) << ":" << Hex(v);
            first = false;
          }
          if (first) line << "-";
        }
        std::cout << line.str() << "\n";
        n++;
      }
      if (next.max || objs.empty()) break;
      start = next;
    }
  }
  for (const RealmUsage& r : s.Realms()) {
    std::cout << "realm " << r.drive << " " << r.realm << " " << ZoneDomainName(r.domain)
              << " in_use=" << r.zones_in_use << " live=" << r.live_bytes
              << (r.converting ? " converting" : "") << "\n";
  }
  std::cout << "end " << n << std::endl;
  return 0;
}

// --- powercut ---

std::mutex g_io;  // every device call of every drive: nothing is in flight at the cut
uint64_t g_calls = 0;
uint64_t g_cut_at = 0;
FaultInjectionDevice::PowerCutMode g_mode = FaultInjectionDevice::PowerCutMode::kLoseUnflushed;
uint64_t g_seed = 0;
std::vector<FaultInjectionDevice*> g_drives;

bool g_trace = false;
std::string g_cut_when;  // "activate" / "activated": cut at the first call of that kind

// Realm conversions begun (ActivateRealms calls), for await-activation.
std::mutex g_conv_mu;
std::condition_variable g_conv_cv;
uint64_t g_activations = 0;  // guarded by g_conv_mu
bool g_convert_returned = false;  // the last convert op returned; guarded by g_conv_mu

// Counts the mutating calls; the cut_at-th one power-cuts every drive instead and exits.
// With --trace each call is listed on stderr ("call N OP DRIVE-PATH ZONE-OR-OFFSET").
void Tick(const char* op = "", const ZonedDevice* dev = nullptr, uint64_t where = 0) {
  // REQUIRES: g_io held
  ++g_calls;
  if (g_trace) {
    std::fprintf(stderr, "call %llu %s %s %llu\n", static_cast<unsigned long long>(g_calls), op,
                 dev ? dev->info().path.c_str() : "", static_cast<unsigned long long>(where));
  }
  if (g_calls != g_cut_at && (g_cut_when.empty() || g_cut_when != op)) return;
  uint64_t i = 0;
  for (auto* d : g_drives) {
    Status s = d->PowerCut(g_mode, g_seed * 1000003 + i++);
    if (!s.ok()) {
      Say("CUTFAIL " + std::to_string(g_calls) + " " + s.ToString());
      ::_exit(3);
    }
  }
  Say("CUT " + std::to_string(g_calls));
  ::_exit(0);
}

class CutDevice final : public ZonedDevice {
 public:
  explicit CutDevice(std::unique_ptr<FaultInjectionDevice> base) : base_(std::move(base)) {}
  const DeviceInfo& info() const override { return base_->info(); }
  Result<std::vector<ZoneInfo>> ReportZones(uint32_t first, uint32_t count) override {
    std::lock_guard<std::mutex> l(g_io);
    return base_->ReportZones(first, count);
  }
  Status OpenZones(uint32_t first, uint32_t count) override {
    std::lock_guard<std::mutex> l(g_io);
    Tick("open", this, first);
    return base_->OpenZones(first, count);
  }
  Status CloseZones(uint32_t first, uint32_t count) override {
    std::lock_guard<std::mutex> l(g_io);
    Tick("close", this, first);
    return base_->CloseZones(first, count);
  }
  Status FinishZones(uint32_t first, uint32_t count) override {
    std::lock_guard<std::mutex> l(g_io);
    Tick("finish", this, first);
    return base_->FinishZones(first, count);
  }
  Status ResetZones(uint32_t first, uint32_t count) override {
    std::lock_guard<std::mutex> l(g_io);
    Tick("reset", this, first);
    return base_->ResetZones(first, count);
  }
  Status Read(uint64_t offset, void* buf, size_t len) override {
    std::lock_guard<std::mutex> l(g_io);
    return base_->Read(offset, buf, len);
  }
  Status Write(uint64_t offset, const void* buf, size_t len) override {
    std::lock_guard<std::mutex> l(g_io);
    Tick("write", this, offset);
    return base_->Write(offset, buf, len);
  }
  Status Flush() override {
    std::lock_guard<std::mutex> l(g_io);
    Tick("flush", this, 0);
    return base_->Flush();
  }
  HostCacheUse HostCache() const override { return base_->HostCache(); }
  Result<std::vector<RealmInfo>> ReportRealms(uint32_t first, uint32_t count) override {
    std::lock_guard<std::mutex> l(g_io);
    return base_->ReportRealms(first, count);
  }
  Status ActivateRealms(uint32_t first, uint32_t count, ZoneDomain domain) override {
    {
      std::lock_guard<std::mutex> l(g_io);
      Tick("activate", this, first);
    }
    {
      std::lock_guard<std::mutex> l(g_conv_mu);
      g_activations++;
    }
    g_conv_cv.notify_all();
    // Not under g_io: the conversion takes the drive's convert_ms; I/O to other realms goes
    // on meanwhile (a cut at one of its calls lands inside the conversion: the emulator's
    // conversion is atomic per realm, durable only once its realm slot is written).
    Status s = base_->ActivateRealms(first, count, domain);
    std::lock_guard<std::mutex> l(g_io);
    Tick("activated", this, first);
    return s;
  }

 private:
  std::unique_ptr<FaultInjectionDevice> base_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) Die("cannot read " + path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int PowerCut(const std::string& dir, uint64_t depth) {
  Store::DeviceOpener opener = [](const std::string& spec)
      -> Result<std::unique_ptr<ZonedDevice>> {
    auto dev = OpenDevice(spec);
    if (!dev.ok()) return dev.status();
    auto fault = std::make_unique<FaultInjectionDevice>(std::move(dev.value()));
    {
      std::lock_guard<std::mutex> l(g_io);
      g_drives.push_back(fault.get());
    }
    return std::unique_ptr<ZonedDevice>(new CutDevice(std::move(fault)));
  };
  auto st = Store::Open(dir, opener);
  if (!st.ok()) Die("mount: " + st.status().ToString());
  Store& s = *st.value();

  std::mutex mu;
  std::condition_variable cv;
  uint64_t in_flight = 0;
  auto wait_below = [&](uint64_t n) {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return in_flight < n; });
  };

  std::thread converter;  // the convert op in progress (one at a time)
  uint64_t activations_at_convert = 0;
  std::string line;
  uint64_t i = 0;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::istringstream in(line);
    std::string op;
    in >> op;
    const uint64_t id = i++;
    if (op == "convert") {
      unsigned drive = 0, realm = 0;
      std::string to;
      in >> drive >> realm >> to;
      if (to != "cmr" && to != "smr") Die("convert: domain must be cmr or smr: " + line);
      if (converter.joinable()) converter.join();
      {
        std::lock_guard<std::mutex> l(g_conv_mu);
        activations_at_convert = g_activations;
        g_convert_returned = false;
      }
      Say("S " + std::to_string(id));
      converter = std::thread([&s, id, drive, realm, to] {
        Status r = s.ConvertRealm(static_cast<uint16_t>(drive), realm,
                                  to == "smr" ? ZoneDomain::kSmr : ZoneDomain::kCmr);
        Say(r.ok() ? "A " + std::to_string(id) : "F " + std::to_string(id) + " " + r.ToString());
        {
          std::lock_guard<std::mutex> l(g_conv_mu);
          g_convert_returned = true;
        }
        g_conv_cv.notify_all();
      });
      continue;
    }
    if (op == "await-activation") {
      std::unique_lock<std::mutex> l(g_conv_mu);
      g_conv_cv.wait(l, [&] {
        return g_activations > activations_at_convert || g_convert_returned ||
               !converter.joinable();
      });
      continue;
    }
    if (op == "gc") {
      uint32_t n = 1;
      in >> n;
      wait_below(1);
      Say("S " + std::to_string(id));
      auto r = s.RunGc(n);
      if (r.ok()) {
        Say("A " + std::to_string(id));
      } else {
        Say("F " + std::to_string(id) + " " + r.status().ToString());
      }
      continue;
    }
    std::string coll, name;
    in >> coll >> name;
    const ObjectId oid = ToolOid(Unhex(name));
    Transaction t;
    if (op == "put") {
      std::string file;
      in >> file;
      t.Truncate(coll, oid, 0);
      t.Write(coll, oid, 0, ReadFile(file));
    } else if (op == "write") {
      uint64_t off = 0;
      std::string file;
      in >> off >> file;
      t.Write(coll, oid, off, ReadFile(file));
    } else if (op == "rm") {
      t.Remove(coll, oid);
    } else if (op == "setattr") {
      std::string k, v;
      in >> k >> v;
      t.SetAttr(coll, oid, Unhex(k), Unhex(v));
    } else if (op == "omap") {
      std::string k, v;
      in >> k >> v;
      t.OmapSetKeys(coll, oid, {{Unhex(k), Unhex(v)}});
    } else if (op == "omapn" || op == "writes") {
      std::string file;
      in >> file;
      std::istringstream lines(ReadFile(file));
      std::string a, b;
      std::map<std::string, std::string> kv;
      while (lines >> a >> b) {
        if (op == "omapn") {
          kv[Unhex(a)] = Unhex(b);
        } else {
          t.Write(coll, oid, std::stoull(a), Unhex(b));
        }
      }
      if (op == "omapn") t.OmapSetKeys(coll, oid, std::move(kv));
    } else {
      Die("unknown op: " + line);
    }
    wait_below(depth);
    {
      std::lock_guard<std::mutex> l(mu);
      in_flight++;
    }
    Say("S " + std::to_string(id));
    s.Submit(std::move(t), [&, id](const Status& r) {
      if (r.ok()) {
        Say("A " + std::to_string(id));
      } else {
        Say("F " + std::to_string(id) + " " + r.ToString());
      }
      std::lock_guard<std::mutex> l(mu);
      in_flight--;
      cv.notify_all();
    });
  }
  wait_below(1);
  if (converter.joinable()) converter.join();
  Status c = s.Close();
  uint64_t calls;
  {
    std::lock_guard<std::mutex> l(g_io);
    calls = g_calls;
  }
  Say("DONE " + std::to_string(calls));
  if (!c.ok()) Die("close: " + c.ToString());
  return 0;
}

int Usage() {
  std::fprintf(stderr,
               "usage: smrstore-crash dump STORE [--data DIR]\n"
               "       smrstore-crash powercut STORE --cut-at N [--mode lose|torn] [--seed S] "
               "[--depth K] [--cut-when activate|activated] [--trace 1]  < OPS\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return Usage();
  const std::string cmd = argv[1], dir = argv[2];
  if (cmd == "dump") {
    if (argc == 3) return Dump(dir, "");
    if (argc == 5 && std::string(argv[3]) == "--data") return Dump(dir, argv[4]);
    return Usage();
  }
  if (cmd != "powercut") return Usage();
  uint64_t depth = 4;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--cut-at") {
      g_cut_at = std::stoull(v);
    } else if (k == "--mode") {
      if (v == "lose") {
        g_mode = FaultInjectionDevice::PowerCutMode::kLoseUnflushed;
      } else if (v == "torn") {
        g_mode = FaultInjectionDevice::PowerCutMode::kTornUnflushed;
      } else {
        return Usage();
      }
    } else if (k == "--seed") {
      g_seed = std::stoull(v);
    } else if (k == "--cut-when") {
      if (v != "activate" && v != "activated") return Usage();
      g_cut_when = v;
    } else if (k == "--trace") {
      g_trace = v == "1";
    } else if (k == "--depth") {
      depth = std::max<uint64_t>(1, std::stoull(v));
    } else {
      return Usage();
    }
  }
  return PowerCut(dir, depth);
}
