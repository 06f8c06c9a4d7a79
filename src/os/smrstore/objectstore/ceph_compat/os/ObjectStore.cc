// ceph_compat: the two ObjectStore base members Debian does not ship (libos). A key is a
// file named after it in the store path holding the value and a newline, written to a
// temporary file, fsynced and renamed into place.
#include "os/ObjectStore.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

int ObjectStore::write_meta(const std::string& key, const std::string& value) {
  const std::string v = value + "\n";
  const std::string tmp = path + "/" + key + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return -errno;
  size_t done = 0;
  while (done < v.size()) {
    const ssize_t n = ::write(fd, v.data() + done, v.size() - done);
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      return -e;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) < 0) {
    const int e = errno;
    ::close(fd);
    return -e;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), (path + "/" + key).c_str()) < 0) return -errno;
  return 0;
}

int ObjectStore::read_meta(const std::string& key, std::string* value) {
  const int fd = ::open((path + "/" + key).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  std::string s;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      return -e;
    }
    if (n == 0) break;
    s.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  *value = s;
  return static_cast<int>(s.size());
}
