# Helpers for qa smoke scripts. $TOOL is the smrstore-tool under test; cwd is scratch.
set -eu
die() { echo "FAIL: $*" >&2; exit 1; }
# expect_fail "what" cmd...: the command must exit non-zero with exactly one stderr line.
expect_fail() {
  what=$1; shift
  if "$@" >out.txt 2>err.txt; then die "$what: succeeded but should fail"; fi
  [ "$(wc -l <err.txt)" -eq 1 ] || { cat err.txt >&2; die "$what: error is not one line"; }
  echo "ok: $what -> $(cat err.txt)"
}
