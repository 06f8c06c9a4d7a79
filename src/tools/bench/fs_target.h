// A directory on a file system as the object target of smrstore-tool bench (--fs-dir), so
// the peer file systems (F2FS, btrfs, ext4/XFS on dm-zoned) run the same generator as the
// store. One file per object; every operation is durable when it returns, as the store's
// commits are, using what object gateways on file systems do (Swift's object server, MinIO):
//   PUT (a new name, or an overwrite of an existing one): write DIR/tmp/NAME.TAG, fsync it,
//       rename it over DIR/o/XX/NAME, fsync DIR/o/XX. An overwrite is the same atomic
//       replace (readers see the old or the new object, never a mix); the old file's blocks
//       are freed by the rename.
//   DELETE: unlink DIR/o/XX/NAME, fsync DIR/o/XX.
//   GET: read the whole file. After a PUT's fsync its pages are dropped from the page cache
//       (POSIX_FADV_DONTNEED), so GETs read the device as the store's reads do.
// XX spreads names over 64 directories. Also: the bytes a block device has written
// (/sys/block/DEV/stat), for device-level write amplification.
//
// Thread safety: Put/Remove/Read may run concurrently from any threads (distinct TAGs per
// concurrent PUT); Open/Statfs/Sync too.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/status.h"

namespace smr::tool {

class FsObjectDir {
 public:
  // `dir` must exist; o/ and tmp/ are created in it and must not hold objects yet.
  static Result<std::unique_ptr<FsObjectDir>> Open(const std::string& dir);

  Status Put(const std::string& name, const std::string& data, uint64_t tag);
  Status Remove(const std::string& name);
  Result<std::string> Read(const std::string& name);

  struct Space {
    uint64_t total = 0;      // f_blocks x f_frsize
    uint64_t available = 0;  // f_bavail x f_frsize
  };
  Result<Space> Statfs() const;
  // syncfs(2) on the directory's file system.
  Status Sync() const;

 private:
  explicit FsObjectDir(std::string dir) : dir_(std::move(dir)) {}
  std::string ObjDir(const std::string& name) const;
  std::string dir_;
};

// Bytes written by block device `dev` (e.g. "nullb0") since boot: field 7 (sectors written,
// in 512-byte units) of /sys/block/DEV/stat.
Result<uint64_t> BlockDevBytesWritten(const std::string& dev);

// Sum over `devs` of BlockDevBytesWritten.
Result<uint64_t> BlockDevsBytesWritten(const std::vector<std::string>& devs);

}  // namespace smr::tool
