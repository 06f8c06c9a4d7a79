#!/bin/bash
# The fast Ansible checks (about a minute, no VM): ansible-lint (production profile) of
# ansible/, ansible-playbook --syntax-check of site.yml, and the smrstore_preflight role
# run against localhost on an emulated host (a sysfs tree of fake zoned drives, device
# files, a canned `blkzone report`):
#   - check mode with a clean host-managed drive: passes, would change the scheduler and
#     the udev rule, and changes nothing;
#   - drives that hold a file system, zones in use, or are not host-managed: refused, with
#     the drive and the reason in the message;
#   - a real run, then a second one with changed=0 (the scheduler set in the fake sysfs).
# Usage: qa/ansible/lint.sh   Needs: scripts/install-deps.sh vmhost
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
t0=$(date +%s)
log() { echo "ansible-lint-job: $*"; }
die() { echo "ansible-lint-job: FAIL: $*" >&2; exit 1; }

"$ROOT/scripts/install-deps.sh" vmhost
cd "$ROOT/ansible"

log "ansible-lint --profile production"
ansible-lint --profile production --nocolor || die "ansible-lint found problems (above)"
ansible-playbook -i inventory/example.yml site.yml --syntax-check >/dev/null ||
  die "ansible-playbook --syntax-check site.yml failed"
log "syntax-check of site.yml: ok"

# --- an emulated host -------------------------------------------------------------------
E=$(mktemp -d /tmp/smrstore-ansible-lint.XXXXXX)
trap 'rm -rf "$E"' EXIT
mkdrive() {  # mkdrive NAME ZONED [zones in use]
  local q=$E/sys/block/$1/queue
  mkdir -p "$q" "$E/sys/block/$1/holders" "$E/dev/disk/by-id"
  echo "$2" >"$q/zoned"
  echo 16 >"$q/nr_zones"
  echo 131072 >"$q/chunk_sectors"           # 64 MiB zones
  echo 2097152 >"$E/sys/block/$1/size"       # 1 GiB
  echo '[none] mq-deadline kyber' >"$q/scheduler"
  echo "${3:-0}" >"$E/used-$1"
  truncate -s 1G "$E/dev/$1"
  ln -s "../../$1" "$E/dev/disk/by-id/emu-$1"
}
mkdrive zns0 host-managed
mkdrive zns1 host-managed
mkdrive used0 host-managed 3
mkdrive aware0 host-aware
mkdrive fs0 host-managed
mkfs.ext4 -q -F "$E/dev/fs0"
cat >"$E/blkzone" <<'FAKE'
#!/bin/sh
# A canned `blkzone report DEV`: 16 zones of 64 MiB, the first N (used-NAME) not empty.
[ "$1" = report ] || exit 2
n=$(basename "$2"); used=$(cat "$(dirname "$0")/used-$n")
i=0
while [ $i -lt 16 ]; do
  if [ $i -lt "$used" ]; then c='4(cl)'; w=0x000800; else c='1(em)'; w=0x000000; fi
  printf '  start: 0x%09x, len 0x020000, cap 0x020000, wptr %s reset:0 non-seq:0, zcond:%2s [type: 2(SEQ_WRITE_REQUIRED)]\n' \
    $((i * 131072)) "$w" "$c"
  i=$((i + 1))
done
FAKE
chmod +x "$E/blkzone"

# run_preflight NAME [ansible-playbook args...]: the preflight tag of site.yml on localhost.
run_preflight() {
  local name=$1
  shift
  ansible-playbook -i "$E/inventory.yml" site.yml --tags preflight "$@" >"$E/$name.log" 2>&1
}
inventory() {  # inventory DATA-DRIVE...
  {
    echo "all: {children: {smrstore_hosts: {hosts: {localhost: {ansible_connection: local,"
    echo "  ansible_python_interpreter: /usr/bin/python3,"
    echo "  smrstore_preflight_sysfs_root: $E/sys, smrstore_preflight_blkzone: $E/blkzone,"
    echo "  smrstore_preflight_ceph_volume: $E/no-ceph-volume, smrstore_udev_rule: $E/udev.rules,"
    echo "  smrstore_osds: [{data: [$(printf "$E/dev/disk/by-id/emu-%s," "$@" | sed 's/,$//')]}]}}}}}"
  } >"$E/inventory.yml"
}
recap() { sed -n 's/^localhost *: *//p' "$E/$1.log" | tr -s ' ' | sed 's/ $//'; }

inventory zns0 zns1
run_preflight check --check || { tail -n 30 "$E/check.log"; die "check mode of the preflight failed on clean drives"; }
grep -q '^localhost *: ok=.* changed=2 ' "$E/check.log" ||
  { tail -n 30 "$E/check.log"; die "check mode should report 2 changes (scheduler, udev rule): $(recap check)"; }
grep -qx '\[none\] mq-deadline kyber' "$E/sys/block/zns0/queue/scheduler" || die "check mode changed the scheduler"
[ ! -e "$E/udev.rules" ] || die "check mode wrote the udev rule"
log "check mode on two clean host-managed drives: $(recap check) (nothing written)"

for bad in "fs0:holds a ext4 signature" "used0:holds data: 3 of 16 sequential zones are not empty" \
           "aware0:not host-managed (queue/zoned = host-aware)"; do
  d=${bad%%:*}
  inventory zns0 "$d"
  if run_preflight "bad-$d" --check; then die "the preflight accepted $d (${bad#*:})"; fi
  grep -qF "emu-$d ($d): ${bad#*:}" "$E/bad-$d.log" ||
    { tail -n 20 "$E/bad-$d.log"; die "the refusal of $d does not say '${bad#*:}'"; }
  log "refused $d: ${bad#*:}"
done

inventory zns0 zns1
run_preflight first || { tail -n 30 "$E/first.log"; die "the preflight run failed"; }
grep -qx 'mq-deadline' "$E/sys/block/zns0/queue/scheduler" || die "the scheduler was not set"
grep -q 'ATTR{queue/scheduler}="mq-deadline"' "$E/udev.rules" || die "no udev rule written"
run_preflight second || { tail -n 30 "$E/second.log"; die "the second preflight run failed"; }
grep -q '^localhost *: ok=.* changed=0 ' "$E/second.log" || die "second run not idempotent: $(recap second)"
log "first run: $(recap first); second run: $(recap second)"
log "all passed in $(($(date +%s) - t0)) s"
