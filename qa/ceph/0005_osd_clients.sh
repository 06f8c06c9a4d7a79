#!/bin/bash
# Ceph's clients on Debian's ceph-osd 16.2.15 running smrstore (LD_PRELOAD, qa/ceph/lib.sh):
# 4 smrstore OSDs, cephx, pool size 3, radosgw; then
#   (a) an erasure-coded pool (k=2 m=1, failure domain osd) with allow_ec_overwrites (refused
#       at first, as Pacific refuses it for non-BlueStore OSDs; allowed once the mon option
#       mon_debug_no_require_bluestore_for_ec_overwrites is set): objects written, partially
#       overwritten (librados at unaligned offsets, appends, truncates; `rados put --offset`),
#       read back byte-exact against a client-side model;
#   (b) RBD (python3-rbd + the rbd CLI): `rbd import` of 128 MiB random data, `rbd export`
#       equal; snapshot, overwrites, the snapshot still exports the old data, `rbd snap
#       rollback` restores it; 4096 random 4 KiB writes through librbd against a client-side
#       model, `rbd export` equals the model; `rbd bench` 4 KiB random writes (16 MiB), two
#       exports equal, and equal again after an OSD restart;
#   (c) radosgw with boto3: buckets, small and multipart objects read back, a bucket in ONE
#       index shard (rgw_override_bucket_index_max_shards = 1 in ceph.conf) with 10,000 keys put by 16
#       threads, its paginated listing equals the client's set, deletes;
#   and no OSD log says "had timed out", `ceph health detail` (polled) never showed SLOW_OPS.
# Prints a PASS/FAIL line per check with its figures, and the wall time. Exits non-zero on
# any failure; the cluster is stopped on exit (the scratch dir is removed on success).
#   bash qa/ceph/0005_osd_clients.sh [SCRATCH_DIR]
#   env: QA_RGW_KEYS (default 10000) keys in the single-shard bucket
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"   # also when started as `sh SCRIPT`
set -eu
if [ $# -ge 1 ] && [ -f "$1" ]; then shift; fi   # a TOOL argument (run.sh, make): not used
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
QA="/usr/bin/python3 $here/osdqa.py"
t_start=$(date +%s)
ceph_qa_scratch osd-clients "${1:-}"
cd "$scratch"
secs() { echo $(( $(date +%s) - $1 )); }
health_ok() { ceph health 2>/dev/null | grep -q '^HEALTH_OK'; }
rgw_port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

t=$(date +%s)
# new buckets get ONE index shard (radosgw reads this at start)
CEPH_QA_EXTRA_CONF="rgw override bucket index max shards = 1" \
ceph_cluster_start "$cl" --objectstore smrstore --osds 4 --size 3 --cephx --rgw "$rgw_port" \
  || { echo "FAIL cluster start"; exit 1; }
ceph_health_watch_start "$cl"
echo "cluster with radosgw on :$rgw_port up in $(secs $t) s"

# ---- (a) erasure-coded pool with overwrites
t=$(date +%s)
ceph osd erasure-code-profile set ec21 k=2 m=1 crush-failure-domain=osd >/dev/null 2>&1
ceph osd pool create ecp 16 16 erasure ec21 >/dev/null 2>&1
ceph osd pool application enable ecp rados >/dev/null 2>&1
if ceph osd pool set ecp allow_ec_overwrites true >ec-refused.out 2>&1; then
  echo "note: allow_ec_overwrites accepted without the mon option" >&2
  refused=no
else
  refused="yes ($(head -n 1 ec-refused.out))"
fi
ceph config set mon mon_debug_no_require_bluestore_for_ec_overwrites true
if ceph osd pool set ecp allow_ec_overwrites true >ec-set.out 2>&1; then
  ceph_qa_pass "EC k=2 m=1 pool: allow_ec_overwrites refused without the mon option: $refused; set with it"
else
  ceph_qa_fail "EC: allow_ec_overwrites not set even with the mon option: $(cat ec-set.out)"
fi
_cq_wait 120 "EC pool PGs active" "" _cq_pool_active ecp 16 || ceph_qa_fail "EC pool PGs not active"
if out=$($QA ec --pool ecp --objects 30 --overwrites 600 --manifest ec.manifest 2>>client.err); then
  ceph_qa_pass "EC overwrites (librados: unaligned partial writes, appends, truncates) byte-exact vs model: $out"
else
  ceph_qa_fail "EC overwrites: $out"; ceph_qa_osd_tails "$cl"
fi
# the CLI: rados put --offset into an EC object, model by dd
head -c 1000000 /dev/urandom >ec.base; head -c 12345 /dev/urandom >ec.patch
cp ec.base ec.model
dd if=ec.patch of=ec.model bs=12345 seek=777777 oflag=seek_bytes conv=notrunc status=none
dd if=ec.patch of=ec.model bs=12345 seek=1000000 oflag=seek_bytes conv=notrunc status=none
if rados -p ecp put cli.ec ec.base 2>>client.err && rados -p ecp put cli.ec ec.patch --offset 777777 2>>client.err \
   && rados -p ecp put cli.ec ec.patch --offset 1000000 2>>client.err && rados -p ecp get cli.ec ec.got 2>>client.err \
   && cmp -s ec.got ec.model; then
  ceph_qa_pass "EC: rados put --offset (inside, and extending at the end) then rados get equals the dd model ($(stat -c %s ec.model) bytes)"
else
  ceph_qa_fail "EC: rados put --offset / get differs from the model ($(stat -c %s ec.got 2>/dev/null) vs $(stat -c %s ec.model) bytes)"
fi
if out=$($QA verify --pool ecp --journal ec.manifest 2>>client.err); then
  ceph_qa_pass "EC objects re-read in a fresh client: $out ($(secs $t) s for (a))"
else
  ceph_qa_fail "EC re-read: $out"
fi

# ---- (b) RBD
t=$(date +%s)
ceph osd pool create rbdp 16 16 replicated >/dev/null 2>&1 && ceph osd pool set rbdp min_size 2 >/dev/null 2>&1
rbd pool init rbdp
_cq_wait 120 "pool rbdp active" "" _cq_pool_active rbdp 16 || ceph_qa_fail "pool rbdp not active"
head -c 128M /dev/urandom >base.img
sum() { sha256sum "$1" | cut -d' ' -f1; }
base_sum=$(sum base.img)
t1=$(date +%s%N)
if rbd import --no-progress base.img rbdp/img 2>>client.err; then
  ms=$(( ($(date +%s%N) - t1) / 1000000 ))
  rbd export --no-progress rbdp/img e0.img 2>>client.err
  if [ "$(sum e0.img)" = "$base_sum" ]; then
    ceph_qa_pass "rbd import of 128 MiB random data ($ms ms, $(( 134217728 / 1000 / (ms + 1) )) MB/s), rbd export sha256 equal"
  else
    ceph_qa_fail "rbd export after import differs from the imported file"
  fi
else
  ceph_qa_fail "rbd import failed: $(tail -n 3 client.err | tr '\n' ' ')"
fi
rm -f e0.img
rbd snap create rbdp/img@s1 2>>client.err
if out=$($QA rbd --pool rbdp --image img --base-file base.img --model-out m1.img --step overwrite 2>>client.err); then
  ceph_qa_pass "rbd: 200 unaligned overwrites (1 B - 1 MiB) after snapshot s1 read back equal to the model: $out"
else
  ceph_qa_fail "rbd overwrites: $out"
fi
rbd export --no-progress rbdp/img@s1 snap.img 2>>client.err
[ "$(sum snap.img)" = "$base_sum" ] && ceph_qa_pass "rbd export of snapshot s1 after the overwrites equals the original data" \
  || ceph_qa_fail "rbd export of s1 differs from the original data"
rbd snap rollback --no-progress rbdp/img@s1 2>>client.err
rbd export --no-progress rbdp/img e1.img 2>>client.err
[ "$(sum e1.img)" = "$base_sum" ] && ceph_qa_pass "rbd snap rollback: export equals the pre-overwrite data" \
  || ceph_qa_fail "rbd snap rollback: export differs from the pre-overwrite data ($(sum m1.img | cut -c1-12) is the overwritten one; got $(sum e1.img | cut -c1-12))"
rm -f e1.img snap.img m1.img
if out=$($QA rbd --pool rbdp --image img --base-file base.img --model-out m2.img --step random4k --count 4096 2>>client.err); then
  rbd export --no-progress rbdp/img e2.img 2>>client.err
  if cmp -s e2.img m2.img; then
    ceph_qa_pass "rbd: 4096 random 4 KiB writes (librbd aio, 16 in flight), sequential rbd export equals the client model: $out"
  else
    ceph_qa_fail "rbd: export after 4096 random 4 KiB writes differs from the model ($(cmp e2.img m2.img | head -n 1))"
  fi
else
  ceph_qa_fail "rbd random 4 KiB writes: $out"
fi
rm -f e2.img m2.img
if rbd bench --io-type write --io-pattern rand --io-size 4K --io-total 16M rbdp/img >rbd-bench.out 2>&1; then
  ceph_qa_pass "rbd bench 4 KiB random writes, 16 MiB: $(grep -m1 '^elapsed' rbd-bench.out)"
else
  ceph_qa_fail "rbd bench: $(tail -n 3 rbd-bench.out | tr '\n' ' ')"
fi
rbd export --no-progress rbdp/img e3.img 2>>client.err
rbd export --no-progress rbdp/img e4.img 2>>client.err
e3=$(sum e3.img)
[ "$e3" = "$(sum e4.img)" ] && ceph_qa_pass "rbd: two exports after rbd bench are equal" \
  || ceph_qa_fail "rbd: two exports after rbd bench differ"
rm -f e4.img
t1=$(date +%s)
if ceph_osd_stop "$cl" 1 && ceph_osd_start "$cl" 1 && ceph_wait_clean 180; then
  rbd export --no-progress rbdp/img e5.img 2>>client.err
  [ "$e3" = "$(sum e5.img)" ] && ceph_qa_pass "rbd: export after an OSD restart (osd.1, clean again in $(secs $t1) s) equals the one before" \
    || ceph_qa_fail "rbd: export after restarting osd.1 differs from the one before"
else
  ceph_qa_fail "restarting osd.1 / back to active+clean"; ceph_qa_osd_tails "$cl" 1
fi
rbd export --no-progress rbdp/img@s1 snap.img 2>>client.err
[ "$(sum snap.img)" = "$base_sum" ] && ceph_qa_pass "rbd: snapshot s1 still exports the original data ($(secs $t) s for (b))" \
  || ceph_qa_fail "rbd: snapshot s1 no longer exports the original data"
rm -f e3.img e5.img snap.img base.img

# ---- (c) radosgw + boto3
t=$(date +%s)
keys=${QA_RGW_KEYS:-10000}
radosgw-admin user create --uid qa --display-name qa --access-key qaaccess --secret-key qasecret >/dev/null 2>>client.err
rm -f pause pause.ready
$QA rgw --port "$rgw_port" --access qaaccess --secret qasecret --keys "$keys" --threads 16 --pause-file pause >rgw.out 2>>client.err &
rgw_pid=$!
rgw_ready() { [ -e pause.ready ] || ! kill -0 $rgw_pid 2>/dev/null; }
_cq_wait 900 "the $keys keys to be put and listed" "" rgw_ready || true
if [ -e pause.ready ]; then
  bid=$(radosgw-admin bucket stats --bucket qa-many 2>/dev/null | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["id"], d.get("num_shards", "?"))')
  shards=${bid#* }; bid=${bid% *}
  idx=$(rados -p default.rgw.buckets.index ls 2>/dev/null | grep -F "$bid" || true)
  nidx=$(echo "$idx" | grep -c . || true)
  nkeys=$(for o in $idx; do rados -p default.rgw.buckets.index listomapkeys "$o"; done 2>/dev/null | wc -l)
  if [ "$shards" = 1 ] && [ "$nidx" = 1 ] && [ "$nkeys" -ge "$keys" ]; then
    ceph_qa_pass "rgw bucket qa-many: num_shards 1, 1 index object ($idx) holding $nkeys omap keys"
  else
    ceph_qa_fail "rgw bucket qa-many: num_shards $shards, $nidx index objects, $nkeys omap keys (want 1, 1, >= $keys)"
  fi
fi
touch pause
if wait $rgw_pid; then
  ceph_qa_pass "rgw (boto3): $(cat rgw.out) ($(secs $t) s for (c))"
else
  ceph_qa_fail "rgw (boto3): $(cat rgw.out) $(tail -n 3 client.err | tr '\n' ' ')"; _cq_tail "$cl/log/client.rgw.x.log"
fi

ceph_qa_final_checks "$cl" || true
keep=; [ $# -ge 1 ] && keep=keep
ceph_qa_finish 0005_osd_clients "$t_start" $keep
