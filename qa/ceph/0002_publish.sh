#!/bin/sh
# smrstore stats to ceph-mgr: starts a private one-node cluster (qa/ceph/lib.sh, no OSD —
# a service daemon needs only mon and mgr), makes a small store on two emulated drives,
# runs `smrstore-tool serve --publish t1 --workload churn`, and checks through the real
# `ceph` CLI that
#   - `ceph service dump` lists daemon t1 of service smrstore with its registration
#     metadata (smrstore_version, store_uuid = the store's, drives = 2, hostname);
#   - `ceph service status` carries its status: schema smrstore.stats/1, `stats` parses,
#     names t1 and the store, io.user_bytes grows between two dumps, zonemap.<i> and
#     streams.<i> have nr_zones characters for each drive;
#   - serve exits 0 on SIGTERM (clean unmount) and fsck finds the store clean;
#   - an unreachable cluster makes serve --publish fail within seconds, with a clear error.
# Exits non-zero on any failure.
#   sh qa/ceph/0002_publish.sh TOOL [SCRATCH_DIR]  (default: a temp dir, removed on success)
set -eu
[ $# -ge 1 ] || { echo "usage: $0 path/to/smrstore-tool [SCRATCH_DIR]" >&2; exit 2; }
TOOL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -x "$TOOL" ] || { echo "FAIL: $1 is not an executable" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
die() { echo "FAIL: $*" >&2; exit 1; }

ceph_qa_scratch smr-publish "${2:-}"   # sets $scratch, $cl; stops $serve_pid + cluster on exit

# 1. A bad name and an unreachable cluster fail fast and clearly (no cluster needed).
cd "$scratch"
"$TOOL" mkfs st "emu:$scratch/d0.img?zones=24&zone_mib=16&conv=1" \
  "emu:$scratch/d1.img?zones=20&zone_mib=16&conv=1" >/dev/null
if "$TOOL" serve st --publish 'bad name' 2>err.txt; then die "serve accepted a bad name"; fi
grep -q "only letters, digits" err.txt || die "bad-name message: $(cat err.txt)"
# bad_option WANT ARGS...: serve must exit 2 with WANT in its one-line error.
bad_option() {
  want=$1; shift
  rc=0; "$TOOL" serve st "$@" 2>err.txt || rc=$?
  [ $rc -eq 2 ] || die "serve $* exited $rc, expected 2"
  grep -q -- "$want" err.txt || die "serve $*: $(cat err.txt)"
}
bad_option "expected none or churn" --workload bogus
bad_option "between 0.5 and 3600" --publish t0 --interval 0
bad_option "need --publish" --ceph-conf /etc/ceph/ceph.conf
if "$TOOL" serve st --publish t0 --ceph-conf "$scratch/missing.conf" 2>err.txt; then
  die "serve accepted a missing ceph.conf"
fi
grep -q "cannot read $scratch/missing.conf" err.txt || die "missing-conf message: $(cat err.txt)"
cat >nocluster.conf <<EOF
[global]
mon host = [v2:127.0.0.1:1]
auth client required = none
log file = $scratch/nocluster.log
EOF
t0=$(date +%s)
if "$TOOL" serve st --publish t0 --ceph-conf nocluster.conf --ceph-timeout 3 2>err.txt; then
  die "serve --publish succeeded without a cluster"
fi
took=$(( $(date +%s) - t0 ))
grep -q "cannot connect to the Ceph cluster" err.txt || die "unreachable-cluster message: $(cat err.txt)"
[ $took -le 20 ] || die "unreachable cluster took ${took}s to fail (--ceph-timeout 3)"
echo "ok: bad options refused; unreachable cluster fails in ${took}s: $(cat err.txt)"

# 2. The cluster and the publishing store.
ceph_cluster_start "$cl" --no-osd
"$TOOL" serve st --publish t1 --workload churn --rate 20 --interval 1 \
  --object-size 256K --fill 0.4 >serve.out 2>serve.err &
serve_pid=$!

# dump_json OUT: `ceph service dump` and `ceph service status` into OUT.dump / OUT.status.
dump_json() {
  timeout 60 ceph --connect-timeout 20 service dump -f json >"$1.dump"
  timeout 60 ceph --connect-timeout 20 service status -f json >"$1.status"
}
# check OUT: prints io.user_bytes of daemon t1; fails unless every field is right.
check() {
  /usr/bin/python3 - "$1" <<'EOF'
import json, sys
base = sys.argv[1]
dump = json.load(open(base + ".dump"))
status = json.load(open(base + ".status"))
def fail(msg):
    print("check: " + msg, file=sys.stderr)
    sys.exit(1)
svc = dump.get("services", {}).get("smrstore")
if not svc or "t1" not in svc.get("daemons", {}):
    fail("service dump has no smrstore daemon t1: " + json.dumps(dump)[:400])
meta = svc["daemons"]["t1"].get("metadata", {})
for k in ("smrstore_version", "store_uuid", "drives", "hostname"):
    if not meta.get(k):
        fail("metadata lacks " + k + ": " + json.dumps(meta))
if meta["drives"] != "2":
    fail("metadata drives = " + meta["drives"])
entry = status.get("smrstore", {}).get("t1")
if not entry or "status" not in entry:
    fail("service status has no smrstore t1 status: " + json.dumps(status)[:400])
st = entry["status"]
if st.get("schema") != "smrstore.stats/1":
    fail("schema = %r" % st.get("schema"))
doc = json.loads(st["stats"])
if doc["schema"] != "smrstore.stats/1" or doc["name"] != "t1":
    fail("stats document header: %r %r" % (doc["schema"], doc["name"]))
if doc["store"]["uuid"] != meta["store_uuid"]:
    fail("store uuid %s != metadata %s" % (doc["store"]["uuid"], meta["store_uuid"]))
if len(doc["drives"]) != 2:
    fail("%d drives" % len(doc["drives"]))
for d in doc["drives"]:
    i = d["index"]
    if "zonemap" in d or "streams" in d:
        fail("the stats value must be the compact document (no zone maps)")
    zm, sm = st.get("zonemap.%d" % i), st.get("streams.%d" % i)
    if zm is None or sm is None:
        fail("status lacks zonemap.%d / streams.%d" % (i, i))
    if len(zm) != d["nr_zones"] or len(sm) != d["nr_zones"]:
        fail("drive %d: zonemap %d / streams %d chars, nr_zones %d" % (i, len(zm), len(sm), d["nr_zones"]))
    if sum(d["zones"].values()) != d["nr_zones"]:
        fail("drive %d zone counts %r" % (i, d["zones"]))
print(doc["io"]["user_bytes"])
EOF
}

# Wait for the first status (the mgr learns it with the client's next report).
n=0
until dump_json first 2>/dev/null && u1=$(check first 2>first.err); do
  n=$((n + 1))
  kill -0 "$serve_pid" 2>/dev/null || die "serve exited: $(cat serve.err)"
  [ $n -lt 60 ] || die "no valid smrstore t1 status after 60 tries: $(cat first.err)"
  sleep 1
done
echo "ok: t1 registered and publishing (io.user_bytes $u1)"
# The mgr gets the status with the client's mgr report, every mgr_stats_period (5 s):
# poll until a newer one shows, for at most 30 s.
n=0
while :; do
  sleep 1
  dump_json second
  u2=$(check second) || die "second dump"
  [ "$u2" -le "$u1" ] || break
  n=$((n + 1))
  [ $n -lt 30 ] || die "io.user_bytes did not grow in 30 s: $u1 -> $u2"
done
echo "ok: io.user_bytes grew $u1 -> $u2 between two dumps"

# 3. Clean stop, clean store.
kill -TERM "$serve_pid"
rc=0
wait "$serve_pid" || rc=$?
serve_pid=
[ $rc -eq 0 ] || die "serve exited $rc on SIGTERM: $(tail -5 serve.err)"
grep -q "unmounted" serve.out || die "serve did not report a clean unmount: $(tail -3 serve.out)"
"$TOOL" fsck st --deep >fsck.txt || die "fsck after serve: $(cat fsck.txt)"
echo "ok: serve stopped cleanly on SIGTERM; fsck --deep clean"

ceph_cluster_stop "$cl"
trap - EXIT
[ $# -ge 2 ] || rm -rf "$scratch"
echo "PASS 0002_publish"
