#!/bin/bash
# RADOS on Debian's ceph-osd 16.2.15 running smrstore (LD_PRELOAD, qa/ceph/lib.sh): a private
# cluster of 4 smrstore OSDs, cephx, a replicated pool of size 3 (min_size 2), and
#   - HEALTH_OK; `ceph osd metadata N` says osd_objectstore smrstore for every OSD;
#   - `rados bench` write (15 s, --no-cleanup), seq, rand; then EVERY bench object read back
#     (librados) and compared with the bench's own deterministic pattern;
#   - 200 objects of random sizes 1 B - 4 MiB from /dev/urandom, sha256 recorded client-side,
#     `rados put`, `rados get` + compare, and again through librados;
#   - omap and xattr round trips (CLI and librados: 5000-key omap paged, removals, clear);
#   - `ceph pg deep-scrub` of every PG, waits until each PG's deep-scrub stamp moved: no
#     inconsistent PG (`rados list-inconsistent-pg`), no scrub errors;
#   - no OSD log says "had timed out" and `ceph health detail` (polled every 2 s) never
#     showed SLOW_OPS.
# Prints a PASS/FAIL line per check with its figures, and the wall time. Exits non-zero on
# any failure; the cluster is stopped on exit (the scratch dir is removed on success).
#   bash qa/ceph/0004_osd_rados.sh [SCRATCH_DIR]
# Uses $SMRSTORE_OSD_LIB (lib.sh's default: build/src/os/smrstore/osd/libsmrstore_osd.so).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"   # also when started as `sh SCRIPT`
set -eu
if [ $# -ge 1 ] && [ -f "$1" ]; then shift; fi   # a TOOL argument (run.sh, make): not used
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
QA="/usr/bin/python3 $here/osdqa.py"
t_start=$(date +%s)
ceph_qa_scratch osd-rados "${1:-}"   # sets $scratch, $cl; stops the cluster on exit
cd "$scratch"
pool=rb
secs() { echo $(( $(date +%s) - $1 )); }
health_ok() { ceph health 2>/dev/null | grep -q '^HEALTH_OK'; }

t=$(date +%s)
ceph_cluster_start "$cl" --objectstore smrstore --osds 4 --size 3 --cephx || { echo "FAIL cluster start"; exit 1; }
ceph_health_watch_start "$cl"
ceph_pool_create $pool 32 3 || { echo "FAIL pool create"; exit 1; }
if _cq_wait 120 HEALTH_OK "" health_ok; then
  ceph_qa_pass "HEALTH_OK: 4 smrstore OSDs, pool $pool size 3/min_size 2, 32 PGs, $(secs $t) s from start"
else
  ceph_qa_fail "HEALTH_OK not reached: $(ceph health detail 2>&1 | head -n 5 | tr '\n' ' ')"
fi

# osd metadata
stores=$(for i in 0 1 2 3; do ceph osd metadata $i -f json 2>/dev/null | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin).get("osd_objectstore"))'; done | tr '\n' ' ')
if [ "$stores" = "smrstore smrstore smrstore smrstore " ]; then
  ceph_qa_pass "osd metadata: osd_objectstore = $stores"
else
  ceph_qa_fail "osd metadata: osd_objectstore = '$stores'"
fi

# rados bench: write, seq, rand (seq and rand compare every object they read themselves)
field() { sed -n "s/^$1:[[:space:]]*//p" "$2" | head -n 1; }
if rados -p $pool bench 15 write --no-cleanup >bench-write.out 2>&1; then
  writes=$(field 'Total writes made' bench-write.out)
  ceph_qa_pass "bench write 15 s: $writes x 4 MiB objects, $(field 'Bandwidth (MB\/sec)' bench-write.out) MB/s, avg lat $(field 'Average Latency(s)' bench-write.out) s, max $(field 'Max latency(s)' bench-write.out) s"
else
  writes=0; ceph_qa_fail "bench write: $(tail -n 5 bench-write.out | tr '\n' ' ')"
