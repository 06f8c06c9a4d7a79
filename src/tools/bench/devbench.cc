// smrstore-tool devbench: the emulated drive's sequential throughput as a ratio to plain
// file pwrite/pread of the same bytes on the same file system, in the same run.
//
// Method: each round writes `size` bytes in `io`-sized requests, then fdatasyncs (the
// write time includes the flush), then reads them back; once into a sparse plain file with
// pwrite/pread, once into a fresh emulated drive (timing model off) through ZonedDevice.
// The order alternates between rounds. Each round gives a ratio (emulated / plain) of its
// two back-to-back passes; the median ratio over rounds is the headline, so slow phases of
// a noisy machine hit both sides of a ratio alike. With --cold the
// page cache of the file is dropped (posix_fadvise DONTNEED) before reading, so reads come
// from the disk; otherwise both read from the page cache and the ratio measures the
// emulator's own overhead.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "bench_common.h"
#include "devbench.h"
#include "common/pattern.h"
#include "device/emulated_zoned_device.h"
#include "commands/device_commands.h"
#include "cli/quantile.h"

namespace smr::tool {

namespace {

struct Round {
  double write_mbps = 0;
  double read_mbps = 0;
};

double Mbps(uint64_t bytes, Clock::duration d) {
  const double s = Seconds(d);
  return s > 0 ? static_cast<double>(bytes) / 1e6 / s : 0;
}

void DropCache(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

Result<Round> RunRaw(const std::string& path, uint64_t size, const std::vector<char>& buf,
                     bool cold) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Status::FromErrno(errno, path);
  struct Closer {
    int fd;
    std::string path;
    ~Closer() {
      ::close(fd);
      ::unlink(path.c_str());
    }
  } closer{fd, path};
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) return Status::FromErrno(errno, path);
  Round r;
  std::vector<char> in(buf.size());
  auto t0 = Clock::now();
  for (uint64_t off = 0; off < size; off += buf.size()) {
    if (::pwrite(fd, buf.data(), buf.size(), static_cast<off_t>(off)) !=
        static_cast<ssize_t>(buf.size())) {
      return Status::FromErrno(errno, path + ": pwrite");
    }
  }
  if (::fdatasync(fd) != 0) return Status::FromErrno(errno, path + ": fdatasync");
  r.write_mbps = Mbps(size, Clock::now() - t0);
  if (cold) DropCache(path);
  t0 = Clock::now();
  for (uint64_t off = 0; off < size; off += in.size()) {
    if (::pread(fd, in.data(), in.size(), static_cast<off_t>(off)) !=
        static_cast<ssize_t>(in.size())) {
      return Status::FromErrno(errno, path + ": pread");
    }
  }
  r.read_mbps = Mbps(size, Clock::now() - t0);
  return r;
}

Result<Round> RunEmulated(const std::string& path, uint64_t size, const std::vector<char>& buf,
                          bool cold) {
  EmulatedGeometry g;
  g.zone_size = 256ull << 20;
  g.nr_conventional = 1;
  g.nr_zones = static_cast<uint32_t>((size + g.zone_size - 1) / g.zone_size) + 1;
  auto dev = EmulatedZonedDevice::Create(path, g);
  if (!dev.ok()) return dev.status();
  struct Remover {
    std::string path;
    ~Remover() { ::unlink(path.c_str()); }
  } remover{path};
  const uint64_t base = g.zone_size;  // first sequential zone
  Round r;
  std::vector<char> in(buf.size());
  auto t0 = Clock::now();
  for (uint64_t off = 0; off < size; off += buf.size()) {
    SMR_RETURN_IF_ERROR((*dev)->Write(base + off, buf.data(), buf.size()));
  }
  SMR_RETURN_IF_ERROR((*dev)->Flush());
  r.write_mbps = Mbps(size, Clock::now() - t0);
  if (cold) DropCache(path);
  t0 = Clock::now();
  for (uint64_t off = 0; off < size; off += in.size()) {
    SMR_RETURN_IF_ERROR((*dev)->Read(base + off, in.data(), in.size()));
  }
  r.read_mbps = Mbps(size, Clock::now() - t0);
  return r;
}

int CmdDevbench(const Args& args) {
  auto size = args.size("size", 1ull << 30);
  auto io = args.size("io", 1ull << 20);
  auto rounds = args.number("rounds", 9);
  for (const Status* s : {&size.status(), &io.status(), &rounds.status()}) {
    if (!s->ok()) return UsageFail("devbench", *s);
  }
  const std::string dir = args.get("dir", "/var/tmp");
  if (*io == 0 || *io % 4096 != 0 || (256ull << 20) % *io != 0 || *size % *io != 0 ||
      *size == 0 || *rounds == 0) {
    return UsageFail("devbench", Status::InvalidArgument(
                                "--io must be a multiple of 4096 dividing 256 MiB, --size a "
                                "non-zero multiple of --io, --rounds > 0"));
  }
  const bool cold = args.has("cold");
  std::vector<char> buf(*io);
  FillPattern(7, 0, buf.data(), buf.size());
  const std::string stem = dir + "/smrstore-devbench-" + std::to_string(::getpid());
  std::vector<double> raw_w, raw_r, emu_w, emu_r;
  // Round 0 is a warm-up (first touches of the file system and the allocator are much
  // slower on both sides) and is not counted.
  for (uint64_t i = 0; i <= *rounds; ++i) {
    for (int leg = 0; leg < 2; ++leg) {
      const bool emu_leg = (leg == 0) == (i % 2 == 1);  // alternate which goes first
      auto r = emu_leg ? RunEmulated(stem + ".emu", *size, buf, cold)
                       : RunRaw(stem + ".raw", *size, buf, cold);
      if (!r.ok()) return Fail("devbench", r.status());
      if (i == 0) continue;
      (emu_leg ? emu_w : raw_w).push_back(r->write_mbps);
      (emu_leg ? emu_r : raw_r).push_back(r->read_mbps);
    }
  }
  std::vector<double> ratio_w, ratio_r;
  for (size_t i = 0; i < raw_w.size(); ++i) {
    ratio_w.push_back(raw_w[i] > 0 ? emu_w[i] / raw_w[i] : 0);
    ratio_r.push_back(raw_r[i] > 0 ? emu_r[i] / raw_r[i] : 0);
    if (args.has("verbose")) {
      std::fprintf(stderr, "round %zu: write plain %.1f emu %.1f (%.3f)  read plain %.1f emu "
                   "%.1f (%.3f)\n", i + 1, raw_w[i], emu_w[i], ratio_w.back(), raw_r[i], emu_r[i],
                   ratio_r.back());
    }
  }
  const double rw = Median(raw_w), rr = Median(raw_r), ew = Median(emu_w), er = Median(emu_r);
  const double qw = Median(ratio_w), qr = Median(ratio_r);
  // Spread of the per-round ratios (25th..75th percentile): how noisy the machine was.
  const double w25 = Quantile(ratio_w, 0.25), w75 = Quantile(ratio_w, 0.75);
  const double r25 = Quantile(ratio_r, 0.25), r75 = Quantile(ratio_r, 0.75);
  if (args.has("json")) {
    const Json j = {{"size_bytes", *size},
                    {"io_bytes", *io},
                    {"rounds", *rounds},
                    {"cache", cold ? "cold" : "hot"},
                    {"dir", dir},
                    {"raw_write_mbps", JsonFixed(rw, 1)},
                    {"emu_write_mbps", JsonFixed(ew, 1)},
                    {"write_ratio", JsonFixed(qw, 3)},
                    {"write_ratio_iqr", {JsonFixed(w25, 3), JsonFixed(w75, 3)}},
                    {"raw_read_mbps", JsonFixed(rr, 1)},
                    {"emu_read_mbps", JsonFixed(er, 1)},
                    {"read_ratio", JsonFixed(qr, 3)},
                    {"read_ratio_iqr", {JsonFixed(r25, 3), JsonFixed(r75, 3)}}};
    std::cout << JsonText(j);
    return 0;
  }
  std::printf("devbench: %llu MiB in %llu KiB I/Os, %llu rounds (medians; ratio = median of "
              "per-round ratios), %s page cache, in %s\n"
              "  sequential write: plain file %8.1f MB/s   emulated drive %8.1f MB/s   "
              "ratio %.3f (IQR %.3f-%.3f)\n"
              "  sequential read:  plain file %8.1f MB/s   emulated drive %8.1f MB/s   "
              "ratio %.3f (IQR %.3f-%.3f)\n",
              static_cast<unsigned long long>(*size >> 20),
              static_cast<unsigned long long>(*io >> 10),
              static_cast<unsigned long long>(*rounds), cold ? "cold" : "hot", dir.c_str(), rw,
              ew, qw, w25, w75, rr, er, qr, r25, r75);
  return 0;
}

}  // namespace

void AddDevbenchCommand(Cli* cli) {
  cli->Add({"devbench", "", "emulated drive vs plain file sequential throughput (ratios)",
            "Writes (with a final flush) and reads --size bytes sequentially through an\n"
            "emulated drive and through a plain file in --dir, alternating, and prints the\n"
            "median MB/s of each and their ratio (emulated / plain). Timing model off.",
            0,
            0,
            {{"dir", "DIR", "where to put the scratch files (default /var/tmp)"},
             {"size", "BYTES", "bytes per pass (default 1G)"},
             {"io", "BYTES", "request size (default 1M)"},
             {"rounds", "N", "rounds; medians are reported (default 9)"},
             {"verbose", "", "print every round on stderr"},
             {"cold", "", "drop the page cache before reading"},
             {"json", "", "print JSON"}},
            CmdDevbench});
}

}  // namespace smr::tool
