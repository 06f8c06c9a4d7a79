// Registers smrstore-tool replay: a captured real-OSD transaction trace (qa/traces/) applied
// to SMRStore through the Ceph ObjectStore adapter, end state checked against the capture.
// Built when the adapter is (Debian's Ceph libraries present).
#pragma once

#include "cli/cli.h"

namespace smr::tool {

void AddReplayCommand(Cli* cli);

}  // namespace smr::tool
