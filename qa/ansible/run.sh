#!/bin/bash
# ansible/site.yml against a real systemd Debian 12 host in a QEMU VM (qa/vm/host/vmhost.sh),
# over SSH from this machine (make test-ansible, about 30-40 minutes under TCG):
#   1. build (or reuse) the VM image, boot a fresh VM
#   2. site.yml --check on the fresh host: succeeds and changes nothing
#   3. site.yml: lab mon + mgr, the smrstore package, two smrstore OSDs on the QEMU NVMe ZNS
#      namespaces (ceph-volume smrstore prepare/activate), the mgr module and its token
#   4. site.yml again: changed=0
#   5. rados put/get of objects through the cluster, read back byte-exact
#   6. reboot the guest (QEMU keeps running, the ZNS zones keep their data): the OSD units
#      are enabled, the OSDs come back up, the objects read back byte-exact
#   7. ceph-volume smrstore on the guest's kernel devices (qa/ansible/ceph_volume_kernel.sh)
# Prints each step's time. Exits non-zero at the first failed step.
# Usage: qa/ansible/run.sh
# Env:   SMRSTORE_DEB  the package (default: the newest build/smrstore_*.deb; make deb)
#        SMRSTORE_VMHOST_RUN / _PORT  run dir and ssh port (default .../ansible-run, 10023)
#        SMRSTORE_KEEP_VM=1  leave the VM running at the end (qa/vm/host/vmhost.sh stop)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export SMRSTORE_VMHOST_RUN=${SMRSTORE_VMHOST_RUN:-/var/tmp/smrstore-vmhost/ansible-run}
export SMRSTORE_VMHOST_PORT=${SMRSTORE_VMHOST_PORT:-10023}
export SMRSTORE_VMHOST_MEM=${SMRSTORE_VMHOST_MEM:-5G}
VMH=$ROOT/qa/vm/host/vmhost.sh
LOGS=$SMRSTORE_VMHOST_RUN/logs
t_start=$(date +%s)
t_step=$t_start
log() { echo "test-ansible: $*"; }
die() { echo "test-ansible: FAIL: $*" >&2; exit 1; }
step() { local now; now=$(date +%s); log "$1 ($((now - t_step)) s)"; t_step=$now; }
vm() { "$VMH" ssh "$@"; }

"$ROOT/scripts/install-deps.sh" vmhost
DEB=${SMRSTORE_DEB:-$(find "$ROOT/build" -maxdepth 1 -name 'smrstore_*.deb' 2>/dev/null | sort -V | tail -n1)}
if [ -z "$DEB" ] || [ ! -r "$DEB" ]; then die "no smrstore package (build/smrstore_*.deb): run make deb first"; fi
log "package $DEB"

cleanup() {
  if [ "${SMRSTORE_KEEP_VM:-0}" = 1 ]; then
    log "VM left running: $VMH ssh (SMRSTORE_VMHOST_RUN=$SMRSTORE_VMHOST_RUN SMRSTORE_VMHOST_PORT=$SMRSTORE_VMHOST_PORT)"
  else
    "$VMH" stop || true
  fi
}

# --- 1. VM ------------------------------------------------------------------------------
"$VMH" build >/dev/null
step "image ready"
if "$VMH" status >/dev/null 2>&1; then die "a VM already runs from $SMRSTORE_VMHOST_RUN ($VMH stop)"; fi
trap cleanup EXIT
"$VMH" start
step "VM booted, sshd up"
mkdir -p "$LOGS"
INV=$SMRSTORE_VMHOST_RUN/inventory.yml
"$ROOT/qa/ansible/vm-inventory.sh" "$SMRSTORE_VMHOST_RUN" "$SMRSTORE_VMHOST_PORT" >"$INV"
cd "$ROOT/ansible"
play() {  # play NAME [args]: site.yml against the VM, log in $LOGS/NAME.log, recap printed
  local name=$1 rc=0
  shift
  ansible-playbook -i "$INV" site.yml -e "smrstore_deb=$DEB" "$@" >"$LOGS/$name.log" 2>&1 || rc=$?
  RECAP=$(sed -n 's/^smrvm *: *//p' "$LOGS/$name.log" | tr -s ' ' | sed 's/ $//')
  if [ $rc != 0 ]; then
    grep -E '^(fatal|failed):' -A3 "$LOGS/$name.log" | head -n 20 >&2 || true
    die "site.yml ($name) failed, rc $rc: ${RECAP:-no recap} (log: $LOGS/$name.log)"
  fi
}

# --- 2. check mode on the fresh host -----------------------------------------------------
play check --check
vm 'test ! -e /etc/ceph/ceph.conf && test ! -e /etc/ceph/smrstore && ! dpkg -s smrstore >/dev/null 2>&1' ||
  die "site.yml --check changed the host"
step "check mode on the fresh host: $RECAP; nothing changed"

# --- 3. first run ------------------------------------------------------------------------
play first
step "first run: $RECAP"
vm 'ceph -s' | sed 's/^/    /'

# --- 4. second run -----------------------------------------------------------------------
play second
case "$RECAP" in
  *" changed=0 "*) ;;
  *) grep -E '^changed:' -B2 "$LOGS/second.log" | head -n 30 >&2
     die "second run not idempotent: $RECAP (log: $LOGS/second.log)" ;;
esac
step "second run: $RECAP"

