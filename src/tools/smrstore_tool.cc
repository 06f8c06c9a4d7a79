// smrstore-tool: the operator's command line for smrstore devices and stores.
// The executable: every folder's commands registered with the cli/ framework, in the order
// --help lists them (src/tools/README.md: the folders and what each may include).
#include "bench/devbench.h"
#include "bench/hybrid_bench.h"
#include "bench/scale_bench.h"
#include "bench/storebench.h"
#include "bench/workload_bench.h"
#include "cli/cli.h"
#include "commands/device_commands.h"
#include "commands/gcsim_command.h"
#include "commands/hybrid_commands.h"
#include "commands/rebuild_command.h"
#ifdef SMRSTORE_HAVE_CEPH_ADAPTER
#include "commands/replay_command.h"
#endif
#include "commands/store_commands.h"
#include "serve/serve_command.h"
#include "whatif/what_if_command.h"

int main(int argc, char** argv) {
  smr::tool::Cli cli("smrstore-tool");
  smr::tool::AddDeviceCommands(&cli);
  smr::tool::AddStoreCommands(&cli);
  smr::tool::AddHybridCommands(&cli);
  smr::tool::AddRebuildCommand(&cli);
  smr::tool::AddDevbenchCommand(&cli);
  smr::tool::AddStorebenchCommand(&cli);
  smr::tool::AddScaleBenchCommands(&cli);
  smr::tool::AddWorkloadBenchCommand(&cli);
  smr::tool::AddHybridBenchCommand(&cli);
  smr::tool::AddHBufferBenchCommand(&cli);
  smr::tool::AddGcsimCommand(&cli);
  smr::tool::AddServeCommand(&cli);
  smr::tool::AddWhatIfCommand(&cli);
#ifdef SMRSTORE_HAVE_CEPH_ADAPTER
  smr::tool::AddReplayCommand(&cli);
#endif
  return cli.Run(argc, argv);
}
