// smrstore-tool: the operator's command line for smrstore devices and stores.
#include "cli.h"
#include "device_commands.h"

int main(int argc, char** argv) {
  smr::tool::Cli cli("smrstore-tool");
  smr::tool::AddDeviceCommands(&cli);
  smr::tool::AddDevbenchCommand(&cli);
  return cli.Run(argc, argv);
}
