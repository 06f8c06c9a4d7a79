#!/bin/sh
# Bad input to a real smrstore OSD (Debian's ceph-osd + libsmrstore_osd.so): each case must
# give a clear error in the OSD log, stop the OSD (or refuse the mkfs) instead of misbehaving,
# and destroy no data on any drive (drives' checksums compared before and after):
#   1. no smrstore_devices file            -> mkfs refused, the file named
#   2. a malformed device spec             -> mkfs refused, the spec named
#   3. a drive of another store            -> mkfs refused (in use / holds store UUID)
#   4. an OSD started on the wrong drives  -> start refused (drive belongs to ... index)
#   5. a bad smrstore.conf                 -> start refused, file:line named
#   6. a full store                        -> Ceph's full ratios stop client writes before the
#                                             store runs out: the OSD stays up, no
#                                             transaction fails, health says FULL
#   sh qa/ceph/0008_osd_bad_input.sh TOOL   (~2.5 min; TOOL = smrstore-tool, for case 4)
set -eu
TOOL=${1:?usage: $0 path/to/smrstore-tool}
TOOL=$(cd "$(dirname "$TOOL")" && pwd)/$(basename "$TOOL")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
ceph_qa_scratch ceph-qa-badinput "${SMRSTORE_QA_SCRATCH:-}"
t0=$(date +%s)
failed=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
# A small drive, so that case 6 fills it in seconds: 24 zones x 32 MiB, 2 conventional.
export SMRSTORE_QA_DRIVES="emu:@DIR@/drive0.img?zones=24&zone_mib=32&conv=2"
ceph_cluster_start "$cl" --objectstore smrstore --cephx
L=$SMRSTORE_OSD_LIB
log_has() { grep -q -- "$2" "$cl/log/osd.$1.log"; }
sums() { md5sum "$cl"/osd.*/drive*.img 2>/dev/null | sort; }

ceph_pool_create qa 8
head -c 3M /dev/urandom >"$scratch/obj"
rados -p qa put keep "$scratch/obj"

# A new OSD id with a key and a data dir, not mkfs'd.
new_osd() {
  _n=$(ceph osd create)
  ceph auth get-or-create osd.$_n mon 'allow profile osd' mgr 'allow profile osd' osd 'allow *' \
    -o "$cl/keyring.osd.$_n" >/dev/null
  mkdir -p "$cl/osd.$_n"
  echo "$_n"
}
mkfs_osd() { LD_PRELOAD=$L ceph-osd -i "$1" --mkfs -c "$CEPH_CONF" >>"$cl/log/osd.$1.out" 2>&1; }

# 1. No smrstore_devices.
n=$(new_osd)
if mkfs_osd "$n"; then fail "1: mkfs without smrstore_devices succeeded"
elif log_has "$n" "smrstore: mkfs: no drives: write the device specs to $cl/osd.$n/smrstore_devices"; then
  pass "1: mkfs without smrstore_devices refused; the OSD log names the file"
else fail "1: no clear error in osd.$n's log"; fi
[ ! -d "$cl/osd.$n/smrstore" ] && pass "1: nothing created" || fail "1: a store directory was created"

# 2. A malformed spec.
echo "emu:$cl/osd.$n/d.img?zones=lots" >"$cl/osd.$n/smrstore_devices"
if mkfs_osd "$n"; then fail "2: mkfs with a malformed spec succeeded"
elif grep "smrstore: mkfs" "$cl/log/osd.$n.log" | tail -1 | grep -q "zones"; then
  pass "2: malformed spec refused: $(grep 'smrstore: mkfs' "$cl/log/osd.$n.log" | tail -1 | sed 's/.*smrstore: //' | cut -c1-110)"
else fail "2: no clear error: $(grep 'smrstore:' "$cl/log/osd.$n.log" | tail -1)"; fi

# 3. Another store's drive, while its OSD runs and while it is stopped.
before=$(sums)
echo "$(sed -n 1p "$cl/osd.0/smrstore_devices")" >"$cl/osd.$n/smrstore_devices"
if mkfs_osd "$n"; then fail "3: mkfs on osd.0's drive (running) succeeded"
elif grep "smrstore: mkfs" "$cl/log/osd.$n.log" | tail -1 | grep -q "in use"; then
  pass "3: osd.0's drive while osd.0 runs: refused (in use)"
else fail "3: running: $(grep 'smrstore:' "$cl/log/osd.$n.log" | tail -1)"; fi
pid0=$(ceph_osd_pid "$cl" 0); kill -TERM "$pid0"; while kill -0 "$pid0" 2>/dev/null; do sleep 0.2; done
if mkfs_osd "$n"; then fail "3: mkfs on osd.0's drive (stopped) succeeded"
elif grep "smrstore: mkfs" "$cl/log/osd.$n.log" | tail -1 | grep -q "holds smrstore"; then
  pass "3: osd.0's drive while stopped: refused ($(grep 'smrstore: mkfs' "$cl/log/osd.$n.log" | tail -1 | sed 's/.*AlreadyExists: //' | cut -c1-90))"
else fail "3: stopped: $(grep 'smrstore:' "$cl/log/osd.$n.log" | tail -1)"; fi
[ "$(sums)" = "$before" ] && pass "3: no drive changed" || fail "3: a drive changed"

