// Result<T>: a T or the Status saying why there is none.
//
// Contract: a Result built from a value is ok() and holds it; a Result built from a non-OK
// Status holds no value. Building a Result from an OK Status is a programming error (it
// aborts). value() on a non-OK Result aborts: check ok() first or use SMR_ASSIGN_OR_RETURN.
// Thread safety: a value type, like Status.
#pragma once

#include <cstdlib>
#include <optional>
#include <utility>

#include "common/status.h"

namespace smr {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit on purpose
    if (status_.ok()) std::abort();
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & {
    if (!ok()) std::abort();
    return *value_;
  }
  const T& value() const& {
    if (!ok()) std::abort();
    return *value_;
  }
  T&& value() && {
    if (!ok()) std::abort();
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace smr

#define SMR_CONCAT_INNER_(a, b) a##b
#define SMR_CONCAT_(a, b) SMR_CONCAT_INNER_(a, b)
// `lhs = value of rexpr`, or return its Status from the enclosing function.
#define SMR_ASSIGN_OR_RETURN(lhs, rexpr)                       \
  auto SMR_CONCAT_(smr_result_, __LINE__) = (rexpr);           \
  if (!SMR_CONCAT_(smr_result_, __LINE__).ok())                \
    return SMR_CONCAT_(smr_result_, __LINE__).status();        \
  lhs = std::move(SMR_CONCAT_(smr_result_, __LINE__)).value()
