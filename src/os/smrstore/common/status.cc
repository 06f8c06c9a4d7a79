#include "common/status.h"

#include <cerrno>
#include <cstring>

namespace smr {

namespace {
const std::string& EmptyString() {
  static const std::string kEmpty;
  return kEmpty;
}
}  // namespace

Status::Status(Code code, std::string_view msg)
    : rep_(new Rep{code, std::string(msg)}) {}

Status::Status(const Status& other)
    : rep_(other.rep_ ? new Rep(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_.reset(other.rep_ ? new Rep(*other.rep_) : nullptr);
  return *this;
}

Status Status::FromErrno(int err, std::string_view what) {
  std::string msg(what);
  msg += ": ";
  msg += std::strerror(err);
  switch (err) {
    case 0:
      return OK();
    case ENOENT:
    case ENODEV:
    case ENXIO:
      return Status(Code::kNotFound, msg);
    case EINVAL:
      return Status(Code::kInvalidArgument, msg);
    case ENOSPC:
      return Status(Code::kNoSpace, msg);
    case EBUSY:
    case EAGAIN:
      return Status(Code::kBusy, msg);
    case ETOOMANYREFS:
      return Status(Code::kTooManyOpenZones, msg);
    case EOVERFLOW:
      return Status(Code::kTooManyActiveZones, msg);
    case EROFS:
    case EACCES:
    case EPERM:
      return Status(Code::kReadOnly, msg);
    case EEXIST:
      return Status(Code::kAlreadyExists, msg);
    case ENODATA:
      return Status(Code::kNoData, msg);
    case ENOTEMPTY:
      return Status(Code::kNotEmpty, msg);
    case EOPNOTSUPP:
      return Status(Code::kNotSupported, msg);
    default:
      return Status(Code::kIOError, msg);
  }
}

const std::string& Status::message() const { return rep_ ? rep_->msg : EmptyString(); }

int Status::errno_value() const {
  switch (code()) {
    case Code::kOk:
      return 0;
    case Code::kNotFound:
      return ENOENT;
    case Code::kCorruption:
      return EIO;
    case Code::kNotSupported:
      return EOPNOTSUPP;
    case Code::kInvalidArgument:
      return EINVAL;
    case Code::kIOError:
      return EIO;
    case Code::kNoSpace:
      return ENOSPC;
    case Code::kBusy:
      return EBUSY;
    case Code::kTooManyOpenZones:
      return ETOOMANYREFS;
    case Code::kTooManyActiveZones:
      return EOVERFLOW;
    case Code::kReadOnly:
      return EROFS;
    case Code::kAlreadyExists:
      return EEXIST;
    case Code::kNoData:
      return ENODATA;
    case Code::kNotEmpty:
      return ENOTEMPTY;
  }
  return EIO;
}

const char* Status::CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kNotFound:
      return "NotFound";
    case Code::kCorruption:
      return "Corruption";
    case Code::kNotSupported:
      return "NotSupported";
    case Code::kInvalidArgument:
      return "InvalidArgument";
    case Code::kIOError:
      return "IOError";
    case Code::kNoSpace:
      return "NoSpace";
    case Code::kBusy:
      return "Busy";
    case Code::kTooManyOpenZones:
      return "TooManyOpenZones";
    case Code::kTooManyActiveZones:
      return "TooManyActiveZones";
    case Code::kReadOnly:
      return "ReadOnly";
    case Code::kAlreadyExists:
      return "AlreadyExists";
    case Code::kNoData:
      return "NoData";
    case Code::kNotEmpty:
      return "NotEmpty";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s = CodeName(rep_->code);
  s += ": ";
  s += rep_->msg;
  return s;
}

Status Status::WithContext(std::string_view prefix) const {
  if (ok()) return OK();
  std::string msg(prefix);
  msg += ": ";
  msg += rep_->msg;
  return Status(rep_->code, msg);
}

}  // namespace smr
