#!/bin/bash
# `ceph-volume smrstore` — Debian's own ceph-volume with the smrstore plugin — against a real
# cluster, on emulated zoned drives, the way an operator provisions OSDs:
#   - the plugin is loaded through its `ceph_volume_handlers` entry point (a .dist-info);
#   - the cluster has a client.bootstrap-osd key at /var/lib/ceph/bootstrap-osd/CLUSTER.keyring
#     and a conf at /etc/ceph/CLUSTER.conf with Ceph's default OSD paths (cluster name
#     "smrcv", so nothing of a "ceph" cluster on this host is touched);
#   - refusals that change nothing: a conventional disk, a drive holding another store,
#     the same drive twice, a bad setting (no OSD id created, no file written);
#   - prepare of two OSDs (two drives + one drive; the daemons as the ceph user, as Debian's
#     units run them); activate --no-systemd; ceph-osd started as a container entrypoint
#     would (LD_PRELOAD); both up and in, `ceph osd metadata` says smrstore, rados put/get;
#   - list (JSON and plain); a running OSD's drive refused by prepare and zap (in use);
#   - a replaced OSD: stop, zap --osd-id, `ceph osd destroy`, prepare --osd-id on the same
#     (now blank) drives, activate, up again, the data served (size-2 pool recovered);
#   - a lost metadata database: osd.0 stopped, its RocksDB moved away, `smrstore-tool
#     rebuild-meta` from its drives, osd.0 up again and serving o1 with osd.1 out.
# Prints PASS/FAIL lines; exits non-zero on a failure.
#   bash qa/ceph/0011_ceph_volume.sh TOOL [SCRATCH_DIR]
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -eu
TOOL=${1:?usage: $0 path/to/smrstore-tool [SCRATCH_DIR]}
TOOL=$(cd "$(dirname "$TOOL")" && pwd)/$(basename "$TOOL")
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
t_start=$(date +%s)
C=smrcv
ceph_qa_scratch ceph-volume "${2:-}"
chmod 755 "$scratch"
cd "$scratch"

# --- the plugin, as installed: package + dist-info on the path ceph-volume searches ----------
ceph_volume_plugin_site "$scratch/site"
export SMRSTORE_TOOL=$TOOL
export SMRSTORE_OSD_LIB=${SMRSTORE_OSD_LIB:-$repo/build/src/os/smrstore/osd/libsmrstore_osd.so}
chmod o+rx "$(dirname "$SMRSTORE_OSD_LIB")" 2>/dev/null || true
# The host's tools read /etc/ceph/$C.conf (lib.sh exports CEPH_CONF for the admin's CLI).
cv() { env -u CEPH_CONF ceph-volume --cluster $C --log-path "$scratch" smrstore "$@"; }
osd_entrypoint() {  # ID: what a container's entrypoint runs after activate --no-systemd
  env -u CEPH_CONF LD_PRELOAD="$SMRSTORE_OSD_LIB" ceph-osd --cluster $C -i "$1" --setuser ceph \
    --setgroup ceph >>"$cl/log/osd.$1.out" 2>&1
}

host_state_clean() {
  rm -rf /var/lib/ceph/osd/$C-* /etc/ceph/$C.conf /var/lib/ceph/bootstrap-osd/$C.keyring
  rm -f /etc/ceph/smrstore/$C-*.json
}
stop_osds() {
  for p in "$cl"/run/osd.*.pid; do
    _sp=$(ceph_pidfile_pid "$p")
    [ -n "$_sp" ] && kill -TERM "$_sp" 2>/dev/null || true
  done
  sleep 1
}
trap 'stop_osds; ceph_qa_cleanup; host_state_clean' EXIT
host_state_clean

ceph_cluster_start "$cl" --cephx --no-osd
chmod 1777 "$cl/log" "$cl/run" "$cl/crash"
# The host's view: Ceph's default OSD paths (no `osd data`, `keyring`, `osd objectstore`).
grep -v -E '^(keyring|osd data|osd objectstore|osd journal) = ' "$cl/ceph.conf" >/etc/ceph/$C.conf
mkdir -p /var/lib/ceph/bootstrap-osd
ceph auth get-or-create client.bootstrap-osd mon 'allow profile bootstrap-osd' \
  -o /var/lib/ceph/bootstrap-osd/$C.keyring >/dev/null
