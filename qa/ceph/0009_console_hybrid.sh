#!/bin/sh
# The console's Hybrid view against a real converting hybrid store (hybrid drives exist only
# in smrstore's emulator): a real ceph-mgr with the smrstore module, `smrstore-tool serve
# --publish` on an emulated hybrid drive whose churn makes the engine convert CMR realms to
# SMR, and Playwright (Debian's chromium) on the console — web/e2e/hybrid-stack.sh does it
# and says how; screenshots in $SMRSTORE_E2E_OUT (build/e2e). About 3-5 minutes.
#   sh qa/ceph/0009_console_hybrid.sh TOOL
set -eu
tool=${1:?usage: qa/ceph/0009_console_hybrid.sh TOOL}
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../../web/e2e/hybrid-stack.sh" "$tool"
