// Registers smrstore-tool what-if: predicts WA, GC bandwidth and zone turnover for a captured
// OSD workload on a given drive geometry and fill (what_if.h), and with --check replays the
// same scaled workload into a real store to compare (what_if_check.h).
#pragma once

#include "cli/cli.h"

namespace smr::tool {

void AddWhatIfCommand(Cli* cli);

}  // namespace smr::tool
