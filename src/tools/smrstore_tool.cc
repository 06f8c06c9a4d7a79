// smrstore-tool: the operator's command line for smrstore devices and stores.
#include "cli.h"
#include "device_commands.h"
#include "gcsim_command.h"
#include "hybrid_commands.h"
#include "rebuild_command.h"
#ifdef SMRSTORE_HAVE_CEPH_ADAPTER
#include "replay_command.h"
#endif
#include "serve_command.h"
#include "store_commands.h"
#include "scale_bench.h"
#include "storebench.h"
#include "what_if_command.h"
#include "workload_bench.h"

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