n_osds() { ceph osd ls 2>/dev/null | wc -l; }
files_now() { find /var/lib/ceph/osd /etc/ceph/smrstore -name "$C-*" 2>/dev/null | sort | tr '\n' ' '; }

mkdir -p drives
chmod 755 drives
for i in 0 1 2 3 4; do "$TOOL" mkdev "emu:$scratch/drives/d$i.img?zones=40&zone_mib=16&conv=2" >/dev/null; done
D=$scratch/drives

# --- refusals ---------------------------------------------------------------------------
"$TOOL" mkfs "$scratch/other" "emu:$D/d4.img" >/dev/null
root_disk=$(for b in /sys/class/block/*; do n=$(basename "$b"); [ -e "$b/partition" ] && continue
  [ "$(cat "$b/queue/zoned" 2>/dev/null)" = none ] && [ -b "/dev/$n" ] && case $n in loop*|ram*|nbd*|sr*|zram*) ;; *) echo "/dev/$n"; break ;; esac; done)
refused() {  # WHAT EXPECTED_TEXT ARGS...
  what=$1; want=$2; shift 2
  before_osds=$(n_osds); before_files=$(files_now)
  rc=0
  cv prepare "$@" >out 2>err || rc=$?
  if [ $rc -eq 0 ]; then
    ceph_qa_fail "$what: prepare succeeded"; return
  fi
  if [ "$(wc -l <err)" -eq 1 ] && grep -q -- "$want" err && [ "$(n_osds)" = "$before_osds" ] \
      && [ "$(files_now)" = "$before_files" ]; then
    ceph_qa_pass "$what refused (rc $rc, no OSD id, no file): $(cut -c1-150 err)"
  else
    ceph_qa_fail "$what: rc $rc, osds $before_osds -> $(n_osds), err: $(cat err)"
  fi
}
if [ -n "$root_disk" ]; then
  refused "a conventional disk ($root_disk)" "is not a host-managed zoned drive (queue/zoned = none)" --data "$root_disk"
fi
refused "a drive holding another store" "holds smrstore" --data "emu:$D/d0.img" --data "emu:$D/d4.img"
refused "the same drive twice" "is given twice" --data "emu:$D/d0.img" --data "emu:$D/d0.img"
refused "an unknown setting" "unknown smrstore.conf key" --data "emu:$D/d0.img" --conf no_such=1
refused "a missing drive" "no such emulated drive" --data "emu:$D/nothing.img"

# --- prepare, activate, start -----------------------------------------------------------
t0=$(date +%s)
if cv prepare --data "emu:$D/d0.img" --data "emu:$D/d1.img" --crush-device-class hdd \
     --conf gc_policy=greedy >prep0 2>err && cv prepare --data "emu:$D/d2.img" --format json >prep1.json 2>>err; then
  ceph_qa_pass "prepare: osd.0 on 2 drives, osd.1 on 1 drive ($(( $(date +%s) - t0 )) s): $(head -n1 prep0)"
else
  ceph_qa_fail "prepare: $(tail -n 3 err)"; exit 1
fi
fsid0=$(sed -n 's/.*fsid \([0-9a-f-]*\),.*/\1/p' prep0)
fsid1=$(python3 -c 'import json,sys; print(json.load(open("prep1.json"))["osd_fsid"])')
d0=/var/lib/ceph/osd/$C-0
if [ "$(cat $d0/type)" = smrstore ] && [ "$(stat -c %U $d0/keyring)" = ceph ] && \
   grep -q '^gc_policy = greedy' $d0/smrstore.conf && grep -q '^device_class = hdd' $d0/smrstore.conf && \
   [ "$(cat $d0/smrstore_devices)" = "emu:$D/d0.img emu:$D/d1.img" ] && [ "$(stat -c %U "$D/d0.img")" = ceph ]; then
  ceph_qa_pass "osd dir: type smrstore, keyring/drives owned by ceph, smrstore_devices and smrstore.conf as asked"
else
  ceph_qa_fail "osd dir: $(ls -l $d0 | tr '\n' ' ')"
fi
if cv activate --all --no-systemd >act 2>err; then
  ceph_qa_pass "activate --all --no-systemd: $(tr '\n' ' ' <act)"
else
  ceph_qa_fail "activate: $(cat err)"
fi
for i in 0 1; do
  osd_entrypoint $i || ceph_qa_fail "ceph-osd $i did not start: $(tail -n 3 "$cl/log/osd.$i.out")"
done
for i in 0 1; do
  _cq_wait 120 "osd.$i up and in" "$cl/log/osd.$i.log" _cq_osd_up_in $i || ceph_qa_fail "osd.$i not up"
done
store=$(ceph osd metadata 0 -f json | python3 -c 'import json,sys; m=json.load(sys.stdin); print(m["osd_objectstore"], m.get("smrstore_drives"), m["default_device_class"] if "default_device_class" in m else "")')
[ "${store%% *}" = smrstore ] && ceph_qa_pass "osd.0 up and in, metadata: $store" || ceph_qa_fail "osd.0 metadata: $store"
ceph osd pool create cv 8 8 >/dev/null 2>&1
for p in $(ceph osd pool ls); do  # every pool on both OSDs, so one can be replaced
  ceph osd pool set "$p" size 2 >/dev/null 2>&1; ceph osd pool set "$p" min_size 1 >/dev/null 2>&1
done
head -c 5M /dev/urandom >obj
rados -p cv put o1 obj && rados -p cv get o1 back && cmp -s obj back \
  && ceph_qa_pass "rados put/get of 5 MiB through the two OSDs, byte-exact" \
  || ceph_qa_fail "rados put/get"

# --- list ---------------------------------------------------------------------------------
if cv list --format json >list.json 2>err && python3 - "$fsid0" "$fsid1" list.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[3]))
assert sorted(d) == ["0", "1"], sorted(d)
assert d["0"]["osd_fsid"] == sys.argv[1] and d["1"]["osd_fsid"] == sys.argv[2]
# osd.0 runs: its drives are locked by it.
assert [x["state"].split(" (")[0] for x in d["0"]["devices"]] == ["in use", "in use"], d["0"]["devices"]
assert [x["drive_index"] for x in d["0"]["devices"]] == [0, 1]
assert d["0"]["settings"] == {"gc_policy": "greedy", "device_class": "hdd"}, d["0"]["settings"]
EOF
then ceph_qa_pass "list --format json: 2 OSDs, fsids, drives in use by their running OSD, settings"
else ceph_qa_fail "list --format json: $(head -c 400 list.json) $(cat err)"; fi
cv list >list.txt 2>&1
grep -q '====== osd.0 =======' list.txt && grep -q "\[data\] *$D/d1.img" list.txt \
  && ceph_qa_pass "list (plain): $(grep -c '\[data\]' list.txt) data drives shown" || ceph_qa_fail "list plain: $(cat list.txt)"
