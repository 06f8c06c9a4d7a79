// engine_log: the engine's messages to the operator (a failed commit group, a failed checkpoint, a
// checksum error, background GC failing, a realm conversion starting and ending), handed to
// a sink its host sets.
//
// Contract
//   Log(level, fmt, ...) formats one line (printf-style, no trailing newline) and gives it
//   to the current sink with its level. With no sink set, a line goes to stderr as
//   "smrstore: <text>\n" (what smrstore-tool and the tests show). The Ceph adapter sets a
//   sink that writes into the daemon's own log (ceph-osd.N.log) at Ceph's level for it:
//   kError -1 (Ceph's derr: always in the log file), kWarning 0, kInfo 1, kDebug 10.
//   Levels say who must see a line: kError = the store refused or lost something it should
//   not have (writes stop, a checksum failed, a background task failed); kWarning = it
//   carried on but an operator may want to know; kInfo = a state change (conversion).
//   The engine writes to the operator only through Log: no fprintf(stderr) in the engine.
//
// Thread safety: Log may be called from any thread; SetLogSink may be called at any time
// (a mutex guards the sink; the sink is called under it, so sinks must not call Log).
#pragma once

#include <functional>
#include <string>

namespace smr {

enum class LogLevel : int { kError = -1, kWarning = 0, kInfo = 1, kDebug = 10 };

using LogSink = std::function<void(LogLevel, const std::string&)>;

// Replaces the sink; an empty function restores the stderr default. Returns the old one.
LogSink SetLogSink(LogSink sink);

void Log(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace smr