fi
for mode in seq rand; do
  dur=60; [ $mode = rand ] && dur=10
  if rados -p $pool bench $dur $mode >bench-$mode.out 2>&1 && ! grep -q -i 'not correct\|error' bench-$mode.out; then
    ceph_qa_pass "bench $mode: $(field 'Total reads made' bench-$mode.out) reads, $(field 'Bandwidth (MB\/sec)' bench-$mode.out) MB/s, avg lat $(field 'Average Latency(s)' bench-$mode.out) s"
  else
    ceph_qa_fail "bench $mode: $(grep -i -m3 'not correct\|error' bench-$mode.out | tr '\n' ' ') $(tail -n 3 bench-$mode.out | tr '\n' ' ')"
  fi
done
if [ "$(field 'Total reads made' bench-seq.out)" = "$writes" ]; then
  ceph_qa_pass "bench seq read all $writes objects the write phase made"
else
  ceph_qa_fail "bench seq read $(field 'Total reads made' bench-seq.out) objects, write made $writes"
fi
if out=$($QA bench-verify --pool $pool --expect "$writes" 2>>client.err); then
  ceph_qa_pass "every bench object byte-exact against the bench pattern (librados): $out"
else
  ceph_qa_fail "bench objects: $out"; ceph_qa_osd_tails "$cl"
fi

# 200 objects of random sizes, sha256 recorded client-side; rados put / rados get
mkdir -p objs got
: >own.manifest
for i in $(seq -w 1 200); do
  case $i in
    001) n=1 ;; 002) n=4095 ;; 003) n=4096 ;; 004) n=4097 ;; 005) n=65536 ;; 006) n=4194304 ;;
    *) n=$(( ( (RANDOM << 15) | RANDOM ) % 4194304 + 1 )) ;;
  esac
  head -c $n /dev/urandom >objs/own.$i
  echo "PUT own.$i $(sha256sum <objs/own.$i | cut -d' ' -f1) $n" >>own.manifest
done
own_bytes=$(awk '{s += $4} END {print s}' own.manifest)
t=$(date +%s%N)
if (cd objs && ls | xargs -P 4 -I{} rados -p $pool put {} {}) 2>>client.err; then
  ms=$(( ($(date +%s%N) - t) / 1000000 ))
  ceph_qa_pass "rados put of 200 objects, $own_bytes bytes (1 B - 4 MiB), 4 in parallel: $ms ms, $(( own_bytes / 1000 / (ms + 1) )) MB/s"
else
  ceph_qa_fail "rados put failed: $(tail -n 3 client.err | tr '\n' ' ')"
fi
t=$(date +%s%N)
(cd got && cut -d' ' -f2 ../own.manifest | xargs -P 4 -I{} rados -p $pool get {} {}) 2>>client.err || true
ms=$(( ($(date +%s%N) - t) / 1000000 ))
bad=0
while read -r _ name sum size; do
  if [ ! -f "got/$name" ] || [ "$(stat -c %s "got/$name")" != "$size" ] || [ "$(sha256sum <"got/$name" | cut -d' ' -f1)" != "$sum" ]; then
    bad=$((bad + 1)); [ $bad -gt 3 ] || echo "    mismatch: $name" >&2
  fi
done <own.manifest
if [ $bad -eq 0 ]; then
  ceph_qa_pass "rados get of 200 objects: sha256 and size equal the client's record ($ms ms, $(( own_bytes / 1000 / (ms + 1) )) MB/s)"
else
  ceph_qa_fail "rados get: $bad of 200 objects differ from the client's record"; ceph_qa_osd_tails "$cl"
fi
rm -rf got
if out=$($QA verify --pool $pool --journal own.manifest 2>>client.err); then
  ceph_qa_pass "200 objects byte-exact through librados too: $out"
else
  ceph_qa_fail "librados read of the 200 objects: $out"
fi

