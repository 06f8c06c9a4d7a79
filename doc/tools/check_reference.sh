#!/bin/sh
# usage: doc/tools/check_reference.sh TOOL
# Fails (exit 1, with a diff) when doc/tools/smrstore-tool-reference.md is not what TOOL's
# own --help generates (doc/tools/gen_tool_reference.py); exit 2 when TOOL cannot be run or
# its help does not parse. Regenerate with: python3 doc/tools/gen_tool_reference.py TOOL
set -eu
if [ $# -ne 1 ]; then
  echo "usage: $0 TOOL (the built smrstore-tool, e.g. build/src/tools/smrstore-tool)" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/gen_tool_reference.py" --check "$1"
