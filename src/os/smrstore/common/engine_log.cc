#include "common/engine_log.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "common/thread_annotations.h"

namespace smr {
namespace {

// The host's sink; Log calls it with mu held, so a sink is never called after
// SetLogSink replaced it.
struct SinkState {
  Mutex mu;
  LogSink sink SMR_GUARDED_BY(mu);
};

SinkState& State() {
  static SinkState state;
  return state;
}

}  // namespace

LogSink SetLogSink(LogSink sink) {
  SinkState& st = State();
  MutexLock lock(&st.mu);
  return std::exchange(st.sink, std::move(sink));
}

void Log(LogLevel level, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  std::string text;
  if (n > 0) {
    std::vector<char> buf(static_cast<size_t>(n) + 1);
    std::vsnprintf(buf.data(), buf.size(), fmt, ap2);
    text.assign(buf.data(), static_cast<size_t>(n));
  }
  va_end(ap2);
  SinkState& st = State();
  MutexLock lock(&st.mu);
  if (st.sink) {
    st.sink(level, text);
  } else {
    std::fprintf(stderr, "smrstore: %s\n", text.c_str());
  }
}

void MutexNotHeld(const char* name) {
  Log(LogLevel::kError, "mutex %s not held by the calling thread (a lock rule broken)", name);
  std::abort();
}

}  // namespace smr
