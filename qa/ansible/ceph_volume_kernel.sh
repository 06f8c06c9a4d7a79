#!/bin/bash
# `ceph-volume smrstore` on KERNEL zoned devices, inside the systemd VM of qa/vm/host after
# the ansible play deployed its cluster (smrstore OSDs on the two NVMe ZNS namespaces). Runs
# in the guest (qa/ansible/run.sh pipes it through ssh); prints PASS/FAIL lines, exits
# non-zero on a failure. What it shows, each with the guest's real devices:
#   - list: the play's OSDs, their drives by /dev/disk/by-id name, in use by the running OSD;
#   - refusals that change nothing (no OSD id, no record): a conventional virtio disk; a
#     running OSD's ZNS drive even with --force; null_blk holding an ext4 signature (in its
#     conventional zones) without --force;
#   - prepare --force on that null_blk drive (no by-id name: the kernel name), activate with
#     systemd (drop-in, ceph-volume@ and ceph-osd@ units), the OSD up and in;
#   - zap --osd-id: unit stopped and disabled, drive blank (smrstore-tool label), record and
#     drop-in gone; the id purged from the cluster.
#   ssh -F CONFIG smrvm bash -s < qa/ansible/ceph_volume_kernel.sh
set -u
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
n_osds() { ceph osd ls 2>/dev/null | wc -l; }
records() { ls /etc/ceph/smrstore 2>/dev/null | tr '\n' ' '; }
refused() {  # WHAT TEXT ARGS...
  what=$1; want=$2; shift 2
  b_osds=$(n_osds); b_rec=$(records); rc=0
  ceph-volume smrstore prepare "$@" >/tmp/cvk.out 2>/tmp/cvk.err || rc=$?
  if [ $rc -ne 0 ] && grep -q -- "$want" /tmp/cvk.err && [ "$(n_osds)" = "$b_osds" ] && [ "$(records)" = "$b_rec" ]; then
    pass "$what refused (rc $rc, nothing changed): $(tail -n1 /tmp/cvk.err | cut -c1-160)"
  else
    fail "$what: rc $rc, osds $b_osds -> $(n_osds): $(cat /tmp/cvk.err)"
  fi
}

echo "guest: $(uname -r); zoned: $(for d in /sys/block/*; do z=$(cat "$d/queue/zoned"); [ "$z" != none ] && printf '%s=%s ' "$(basename "$d")" "$z"; done)"

# --- the play's OSDs --------------------------------------------------------------------------
ceph-volume smrstore list --format json >/tmp/cvk.json 2>/tmp/cvk.err
if python3 - /tmp/cvk.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d, "no smrstore OSD on this host"
for oid, o in d.items():
    for dev in o["devices"]:
        assert dev["path"].startswith("/dev/disk/by-id/nvme-"), dev["path"]
        assert dev["state"].startswith("in use"), dev["state"]
print("%d OSD(s): %s" % (len(d), "; ".join("osd.%s on %s" % (k, ", ".join(x["path"] + " -> " + x["current_name"] for x in v["devices"])) for k, v in sorted(d.items()))))
EOF
then pass "list: the play's OSDs on ZNS drives by by-id name, held by their running OSDs"
else fail "list: $(head -c 600 /tmp/cvk.json) $(cat /tmp/cvk.err)"; fi
first_drive=$(python3 -c 'import json; d=json.load(open("/tmp/cvk.json")); print(sorted(d.items())[0][1]["devices"][0]["path"])' 2>/dev/null)

# --- refusals ---------------------------------------------------------------------------
refused "a conventional disk (/dev/vdb)" "is not a host-managed zoned drive (queue/zoned = none)" --data /dev/vdb
[ -n "$first_drive" ] && refused "a running OSD's ZNS drive, with --force" "is in use" --data "$first_drive" --force
# An ext4 file system's first MiB in null_blk's first (conventional) zone: blkid finds it.
truncate -s 64M /tmp/fs.img && mkfs.ext4 -q -F /tmp/fs.img >/dev/null 2>&1 \
  && dd if=/tmp/fs.img of=/dev/nullb0 bs=1M count=4 oflag=direct status=none
