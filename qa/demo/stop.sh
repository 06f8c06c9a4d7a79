#!/bin/sh
# make demo-stop: stops what qa/demo/demo.sh started, each process by its own pid file:
# the client workload, the publishing stores (SIGTERM: clean unmount), then the cluster with
# its smrstore OSDs (qa/ceph/lib.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
DIR=${SMRSTORE_DEMO_DIR:-/var/tmp/smrstore-demo}
rc=0
for pf in "$DIR"/workload/churn.pid "$DIR"/*/serve.pid; do
  [ -f "$pf" ] || continue
  pid=$(cat "$pf")
  case $pid in ''|*[!0-9]*) echo "demo-stop: bad pid file $pf" >&2; rc=1; continue ;; esac
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    n=0
    while kill -0 "$pid" 2>/dev/null && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
    if kill -0 "$pid" 2>/dev/null; then
      echo "demo-stop: $(basename "$(dirname "$pf")") pid $pid did not exit in 30 s; SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true; rc=1
    else
      echo "demo-stop: stopped $(basename "$(dirname "$pf")") (pid $pid)"
    fi
  fi
  rm -f "$pf"
done
if [ -d "$DIR/cluster/run" ]; then
  . "$repo/qa/ceph/lib.sh"
  ceph_cluster_stop "$DIR/cluster" || rc=1
  echo "demo-stop: cluster stopped"
else
  echo "demo-stop: no demo cluster in $DIR"
fi
exit $rc