# --- 5. objects through the cluster ------------------------------------------------------
osds=$(vm "ceph-volume smrstore list --format json" | python3 -c 'import json,sys; print(" ".join(sorted(json.load(sys.stdin))))')
[ "$(echo "$osds" | wc -w)" = 2 ] || die "expected 2 smrstore OSDs, ceph-volume smrstore list shows: $osds"
for id in $osds; do
  os=$(vm "ceph osd metadata $id --format json" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("osd_objectstore"))')
  [ "$os" = smrstore ] || die "osd.$id runs objectstore $os, not smrstore"
done
vm 'set -e
ceph osd pool create smrtest 8 8 >/dev/null 2>&1 || ceph osd pool ls | grep -qx smrtest
ceph osd pool application enable smrtest rados >/dev/null 2>&1 || true
head -c 8388608 /dev/urandom >/root/big.bin
head -c 4096 /dev/urandom >/root/small.bin
timeout 600 rados -p smrtest put big /root/big.bin
timeout 600 rados -p smrtest put small /root/small.bin
rados -p smrtest get big /root/big.out && cmp /root/big.bin /root/big.out
rados -p smrtest get small /root/small.out && cmp /root/small.bin /root/small.out' ||
  die "rados put/get through the cluster failed"
step "rados put/get of 8 MiB + 4 KiB objects on osd $(echo "$osds" | tr ' ' ','): read back byte-exact"
# The mgr module's REST API with the token the smrstore_mgr role keeps on the host.
api_summary() { vm 'python3 -c "
import json, urllib.request
t = open(\"/etc/ceph/smrstore-console.token\").read().strip()
r = urllib.request.urlopen(urllib.request.Request(\"http://127.0.0.1:8765/api/v1/summary\",
                           headers={\"Authorization\": \"Bearer \" + t}), timeout=30)
d = json.load(r)
print(d[\"daemons\"], d[\"drives\"])"' 2>/dev/null; }
deadline=$(($(date +%s) + 300))
until summary=$(api_summary) && [ "$summary" = "2 2" ]; do
  [ "$(date +%s)" -lt "$deadline" ] ||
    die "the smrstore mgr module's API (127.0.0.1:8765 in the VM) did not show 2 daemons and 2 drives with the role's token within 300 s (last: '${summary:-no answer}')"
  sleep 5
done
step "mgr module API with the role's token: 2 daemons, 2 drives"

# --- 6. reboot ---------------------------------------------------------------------------
for id in $osds; do
  fsid=$(vm "cat /var/lib/ceph/osd/ceph-$id/fsid")
  vm "systemctl is-enabled ceph-osd@$id ceph-volume@smrstore-$id-$fsid" >/dev/null ||
    die "osd.$id: its units are not enabled: $(vm "systemctl is-enabled ceph-osd@$id ceph-volume@smrstore-$id-$fsid" | tr '\n' ' ')"
done
# After the reboot the mon's map still shows the OSDs up (it has not noticed them gone), so
# "up again" means: up, in a map epoch newer than the one they came up in before
# (up_from), and their units active.
upfrom=$(vm "ceph osd dump --format json" | python3 -c '
import json, sys
print(" ".join("%d:%d" % (o["osd"], o["up_from"]) for o in json.load(sys.stdin)["osds"]))')
active_cmd=$(for id in $osds; do printf 'systemctl is-active --quiet ceph-osd@%s && ' "$id"; done)
"$VMH" reboot
step "guest rebooted"
deadline=$(($(date +%s) + 900))
until vm "ceph osd dump --format json" 2>/dev/null | python3 -c '
import json, sys
want = set(int(x) for x in sys.argv[1].split())
before = dict(tuple(int(v) for v in x.split(":")) for x in sys.argv[2].split())
up = {o["osd"] for o in json.load(sys.stdin)["osds"] if o["up"] == 1 and o["up_from"] > before.get(o["osd"], -1)}
sys.exit(0 if want <= up else 1)' "$osds" "$upfrom" &&
      vm "$active_cmd true"; do
  [ "$(date +%s)" -lt "$deadline" ] || { vm 'ceph -s; systemctl --no-pager status "ceph-osd@*" | tail -n 40' >&2 || true
                                        die "the OSDs ($osds) did not come back up within 900 s of the reboot"; }
  sleep 5
done
step "OSDs $(echo "$osds" | tr ' ' ',') up again after the reboot"
vm 'set -e
rm -f /root/big.out /root/small.out
timeout 600 rados -p smrtest get big /root/big.out && cmp /root/big.bin /root/big.out
timeout 600 rados -p smrtest get small /root/small.out && cmp /root/small.bin /root/small.out' ||
  die "rados get after the reboot failed or differs"
step "rados get after the reboot: byte-exact"

# --- 7. ceph-volume smrstore on the guest's kernel devices --------------------------------
# qa/ansible/ceph_volume_kernel.sh, in the guest: list, refusals that change nothing, an OSD
# on null_blk prepared, activated with systemd and zapped again.
if [ -r "$ROOT/qa/ansible/ceph_volume_kernel.sh" ]; then
  rc=0
  vm 'bash -s' <"$ROOT/qa/ansible/ceph_volume_kernel.sh" >"$LOGS/ceph_volume_kernel.log" 2>&1 || rc=$?
  sed 's/^/    /' "$LOGS/ceph_volume_kernel.log"
  [ $rc = 0 ] || die "ceph-volume smrstore on the guest's kernel devices: rc $rc (log: $LOGS/ceph_volume_kernel.log)"
  step "ceph-volume smrstore on kernel devices (qa/ansible/ceph_volume_kernel.sh): $(grep -c '^PASS' "$LOGS/ceph_volume_kernel.log") PASS"
fi
log "all passed in $(($(date +%s) - t_start)) s (logs: $LOGS)"