refused "null_blk holding an ext4 signature" "holds data (TYPE=ext4)" --data /dev/nullb0
ceph-volume smrstore list /dev/nullb0 >/tmp/cvk.lab 2>&1
grep -q "signatures: TYPE=ext4" /tmp/cvk.lab && pass "list /dev/nullb0: $(tr '\n' ' ' </tmp/cvk.lab | cut -c1-160)" \
  || fail "list /dev/nullb0: $(cat /tmp/cvk.lab)"

# --- prepare --force, activate with systemd, zap ------------------------------------------
t0=$(date +%s)
if ceph-volume smrstore prepare --data /dev/nullb0 --force --format json >/tmp/cvk.prep 2>/tmp/cvk.err; then
  id=$(python3 -c 'import json; print(json.load(open("/tmp/cvk.prep"))["osd_id"])')
  fsid=$(python3 -c 'import json; print(json.load(open("/tmp/cvk.prep"))["osd_fsid"])')
  pass "prepare --force on /dev/nullb0: osd.$id ($(( $(date +%s) - t0 )) s), smrstore_devices: $(cat /var/lib/ceph/osd/ceph-$id/smrstore_devices)"
else
  fail "prepare --force /dev/nullb0: $(cat /tmp/cvk.err)"; id=
fi
if [ -n "$id" ]; then
  if ceph-volume smrstore activate "$id" "$fsid" >/tmp/cvk.act 2>&1; then
    up=0
    for _ in $(seq 1 120); do
      ceph osd dump -f json 2>/dev/null | python3 -c "import json,sys; o=[x for x in json.load(sys.stdin)['osds'] if x['osd']==$id]; sys.exit(0 if o and o[0]['up'] else 1)" && { up=1; break; }
      sleep 2
    done
    en=$(systemctl is-enabled "ceph-volume@smrstore-$id-$fsid" 2>&1)
    mdwe=$(systemctl show -p MemoryDenyWriteExecute "ceph-osd@$id" | cut -d= -f2)
    if [ $up = 1 ] && systemctl is-active -q "ceph-osd@$id" && [ "$en" = enabled ] && [ -f "/etc/systemd/system/ceph-osd@$id.service.d/smrstore.conf" ]; then
      pass "activate (systemd): ceph-osd@$id active and up, ceph-volume@smrstore-$id-… $en, drop-in present, MemoryDenyWriteExecute=$mdwe"
    else
      fail "activate osd.$id: up=$up active=$(systemctl is-active "ceph-osd@$id") enabled=$en; $(cat /tmp/cvk.act); $(journalctl -u "ceph-osd@$id" -n 5 --no-pager 2>&1)"
    fi
  else
    fail "activate osd.$id: $(cat /tmp/cvk.act)"
  fi
  if ceph-volume smrstore zap --osd-id "$id" >/tmp/cvk.zap 2>&1 \
     && [ "$(smrstore-tool label zbd:/dev/nullb0 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["smrstore"])')" = False ] \
     && [ ! -e "/etc/systemd/system/ceph-osd@$id.service.d/smrstore.conf" ] && ! ls /etc/ceph/smrstore | grep -q -- "-$id-$fsid" \
     && ! systemctl is-active -q "ceph-osd@$id" && [ "$(systemctl is-enabled "ceph-volume@smrstore-$id-$fsid" 2>&1)" != enabled ]; then
    pass "zap --osd-id $id: $(cat /tmp/cvk.zap); unit stopped and disabled, drive blank, drop-in and record gone"
  else
    fail "zap --osd-id $id: $(cat /tmp/cvk.zap)"
  fi
  ceph osd purge "$id" --yes-i-really-mean-it >/dev/null 2>&1 && pass "osd.$id purged from the cluster" || fail "purge osd.$id"
fi
echo "ceph-volume on kernel devices: $fails failed"
exit $((fails > 0))