# 4. osd.0 started on the wrong drive: osd.0's drive swapped with a fresh one of another store.
other="$scratch/other"
mkdir -p "$other"
"$TOOL" mkfs "$other/store" "emu:$other/drive0.img?zones=24&zone_mib=32&conv=2" >"$scratch/other.out" 2>&1 || true
if [ -f "$other/drive0.img" ]; then
  mv "$cl/osd.0/drive0.img" "$scratch/osd0-drive0.img"
  cp "$other/drive0.img" "$cl/osd.0/drive0.img"
  before=$(md5sum "$scratch/osd0-drive0.img" "$cl/osd.0/drive0.img")
  if ceph_osd_run "$cl" 0 && sleep 2 && kill -0 "$(ceph_osd_pid "$cl" 0)" 2>/dev/null; then
    fail "4: osd.0 started on another store's drive"
  elif grep "smrstore: mount" "$cl/log/osd.0.log" | tail -1 | grep -q "drive belongs to store"; then
    pass "4: osd.0 on another store's drive refused: $(grep 'smrstore: mount' "$cl/log/osd.0.log" | tail -1 | sed 's/.*Corruption: [^ ]* //' | cut -c1-120)"
  else fail "4: $(grep 'smrstore:' "$cl/log/osd.0.log" | tail -1)"; fi
  [ "$(md5sum "$scratch/osd0-drive0.img" "$cl/osd.0/drive0.img")" = "$before" ] \
    && pass "4: neither drive changed" || fail "4: a drive changed"
  mv "$scratch/osd0-drive0.img" "$cl/osd.0/drive0.img"
else
  fail "4: smrstore-tool mkfs of a second store failed: $(tail -3 "$scratch/other.out")"
fi

# 5. A bad settings file, then the right one.
printf 'on_transaction_error = abort\ngc_polcy = greedy\n' >"$cl/osd.0/smrstore.conf"
if ceph_osd_run "$cl" 0 && sleep 2 && kill -0 "$(ceph_osd_pid "$cl" 0)" 2>/dev/null; then
  fail "5: osd.0 started with a bad smrstore.conf"
elif log_has 0 "smrstore.conf:2: unknown key 'gc_polcy'"; then
  pass "5: bad smrstore.conf refused, the OSD log names $cl/osd.0/smrstore.conf:2"
else fail "5: $(grep 'smrstore:' "$cl/log/osd.0.log" | tail -1)"; fi
printf 'on_transaction_error = abort\n' >"$cl/osd.0/smrstore.conf"
# For case 6: the OSD refreshes its statfs (and its failsafe check) every heartbeat and
# reports it every second.
ceph config set osd osd_heartbeat_interval 1 >/dev/null
ceph config set osd osd_mon_report_interval 1 >/dev/null
ceph_osd_start "$cl" 0
rados -p qa get keep "$scratch/keep.out" && cmp -s "$scratch/obj" "$scratch/keep.out" \
  && pass "1-5: osd.0 back on its own drive, its object byte-exact" || fail "5: object lost"

# 6. Full: ratios low enough, stats reported every second; a steady writer.
ceph osd set-nearfull-ratio 0.6 >/dev/null 2>&1
ceph osd set-backfillfull-ratio 0.65 >/dev/null 2>&1
ceph osd set-full-ratio 0.7 >/dev/null 2>&1
ceph config set osd osd_failsafe_full_ratio 0.8 >/dev/null
# A steady writer (one 64 KiB write at a time) until the cluster is full or 150 s pass.
timeout 150 rados bench -p qa 140 write -t 1 -b 65536 --no-cleanup >"$scratch/bench.out" 2>&1 || true
pid0=$(ceph_osd_pid "$cl" 0)
if [ -n "$pid0" ] && kill -0 "$pid0" 2>/dev/null; then pass "6: osd.0 still up after writing into a full cluster"
else fail "6: osd.0 died: $(grep 'smrstore:' "$cl/log/osd.0.log" | tail -2)"; fi
if ceph health detail | grep -q "OSD_FULL\|POOL_FULL\|OSD_FAILSAFE_FULL"; then
  pass "6: health: $(ceph health detail | grep -o 'OSD_FULL\|POOL_FULL\|OSD_FAILSAFE_FULL' | sort -u | tr '\n' ' ')"
else fail "6: no FULL health check: $(ceph health detail | head -3 | tr '\n' ' ')"; fi
if grep -q "smrstore: transaction .* failed" "$cl/log/osd.0.log"; then
  fail "6: the store refused a transaction: $(grep 'smrstore: transaction' "$cl/log/osd.0.log" | tail -1)"
else pass "6: no transaction failed in the store (Ceph stopped the writes first)"; fi
echo "6: $(ceph osd df | sed -n 2p | awk '{print "osd.0 SIZE " $5$6 " RAW USE " $7$8 " %USE " $17}')"
ceph osd df >"$scratch/df.out" 2>&1 || true

echo "== 0008_osd_bad_input: $failed failure(s), $(( $(date +%s) - t0 )) s"
# On success the scratch (~600 MB: drives, OSD and mon data) goes, unless the caller named it;
# on failure it stays for a look.
if [ $failed -eq 0 ] && [ -z "${SMRSTORE_QA_SCRATCH:-}" ]; then
  ceph_cluster_stop "$cl" || true
  cd / && rm -rf "$scratch"
fi
[ $failed -eq 0 ]