# omap and xattrs: the CLI, then librados in bulk
obj=cli.meta
ok=1
printf 'hello' | rados -p $pool put $obj - 2>>client.err || ok=0
rados -p $pool setxattr $obj user.one value-one 2>>client.err || ok=0
head -c 3000 /dev/urandom >xattr.bin
rados -p $pool setxattr $obj user.bin <xattr.bin 2>>client.err || ok=0
rados -p $pool setomapval $obj key.a val-a 2>>client.err || ok=0
rados -p $pool setomapval $obj key.b <xattr.bin 2>>client.err || ok=0
rados -p $pool setomapheader $obj the-header 2>>client.err || ok=0
[ "$(rados -p $pool getxattr $obj user.one)" = value-one ] || { ok=0; echo "    getxattr user.one" >&2; }
rados -p $pool getxattr $obj user.bin >xattr.out 2>>client.err && cmp -s xattr.bin xattr.out || { ok=0; echo "    getxattr user.bin (3000 random bytes)" >&2; }
[ "$(rados -p $pool listxattr $obj | sort | tr '\n' ' ')" = "user.bin user.one " ] || { ok=0; echo "    listxattr: $(rados -p $pool listxattr $obj | tr '\n' ' ')" >&2; }
[ "$(rados -p $pool getomapval $obj key.a - 2>/dev/null)" = val-a ] || { ok=0; echo "    getomapval key.a" >&2; }
rados -p $pool getomapval $obj key.b omap.out >/dev/null 2>&1 && cmp -s xattr.bin omap.out || { ok=0; echo "    getomapval key.b (3000 random bytes)" >&2; }
[ "$(rados -p $pool getomapheader $obj - 2>/dev/null)" = the-header ] || { ok=0; echo "    getomapheader" >&2; }
rados -p $pool rmxattr $obj user.one 2>>client.err && rados -p $pool rmomapkey $obj key.a 2>>client.err || ok=0
[ "$(rados -p $pool listxattr $obj | tr '\n' ' ')" = "user.bin " ] || { ok=0; echo "    rmxattr" >&2; }
[ "$(rados -p $pool listomapkeys $obj | tr '\n' ' ')" = "key.b " ] || { ok=0; echo "    rmomapkey" >&2; }
if [ $ok -eq 1 ]; then
  ceph_qa_pass "CLI omap/xattr round trips: setxattr (text, 3000 B binary), listxattr, rmxattr, setomapval (text, binary), getomapval, omap header, rmomapkey"
else
  ceph_qa_fail "CLI omap/xattr round trips (see above)"
fi
if out=$($QA omap-xattr --pool $pool --objects 20 --keys 5000 2>>client.err); then
  ceph_qa_pass "librados omap/xattr: 20 objects, one with 5000 omap keys read back in pages of 512, values 0 B - 4 KiB, removals, one omap clear: $out"
else
  ceph_qa_fail "librados omap/xattr: $out"
fi

# every object the pool should hold, and nothing else
want=$(( writes + 1 + 200 + 1 + 20 ))
have=$(rados -p $pool ls 2>/dev/null | wc -l)
if [ "$have" -eq "$want" ]; then
  ceph_qa_pass "rados ls lists $have objects ($writes bench + metadata + 200 + 21 omap/xattr)"
else
  ceph_qa_fail "rados ls lists $have objects, expected $want"
fi

# deep scrub of every PG
$QA pg-field --pool $pool >scrub.before 2>>client.err
t=$(date +%s)
for pg in $(cut -d' ' -f1 scrub.before); do ceph pg deep-scrub "$pg" >/dev/null 2>&1 || echo "    ceph pg deep-scrub $pg failed" >&2; done
if _cq_wait 300 "every PG of $pool to be deep-scrubbed" "" $QA pg-newer --pool $pool --before scrub.before; then
  scrub_s=$(secs $t)
  incons=$(rados list-inconsistent-pg $pool 2>&1)
  errs=$($QA pg-field --pool $pool --field stat_sum | /usr/bin/python3 -c '
import sys, ast
print(sum(ast.literal_eval(l.split(None, 1)[1])["num_scrub_errors"] for l in sys.stdin if l.strip()))')
  hd=$(ceph health detail 2>&1)
  if [ "$incons" = "[]" ] && [ "$errs" = 0 ] && ! echo "$hd" | grep -q 'OSD_SCRUB_ERRORS\|PG_DAMAGED\|inconsistent'; then
    ceph_qa_pass "deep-scrub of all $(wc -l <scrub.before) PGs in $scrub_s s: list-inconsistent-pg $incons, 0 scrub errors, health: $(echo "$hd" | head -n 1)"
  else
    ceph_qa_fail "deep-scrub: list-inconsistent-pg '$incons', scrub errors $errs, health: $(echo "$hd" | head -n 3 | tr '\n' ' ')"
  fi
else
  ceph_qa_fail "deep-scrub did not finish within 300 s"; ceph pg ls-by-pool $pool 2>&1 | head -n 40 >&2
fi

ceph_qa_final_checks "$cl" || true
keep=; [ $# -ge 1 ] && keep=keep
ceph_qa_finish 0004_osd_rados "$t_start" $keep