cv list "emu:$D/d4.img" >lab.txt 2>&1
grep -q "smrstore .* (1 of 1)" lab.txt && ceph_qa_pass "list DRIVE: $(sed -n 2p lab.txt | cut -c1-120)" \
  || ceph_qa_fail "list DRIVE: $(cat lab.txt)"

# --- a running OSD's drives -------------------------------------------------------------------
refused "a running OSD's drive (forced)" "is in use" --data "emu:$D/d2.img" --force
if cv zap "emu:$D/d2.img" --force >out 2>err; then ceph_qa_fail "zap of a running OSD's drive succeeded"
else grep -q "in use" err && ceph_qa_pass "zap of a running OSD's drive refused: $(cut -c1-120 err)" || ceph_qa_fail "zap: $(cat err)"; fi

# --- replace osd.1: stop, zap, destroy, prepare --osd-id on the blank drive, activate --------
ceph_wait_clean 180 >/dev/null 2>&1 || ceph_qa_fail "PGs not clean before the replacement: $(ceph pg stat 2>/dev/null)"
kill -TERM "$(ceph_pidfile_pid "$cl/run/osd.1.pid")"
_cq_wait 120 "osd.1 down" "" _cq_osd_down 1 || ceph_qa_fail "osd.1 did not go down"
sleep 2
if cv zap --osd-id 1 --no-systemd >out 2>err && [ ! -e /var/lib/ceph/osd/$C-1 ] && \
   [ "$("$TOOL" label "emu:$D/d2.img" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["smrstore"])')" = False ]; then
  ceph_qa_pass "zap --osd-id 1: $(cat out); drive blank, osd dir and record removed"
