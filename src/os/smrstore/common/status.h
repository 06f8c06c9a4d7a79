// Status: the one error type of every smrstore layer.
//
// Contract
//   Every fallible call returns a Status (or a Result<T>, see result.h). A Status is either
//   OK or carries a Code and a human-readable message. Codes are a small, documented set;
//   each has the errno a Linux kernel or Ceph would use for the same meaning (errno()), so
//   the Ceph adapter and the tools can hand it on unchanged.
//
//   Code                 errno          meaning
//   kOk                  0              success
//   kNotFound            ENOENT         the named thing does not exist
//   kCorruption          EIO            stored bytes fail a check (crc, magic, version)
//   kNotSupported        EOPNOTSUPP     valid request this backend/build cannot do
//   kInvalidArgument     EINVAL         the request is malformed (alignment, range, spec)
//   kIOError             EIO            the device or OS failed the I/O, or the request
//                                       violates a zone rule the kernel reports as EIO
//                                       (write not at the write pointer, zone offline...)
//   kNoSpace             ENOSPC         not enough room (zone capacity, store full)
//   kBusy                EBUSY          resource in use (device locked by another process)
//   kTooManyOpenZones    ETOOMANYREFS   the device's max-open-zones limit (kernel's
//                                       BLK_STS_ZONE_OPEN_RESOURCE)
//   kTooManyActiveZones  EOVERFLOW      the device's max-active-zones limit (kernel's
//                                       BLK_STS_ZONE_ACTIVE_RESOURCE)
//   kReadOnly            EROFS          write to something read-only
//   kAlreadyExists       EEXIST         create of something that exists
//   kNoData              ENODATA        the object exists but the named attribute does not
//   kNotEmpty            ENOTEMPTY      remove of a collection that still holds objects
//
// Thread safety: a Status is a value; distinct objects may be used from any thread.
// Cost: OK is one null pointer; an error allocates once.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace smr {

class [[nodiscard]] Status {
 public:
  enum class Code : int {
    kOk = 0,
    kNotFound = 1,
    kCorruption = 2,
    kNotSupported = 3,
    kInvalidArgument = 4,
    kIOError = 5,
    kNoSpace = 6,
    kBusy = 7,
    kTooManyOpenZones = 8,
    kTooManyActiveZones = 9,
    kReadOnly = 10,
    kAlreadyExists = 11,
    kNoData = 12,
    kNotEmpty = 13,
  };

  Status() noexcept = default;
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&& other) noexcept = default;
  Status& operator=(Status&& other) noexcept = default;

  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg) { return Status(Code::kNotFound, msg); }
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status NotSupported(std::string_view msg) { return Status(Code::kNotSupported, msg); }
  static Status InvalidArgument(std::string_view msg) {
    return Status(Code::kInvalidArgument, msg);
  }
  static Status IOError(std::string_view msg) { return Status(Code::kIOError, msg); }
  static Status NoSpace(std::string_view msg) { return Status(Code::kNoSpace, msg); }
  static Status Busy(std::string_view msg) { return Status(Code::kBusy, msg); }
  static Status TooManyOpenZones(std::string_view msg) {
    return Status(Code::kTooManyOpenZones, msg);
  }
  static Status TooManyActiveZones(std::string_view msg) {
    return Status(Code::kTooManyActiveZones, msg);
  }
  static Status ReadOnly(std::string_view msg) { return Status(Code::kReadOnly, msg); }
  static Status AlreadyExists(std::string_view msg) { return Status(Code::kAlreadyExists, msg); }
  static Status NoData(std::string_view msg) { return Status(Code::kNoData, msg); }
  static Status NotEmpty(std::string_view msg) { return Status(Code::kNotEmpty, msg); }
  // Maps an errno from a system call to the closest code; `what` names the operation.
  static Status FromErrno(int err, std::string_view what);

  bool ok() const { return rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  bool IsNotFound() const { return code() == Code::kNotFound; }
  bool IsCorruption() const { return code() == Code::kCorruption; }
  bool IsNotSupported() const { return code() == Code::kNotSupported; }
  bool IsInvalidArgument() const { return code() == Code::kInvalidArgument; }
  bool IsIOError() const { return code() == Code::kIOError; }
  bool IsNoSpace() const { return code() == Code::kNoSpace; }
  bool IsBusy() const { return code() == Code::kBusy; }
  bool IsTooManyOpenZones() const { return code() == Code::kTooManyOpenZones; }
  bool IsTooManyActiveZones() const { return code() == Code::kTooManyActiveZones; }
  bool IsReadOnly() const { return code() == Code::kReadOnly; }
  bool IsAlreadyExists() const { return code() == Code::kAlreadyExists; }
  bool IsNoData() const { return code() == Code::kNoData; }
  bool IsNotEmpty() const { return code() == Code::kNotEmpty; }

  // The message alone (empty for OK).
  const std::string& message() const;
  // Positive errno for this code (0 for OK); see the table above.
  int errno_value() const;
  // "OK" or "<code name>: <message>".
  std::string ToString() const;
  // Returns a copy whose message is "<prefix>: <message>" (OK stays OK).
  Status WithContext(std::string_view prefix) const;

  static const char* CodeName(Code code);

 private:
  struct Rep {
    Code code;
    std::string msg;
  };
  Status(Code code, std::string_view msg);

  std::unique_ptr<Rep> rep_;
};

}  // namespace smr

// Returns the Status of `expr` from the enclosing function when it is not OK.
#define SMR_RETURN_IF_ERROR(expr)             \
  do {                                        \
    ::smr::Status smr_status_ = (expr);       \
    if (!smr_status_.ok()) return smr_status_; \
  } while (0)
