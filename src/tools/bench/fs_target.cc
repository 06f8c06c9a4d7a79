// Object-per-file target for smrstore-tool bench --fs-dir (see fs_target.h).
#include "fs_target.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <functional>
#include <sstream>

namespace smr::tool {

namespace {

constexpr unsigned kDirs = 64;

Status Errno(const std::string& what) { return Status::FromErrno(errno, what); }

// Closes the descriptor on every path.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Status WriteAll(int fd, const char* p, size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Errno("write " + path);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::OK();
}

Status FsyncDir(const std::string& dir) {
  Fd d;
  d.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d.fd < 0) return Errno("open " + dir);
  if (::fsync(d.fd) != 0) return Errno("fsync " + dir);
  return Status::OK();
}

Status MakeDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) return Errno("mkdir " + path);
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<FsObjectDir>> FsObjectDir::Open(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument("'" + dir + "' is not a directory");
  }
  std::unique_ptr<FsObjectDir> d(new FsObjectDir(dir));
  SMR_RETURN_IF_ERROR(MakeDir(dir + "/o"));
  SMR_RETURN_IF_ERROR(MakeDir(dir + "/tmp"));
  for (unsigned i = 0; i < kDirs; ++i) {
    char sub[8];
    std::snprintf(sub, sizeof(sub), "%02x", i);
    SMR_RETURN_IF_ERROR(MakeDir(dir + "/o/" + sub));
  }
  SMR_RETURN_IF_ERROR(FsyncDir(dir + "/o"));
  SMR_RETURN_IF_ERROR(FsyncDir(dir));
  return d;
}

std::string FsObjectDir::ObjDir(const std::string& name) const {
  const unsigned h = static_cast<unsigned>(std::hash<std::string>{}(name) % kDirs);
  char sub[8];
  std::snprintf(sub, sizeof(sub), "%02x", h);
  return dir_ + "/o/" + sub;
}

Status FsObjectDir::Put(const std::string& name, const std::string& data, uint64_t tag) {
  const std::string tmp = dir_ + "/tmp/" + name + "." + std::to_string(tag);
  const std::string odir = ObjDir(name);
  {
    Fd f;
    f.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f.fd < 0) return Errno("create " + tmp);
    SMR_RETURN_IF_ERROR(WriteAll(f.fd, data.data(), data.size(), tmp));
    if (::fsync(f.fd) != 0) return Errno("fsync " + tmp);
    (void)::posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
  }
  const std::string path = odir + "/" + name;
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Errno("rename " + tmp + " " + path);
  return FsyncDir(odir);
}

Status FsObjectDir::Remove(const std::string& name) {
  const std::string odir = ObjDir(name);
  const std::string path = odir + "/" + name;
  if (::unlink(path.c_str()) != 0) return Errno("unlink " + path);
  return FsyncDir(odir);
}

Result<std::string> FsObjectDir::Read(const std::string& name) {
  const std::string path = ObjDir(name) + "/" + name;
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) return Errno("open " + path);
  struct stat st;
  if (::fstat(f.fd, &st) != 0) return Errno("stat " + path);
  std::string out(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < out.size()) {
    const ssize_t r = ::read(f.fd, out.data() + got, out.size() - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      return Errno("read " + path);
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  out.resize(got);
  return out;
}

Result<FsObjectDir::Space> FsObjectDir::Statfs() const {
  struct statvfs v;
  if (::statvfs(dir_.c_str(), &v) != 0) return Errno("statvfs " + dir_);
  Space s;
  s.total = static_cast<uint64_t>(v.f_blocks) * v.f_frsize;
  s.available = static_cast<uint64_t>(v.f_bavail) * v.f_frsize;
  return s;
}

Status FsObjectDir::Sync() const {
  Fd d;
  d.fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d.fd < 0) return Errno("open " + dir_);
  if (::syncfs(d.fd) != 0) return Errno("syncfs " + dir_);
  return Status::OK();
}

Result<uint64_t> BlockDevBytesWritten(const std::string& dev) {
  const std::string path = "/sys/block/" + dev + "/stat";
  std::ifstream f(path);
  if (!f) return Status::NotFound("cannot read " + path);
  uint64_t v[7] = {};
  for (uint64_t& x : v) {
    if (!(f >> x)) return Status::Corruption("cannot parse " + path);
  }
  return v[6] * 512;  // read ios, read merges, read sectors, read ticks, write ios,
                      // write merges, write sectors
}

Result<uint64_t> BlockDevsBytesWritten(const std::vector<std::string>& devs) {
  uint64_t sum = 0;
  for (const auto& d : devs) {
    SMR_ASSIGN_OR_RETURN(uint64_t b, BlockDevBytesWritten(d));
    sum += b;
  }
  return sum;
}

}  // namespace smr::tool