else
  ceph_qa_fail "zap --osd-id 1: $(cat out err)"
fi
ceph osd destroy 1 --yes-i-really-mean-it >/dev/null 2>&1
if cv prepare --data "emu:$D/d2.img" --data "emu:$D/d3.img" --osd-id 1 >prep2 2>err && cv activate 1 --no-systemd >/dev/null 2>>err; then
  osd_entrypoint 1
  if _cq_wait 120 "osd.1 up again" "$cl/log/osd.1.log" _cq_osd_up_in 1; then
    ceph_qa_pass "replaced osd.1 (prepare --osd-id 1 on 2 drives): $(head -n1 prep2)"
  else ceph_qa_fail "replaced osd.1 did not come up"; fi
else
  ceph_qa_fail "prepare --osd-id 1: $(cat err)"
fi
ceph_wait_clean 180 >/dev/null 2>&1 && ceph_qa_pass "PGs active+clean after the replacement" \
  || ceph_qa_fail "PGs not clean: $(ceph pg stat 2>/dev/null)"
rados -p cv get o1 back2 && cmp -s obj back2 && ceph_qa_pass "o1 read back after the replacement" || ceph_qa_fail "o1 after replacement"

# --- a lost metadata device: osd.0's RocksDB gone, rebuilt from its zones ----------------------
kill -TERM "$(ceph_pidfile_pid "$cl/run/osd.0.pid")"
_cq_wait 120 "osd.0 down" "" _cq_osd_down 0 || ceph_qa_fail "osd.0 did not go down"
sleep 2
st0=/var/lib/ceph/osd/$C-0/smrstore
mv "$st0/meta" "$scratch/meta.lost"
t0=$(date +%s)
# shellcheck disable=SC2046
if "$TOOL" rebuild-meta "$st0" $(cat /var/lib/ceph/osd/$C-0/smrstore_devices) >rebuild.out 2>&1 \
   && chown -R ceph:ceph "$st0" && osd_entrypoint 0 \
   && _cq_wait 120 "osd.0 up after rebuild-meta" "$cl/log/osd.0.log" _cq_osd_up_in 0; then
  ceph_qa_pass "rebuild-meta of osd.0 from its 2 drives ($(( $(date +%s) - t0 )) s, $(grep -c . rebuild.out) report lines), osd.0 up again"
else
  ceph_qa_fail "rebuild-meta of osd.0: $(tail -n 3 rebuild.out)"
fi
ceph_wait_clean 180 >/dev/null 2>&1 && ceph_qa_pass "PGs active+clean after the rebuild" \
  || ceph_qa_fail "PGs not clean after the rebuild: $(ceph pg stat 2>/dev/null)"
ceph osd out 1 >/dev/null 2>&1  # o1 must now come from osd.0's rebuilt store alone
ceph_wait_clean 180 >/dev/null 2>&1 || true
rados -p cv get o1 back3 && cmp -s obj back3 && ceph_qa_pass "o1 read from osd.0 alone (osd.1 out)" \
  || ceph_qa_fail "o1 from the rebuilt osd.0"

stop_osds
ceph_qa_finish "0011_ceph_volume" "$t_start"
