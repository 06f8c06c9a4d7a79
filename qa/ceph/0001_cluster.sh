#!/bin/sh
# Self-check of qa/ceph/lib.sh: starts a private memstore cluster (cephx on), creates a
# pool, round-trips objects of 0 B, 5 KiB and 3 MiB plus an xattr and an omap key through
# the real `rados` CLI, checks that bad arguments are refused, stops the cluster and checks
# that every daemon has exited. Exits non-zero on any failure.
#   sh qa/ceph/0001_cluster.sh [SCRATCH_DIR]   (default: a fresh temp dir, removed on success)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
die() { echo "FAIL: $*" >&2; exit 1; }

scratch=${1:-$(mktemp -d "${TMPDIR:-/tmp}/ceph-qa.XXXXXX")}
mkdir -p "$scratch"
cl="$scratch/cluster"
stopped=0
cleanup() { [ $stopped -eq 1 ] || ceph_cluster_stop "$cl" || true; }
trap cleanup EXIT

# Bad arguments are refused before anything starts.
if ceph_cluster_start "$scratch/bad" --objectstore zfs 2>"$scratch/err.tmp"; then die "zfs accepted"; fi
grep -q "must be memstore, filestore, bluestore or smrstore" "$scratch/err.tmp" || die "bad --objectstore message: $(cat "$scratch/err.tmp")"
if ceph_cluster_start "$scratch/bad" --rgw 80x 2>"$scratch/err.tmp"; then die "--rgw 80x accepted"; fi
grep -q "not a port number" "$scratch/err.tmp" || die "bad --rgw message: $(cat "$scratch/err.tmp")"
rm -f "$scratch/err.tmp"
[ ! -e "$scratch/bad/ceph.conf" ] || die "a refused start left a ceph.conf"

t0=$(date +%s)
ceph_cluster_start "$cl" --cephx
echo "ok: cluster up in $(( $(date +%s) - t0 )) s"
[ "$CEPH_CONF" = "$cl/ceph.conf" ] || die "CEPH_CONF is '$CEPH_CONF'"
[ -s "$cl/keyring.client.admin" ] || die "no client.admin keyring"
ceph -s
ceph health | grep -q HEALTH_OK || die "health is not OK: $(ceph health detail)"
ceph_pool_create qa 8
echo "ok: pool qa active"
if ceph_pool_create qa2 x 2>/dev/null; then die "PGS x accepted"; fi

cd "$scratch"
: >f0
head -c 5120 /dev/urandom >f5k
head -c 3M /dev/urandom >f3m
for f in f0 f5k f3m; do
  rados -p qa put "obj.$f" "$f"
  rados -p qa get "obj.$f" "$f.out"
  cmp "$f" "$f.out" || die "$f round trip"
done
rados -p qa setxattr obj.f5k user.k vvv
[ "$(rados -p qa getxattr obj.f5k user.k)" = vvv ] || die "xattr round trip"
rados -p qa setomapval obj.f5k key1 value1
[ "$(rados -p qa listomapkeys obj.f5k)" = key1 ] || die "omap keys"
[ "$(rados -p qa ls | sort | tr '\n' ' ')" = "obj.f0 obj.f3m obj.f5k " ] || die "rados ls: $(rados -p qa ls)"
rados -p qa rm obj.f3m
if rados -p qa stat obj.f3m 2>/dev/null; then die "removed object still there"; fi
echo "ok: rados put/get/xattr/omap/rm round trips"

pids=$(cat "$cl"/run/*.pid)
ceph_cluster_stop "$cl"
stopped=1
for p in $pids; do
  if kill -0 "$p" 2>/dev/null; then die "daemon pid $p still runs after ceph_cluster_stop"; fi
done
echo "ok: all daemons stopped ($(echo $pids | wc -w) pids)"
[ $# -ge 1 ] || rm -rf "$scratch"
echo "PASS 0001_cluster"
