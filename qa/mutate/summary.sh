#!/bin/sh
# The combined summary of `make mutate`: the title, column header and "overall" row of the
# engine's report (cpp-report.txt, qa/mutate/engine.sh) and of the mgr module's
# (python-report.txt, qa/mutate/python.sh), both in $SMRSTORE_MUTATE_DIR. Full reports,
# with every survivor, are in those files.
set -eu
DIR=${SMRSTORE_MUTATE_DIR:-/var/tmp/smrstore-mutate}
echo
echo "==== make mutate: summary ($DIR) ===="
for part in cpp python; do
  r=$DIR/$part-report.txt
  if [ -s "$r" ]; then
    awk 'NR == 1 || /^file/ || /^overall/' "$r"
    echo "  (full report: $r)"
  else
    echo "$part: no report ($r missing: that half did not run or failed)"
  fi
  echo
done
