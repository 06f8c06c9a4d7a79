#!/bin/bash
# Faults on Debian's ceph-osd 16.2.15 running smrstore (LD_PRELOAD, qa/ceph/lib.sh): 4 smrstore
# OSDs on small emulated drives (2 x 24 zones x 16 MiB each, so that zone GC must run), cephx,
# one replicated pool of size 3. Every write is made by qa/ceph/osdqa.py writers that record
# an object (name, sha256, size; or its deletion) only after the write returned; after every
# phase EVERY acknowledged object of every phase so far is read back and compared.
#   (f1) ceph-objectstore-tool on a stopped smrstore OSD: --op list, fsck, info, log,
#        get-bytes, export of a PG; --op import of that export into a stopped FileStore OSD of
#        a second cluster, whose OSD then serves the objects (run first: the import needs the
#        target OSD's map epoch >= the export's, kept small this way)
#   (a)  kill -9 of ALL OSDs at once under writes; restart all; every acked object reads back
#   (b)  kill -9 of one OSD under writes; restart it; recovery to active+clean; data correct
#   (c)  backfill: pg log of 10 entries, one OSD out + stopped, writes trim the logs, OSD
#        back in: PG states show backfill onto it, then active+clean, data correct
#   (d)  PG split 8 -> 32 and merge 32 -> 8 under writes (autoscale off), data intact
#   (e)  one flipped byte in an object's data on one OSD's drive file (found by searching
#        the drive files of the stopped OSD for the object's pattern): deep-scrub finds the
#        inconsistency, `ceph pg repair` fixes it, the object reads back correctly; then the
#        same on the PG's primary, read by a client first
#   (g)  zone GC: overwrite/delete churn until every OSD's `smrstore stats` shows zones
#        reset by GC; data correct afterwards
#   (f2) final deep-scrub of every PG: 0 inconsistent; ceph-objectstore-tool --op fsck of
#        each stopped OSD
#   and no OSD log says "had timed out", `ceph health detail` (polled) never showed SLOW_OPS.
# Prints a PASS/FAIL line per check with its figures, and the wall time. Exits non-zero on
# any failure; both clusters are stopped on exit (the scratch dir is removed on success).
#   bash qa/ceph/0006_osd_faults.sh [SCRATCH_DIR]     (make test-osd-faults)
#   env: SMRSTORE_QA_DRIVES (see lib.sh; default here: the small drives above)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"   # also when started as `sh SCRIPT`
set -eu
if [ $# -ge 1 ] && [ -f "$1" ]; then shift; fi   # a TOOL argument (run.sh, make): not used
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
QA="/usr/bin/python3 $here/osdqa.py"
t_start=$(date +%s)
export SMRSTORE_QA_DRIVES=${SMRSTORE_QA_DRIVES_FAULTS:-"emu:@DIR@/drive0.img?zones=24&zone_mib=16&conv=2 emu:@DIR@/drive1.img?zones=24&zone_mib=16&conv=2"}
ceph_qa_scratch osd-faults "${1:-}"
cl2="$scratch/cluster2"
cleanup_all() {
  [ -n "${wpid:-}" ] && kill -TERM "$wpid" 2>/dev/null || true
  [ -n "${ppid_:-}" ] && kill -TERM "$ppid_" 2>/dev/null || true
  ceph_qa_cleanup
  if [ -d "$cl2/run" ]; then ceph_cluster_stop "$cl2" || true; fi
}
trap cleanup_all EXIT
cd "$scratch"
pool=fp
secs() { echo $(( $(date +%s) - $1 )); }
otool() { LD_PRELOAD=$SMRSTORE_OSD_LIB ceph-objectstore-tool --no-mon-config --data-path "$@"; }
jcount() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }
rec_ge() { [ "$(jcount "$1")" -ge "$2" ]; }

# writer_start NAME ARGS...: a background writer on $pool, journal NAME.journal
wpid=
writer_start() {
  _wn=$1; shift
  rm -f "$_wn.stop"
  $QA writer --pool $pool --prefix "$_wn" --journal "$_wn.journal" --stop-file "$_wn.stop" "$@" \
    >"$_wn.writer.out" 2>>client.err &
  wpid=$!
  journals="$journals $_wn.journal"
}
# writer_stop NAME: stops it (it finishes the ops in flight), prints its figures
writer_stop() {
  touch "$1.stop"
  if ! _cq_wait 300 "writer $1 to finish its ops in flight" "" sh -c "! kill -0 $wpid 2>/dev/null"; then
    ceph_qa_fail "writer $1 did not stop within 300 s of its stop file (ops stuck?)"
    ceph health detail 2>&1 | head -n 10 >&2; kill -TERM "$wpid" 2>/dev/null || true
  fi
  wait "$wpid" || echo "    writer $1 exited non-zero (errors recorded, not journaled)" >&2
  wpid=
  echo "    writer $1: $(cat "$1.writer.out")"
}
journals=
# verify_all LABEL: every acknowledged object of every journal so far
verify_all() {
  # shellcheck disable=SC2086
  if _vo=$($QA verify --pool $pool $(printf -- '--journal %s ' $journals) 2>>client.err); then
    ceph_qa_pass "$1: every acknowledged object byte-exact: $_vo"
  else
    ceph_qa_fail "$1: $_vo"; ceph_qa_osd_tails "$cl"
  fi
}
gc_field() {  # ID: "zones_reset runs live_moved gc_bytes wa lifetime_wa"
  ceph --admin-daemon "$cl/run/osd.$1.asok" smrstore stats 2>/dev/null | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin); g = d["gc"]; io = d["io"]
print(g["zones_reset"], g["runs"], g["live_moved"], g["bytes_written"], io["write_amplification"],
      io["lifetime_write_amplification"], "|".join(x["zonemap"] for x in d["drives"]))'
}
smr_io() {  # ID FIELD: io.FIELD of the OSD's `smrstore stats`
  ceph --admin-daemon "$cl/run/osd.$1.asok" smrstore stats 2>/dev/null | /usr/bin/python3 -c '
import json, sys; print(json.load(sys.stdin)["io"][sys.argv[1]])' "$2"
}
all_up_clean() { ceph_wait_clean "${1:-300}"; }

t=$(date +%s)
ceph_cluster_start "$cl" --objectstore smrstore --osds 4 --size 3 --cephx || { echo "FAIL cluster start"; exit 1; }
ceph_health_watch_start "$cl"
ceph_pool_create $pool 8 3 >/dev/null 2>&1 || { echo "FAIL pool create"; exit 1; }
fpid=$(ceph osd pool ls detail -f json | /usr/bin/python3 -c 'import json,sys; print([p["pool_id"] for p in json.load(sys.stdin) if p["pool_name"] == "'$pool'"][0])')
# smrstore is an HDD to Ceph: 0.1 s of osd_recovery_sleep_hdd per recovery op would make
# every recovery/backfill/split phase take minutes (7 objects/s measured)
ceph config set osd osd_recovery_sleep_hdd 0
echo "cluster up in $(secs $t) s; pool $pool id $fpid, 8 PGs, size 3; drives per OSD: $SMRSTORE_QA_DRIVES"

# ---------------------------------------------------------------- (f1) objectstore tool
t=$(date +%s)
writer_start f --names 300 --min-size 1 --max-size 65536 --threads 4 --seconds 8
wait "$wpid" || true; wpid=; cat f.writer.out
all_up_clean 120 || true
verify_all "(f1) before the tool"
# the fp PG with most objects whose acting set holds osd.0
pg=$(ceph pg ls-by-pool $pool -f json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin); pgs = d["pg_stats"] if isinstance(d, dict) else d
c = [(p["stat_sum"]["num_objects"], p["pgid"]) for p in pgs if 0 in p["acting"]]
print(max(c)[1])')
pg_objs=$(ceph pg ls-by-pool $pool -f json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin); pgs = d["pg_stats"] if isinstance(d, dict) else d
print(sum(p["stat_sum"]["num_objects"] for p in pgs if 0 in p["acting"]), [p["stat_sum"]["num_objects"] for p in pgs if p["pgid"] == "'$pg'"][0])')
e1=$(ceph osd dump -f json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["epoch"])')
ceph osd set noout >/dev/null 2>&1
ceph_osd_stop "$cl" 0
tool_ok=1
if otool "$cl/osd.0" --op list >tool-list.out 2>tool.err; then
  n=$(grep -c "^\[\"$fpid\." tool-list.out || true)
  if [ "$n" = "${pg_objs% *}" ]; then
    ceph_qa_pass "(f1) ceph-objectstore-tool --op list on stopped smrstore osd.0: $n objects of pool $pool (= PG stats), $(wc -l <tool-list.out) in all"
  else
    ceph_qa_fail "(f1) --op list: $n objects of pool $pool, PG stats say ${pg_objs% *}"; tool_ok=0
  fi
else
  ceph_qa_fail "(f1) --op list failed: $(tail -n 3 tool.err | tr '\n' ' ')"; tool_ok=0
fi
for op in fsck info log; do
  extra=; [ $op = fsck ] || extra="--pgid $pg"
  # shellcheck disable=SC2086
  if otool "$cl/osd.0" --op $op $extra >tool-$op.out 2>tool.err; then
    ceph_qa_pass "(f1) --op $op $extra: exit 0, $(wc -c <tool-$op.out) bytes of output$( [ $op = fsck ] && echo ": $(head -c 200 tool-fsck.out | tr '\n' ' ')")"
  else
    ceph_qa_fail "(f1) --op $op $extra: $(tail -n 3 tool.err | tr '\n' ' ')"
  fi
done
# get-bytes of one object, compared with its journal record
gobj=$(grep "^\[\"$pg\"" tool-list.out | grep -F '"oid":"f.' | head -n 1 || true)
if [ -n "$gobj" ]; then
  gname=$(echo "$gobj" | /usr/bin/python3 -c 'import json,sys; print(json.loads(sys.stdin.read())[1]["oid"])')
  want=$(grep " $gname " f.journal | tail -n 1 | cut -d' ' -f3)
  if otool "$cl/osd.0" "$gobj" get-bytes gb.out 2>tool.err && [ "$(sha256sum <gb.out | cut -d' ' -f1)" = "$want" ]; then
    ceph_qa_pass "(f1) get-bytes of $gname from the stopped OSD equals the client's record ($(stat -c %s gb.out) bytes)"
  else
    ceph_qa_fail "(f1) get-bytes of $gname: $(tail -n 2 tool.err | tr '\n' ' ') sha differs or failed"
  fi
fi
if otool "$cl/osd.0" --op export --pgid "$pg" --file pg.export >tool-export.out 2>tool.err; then
  ceph_qa_pass "(f1) --op export --pgid $pg (${pg_objs#* } objects): $(stat -c %s pg.export) bytes"
  exported=1
else
  ceph_qa_fail "(f1) --op export --pgid $pg: $(tail -n 3 tool.err | tr '\n' ' ')"; exported=0
fi
ceph_osd_start "$cl" 0 || ceph_qa_fail "(f1) osd.0 did not come back after the tool"
ceph osd unset noout >/dev/null 2>&1
# import into a FileStore OSD of a second cluster
if [ $exported = 1 ]; then
  conf1=$CEPH_CONF
  # the same fsid: the tool refuses exports of another cluster's fsid (even with --force)
  export CEPH_QA_FSID; CEPH_QA_FSID=$(ceph fsid 2>/dev/null)
  if ceph_cluster_start "$cl2" --objectstore filestore >cluster2.out 2>&1; then
    unset CEPH_QA_FSID
    # a pool with the same id and pg_num as $pool (after the mgr's own pool, id 1)
    _cq_wait 60 "the mgr's device_health_metrics pool in cluster 2" "" ceph osd pool get device_health_metrics size || true
    i=0
    while :; do
      maxid=$(ceph osd pool ls detail -f json | /usr/bin/python3 -c 'import json,sys; print(max([p["pool_id"] for p in json.load(sys.stdin)] or [0]))')
      [ "$maxid" -lt $((fpid - 1)) ] || break
      ceph osd pool create fill$i 1 1 >/dev/null 2>&1; i=$((i + 1))
    done
    ceph osd pool create $pool 8 8 replicated >/dev/null 2>&1
    ceph osd pool set $pool size 1 --yes-i-really-mean-it >/dev/null 2>&1
    id2=$(ceph osd pool ls detail -f json | /usr/bin/python3 -c 'import json,sys; print([p["pool_id"] for p in json.load(sys.stdin) if p["pool_name"] == "'$pool'"][0])')
    [ "$id2" = "$fpid" ] || ceph_qa_fail "(f1) cluster 2's pool $pool got id $id2, not $fpid: the import cannot land in it"
    # the export carries map epoch ~$e1: the FileStore OSD must have seen at least as many
    e2() { ceph osd dump -f json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["epoch"])'; }
    while [ "$(e2)" -le $((e1 + 5)) ]; do ceph osd set noscrub >/dev/null 2>&1; ceph osd unset noscrub >/dev/null 2>&1; done
    want_e=$(e2)
    osd_has_epoch() { ceph --admin-daemon "$cl2/run/osd.0.asok" status 2>/dev/null | /usr/bin/python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["newest_map"] >= '$want_e' else 1)'; }
    _cq_wait 60 "the FileStore OSD to reach epoch $want_e" "" osd_has_epoch || true
    ceph_osd_stop "$cl2" 0
    fs() { ceph-objectstore-tool --no-mon-config --data-path "$cl2/osd.0" --journal-path "$cl2/osd.0/journal" "$@"; }
    fs --op remove --pgid "$pg" --force >imp-remove.out 2>&1 || true
    how=; fs --op import --file pg.export >imp.out 2>&1 && how="import"
    if [ -n "$how" ]; then
      ceph_osd_start "$cl2" 0 && ceph_wait_clean 120 || true
      # the objects of that PG, read in cluster 2, against cluster 1's journal
      rados -p $pool ls 2>>client.err | sort >imp-ls.out
      n_imp=$(wc -l <imp-ls.out)
      if [ "$n_imp" = "${pg_objs#* }" ] && vo=$($QA verify --pool $pool --journal <(awk 'NR==FNR {want[$1]=1; next} ($2 in want)' imp-ls.out f.journal) 2>>client.err); then
        ceph_qa_pass "(f1) $how of PG $pg into a stopped FileStore OSD of a second cluster (pool id $id2): its OSD serves the $n_imp objects byte-exact: $vo"
      else
        ceph_qa_fail "(f1) after $how into FileStore: cluster 2 lists $n_imp objects (want ${pg_objs#* }); verify: ${vo:-not run}"
        tail -n 5 imp.out >&2
      fi
    else
      ceph_qa_fail "(f1) --op import into FileStore refused: $(tail -n 4 imp.out | tr '\n' ' ')"
    fi
    ceph_cluster_stop "$cl2" || true
  else
    ceph_qa_fail "(f1) second (FileStore) cluster did not start: $(tail -n 5 cluster2.out | tr '\n' ' ')"
  fi
  export CEPH_CONF=$conf1
fi
all_up_clean 180 || ceph_qa_fail "(f1) not clean after the tool"
verify_all "(f1) after the tool ($(secs $t) s)"

# ---------------------------------------------------------------- (a) kill -9 of all OSDs
t=$(date +%s)
writer_start a --names 400 --min-size 1 --max-size 262144 --threads 8 --delete-ratio 0.05
_cq_wait 120 "writer a to have 300 acknowledged ops" "" rec_ge a.journal 300 || ceph_qa_fail "(a) writer made no progress"
pids=$(for i in 0 1 2 3; do ceph_osd_pid "$cl" $i; done | tr '\n' ' ')
# shellcheck disable=SC2086
kill -KILL $pids
for p in $pids; do while kill -0 "$p" 2>/dev/null; do sleep 0.1; done; done
acked_at_kill=$(jcount a.journal)
ceph osd down 0 1 2 3 >/dev/null 2>&1 || true
t1=$(date +%s)
sleep 3  # the writer keeps its ops in flight against the dead OSDs for a while
acked_down=$(( $(jcount a.journal) - acked_at_kill ))
ok=1
for i in 0 1 2 3; do ceph_osd_start "$cl" $i || { ok=0; ceph_qa_osd_tails "$cl" $i; }; done
if [ $ok = 1 ] && all_up_clean 300; then
  ceph_qa_pass "(a) kill -9 of all 4 OSDs with $acked_at_kill ops acknowledged (writer: 8 threads, 1 B - 256 KiB, 5% deletes); all restarted and active+clean in $(secs $t1) s; acks recorded in the 3 s after all had died: $acked_down (replies already on the wire)"
else
  ceph_qa_fail "(a) OSDs not back / not clean after kill -9 of all"
fi
_cq_wait 120 "writer a to go on after the restart" "" rec_ge a.journal $((acked_at_kill + 200)) || ceph_qa_fail "(a) writes did not resume"
writer_stop a
verify_all "(a) kill -9 of all OSDs ($(secs $t) s)"

# ---------------------------------------------------------------- (b) kill -9 of one OSD
t=$(date +%s)
writer_start b --names 400 --min-size 1 --max-size 262144 --threads 8 --delete-ratio 0.05
_cq_wait 120 "writer b to have 200 acknowledged ops" "" rec_ge b.journal 200 || true
n0=$(jcount b.journal)
ceph_osd_stop "$cl" 2 kill
_cq_wait 120 "writes to go on with osd.2 dead" "" rec_ge b.journal $((n0 + 300)) || ceph_qa_fail "(b) writes stalled with osd.2 down"
n1=$(jcount b.journal)
t1=$(date +%s)
if ceph_osd_start "$cl" 2 && all_up_clean 300; then
  ceph_qa_pass "(b) kill -9 of osd.2 at $n0 acks, $((n1 - n0)) acks while it was down, restarted: recovery to active+clean in $(secs $t1) s"
else
  ceph_qa_fail "(b) osd.2 not back / not clean"; ceph_qa_osd_tails "$cl" 2
fi
writer_stop b
all_up_clean 120 || true
verify_all "(b) kill -9 of one OSD ($(secs $t) s)"

# ---------------------------------------------------------------- (c) backfill
t=$(date +%s)
for o in osd_min_pg_log_entries osd_max_pg_log_entries osd_pg_log_trim_min; do ceph config set osd $o 10; done
ceph osd out 3 >/dev/null 2>&1
ceph_osd_stop "$cl" 3
all_up_clean 300 || ceph_qa_fail "(c) not clean with osd.3 out"
writer_start c --names 1500 --min-size 1024 --max-size 65536 --threads 8
_cq_wait 300 "1500 writes with osd.3 out" "" rec_ge c.journal 1500 || ceph_qa_fail "(c) writer too slow"
writer_stop c
max_log() { ceph pg ls-by-pool $pool -f json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin); pgs = d["pg_stats"] if isinstance(d, dict) else d
print(max(p["log_size"] for p in pgs))'; }
logs_trimmed() { [ "$(max_log)" -le 100 ]; }
_cq_wait 60 "the PG logs to be trimmed (stats refresh every 5 s)" "" logs_trimmed || ceph_qa_fail "(c) PG logs not trimmed: max $(max_log) entries"
log_len=$(max_log)
# poll PG states in the background from before osd.3 comes back
(
  set +e
  while :; do
    ceph pg dump pgs_brief -f json 2>/dev/null | /usr/bin/python3 -c '
import json, sys, time
d = json.load(sys.stdin); pgs = d["pg_stats"] if isinstance(d, dict) else d
for p in pgs:
    if "backfill" in p["state"]:
        print(time.strftime("%T"), p["pgid"], p["state"], "up", p["up"], "acting", p["acting"], flush=True)'
    sleep 1
  done
) >backfill-states.out 2>/dev/null &
ppid_=$!
# nobackfill holds the PGs in backfill_wait while we look, then backfill runs (no writes)
ceph osd set nobackfill >/dev/null 2>&1
ceph osd in 3 >/dev/null 2>&1
t1=$(date +%s)
ceph_osd_start "$cl" 3 || { ceph_qa_fail "(c) osd.3 did not start"; ceph_qa_osd_tails "$cl" 3; }
waiting_onto3() {  # prints the PGs whose up set has osd.3 but acting not, in a backfill state
  ceph pg dump pgs_brief -f json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin); pgs = d["pg_stats"] if isinstance(d, dict) else d
w = ["%s:%s" % (p["pgid"], p["state"]) for p in pgs if 3 in p["up"] and 3 not in p["acting"] and "backfill" in p["state"]]
print(" ".join(sorted(w))); sys.exit(0 if w else 1)'
}
if _cq_wait 120 "PGs waiting to backfill onto osd.3" "" waiting_onto3; then
  waiting=$(waiting_onto3 || true)
else
  waiting=
fi
ub0=$(smr_io 3 user_bytes)
ceph osd unset nobackfill >/dev/null 2>&1
all_up_clean 600 || ceph_qa_fail "(c) not clean after osd.3 came back"
ub1=$(smr_io 3 user_bytes)
kill -TERM $ppid_ 2>/dev/null; wait $ppid_ 2>/dev/null || true; ppid_=
seen=$(grep 'up \[[0-9, ]*3[],]' backfill-states.out | awk '{print $3}' | sort -u | tr '\n' ' ')
if [ -n "$waiting" ] && [ $((ub1 - ub0)) -gt 0 ]; then
  ceph_qa_pass "(c) backfill onto osd.3: $(echo $waiting | wc -w) PGs waited to backfill onto it ($waiting), states seen: $seen; osd.3's smrstore took $(( (ub1 - ub0) / 1048576 )) MiB of user writes during the backfill (no client writes then); active+clean $(secs $t1) s after it came back (max pg log $log_len entries)"
else
  ceph_qa_fail "(c) backfill onto osd.3 not shown: PGs waiting: '${waiting}', states seen: '$seen', osd.3 user bytes during backfill: $((ub1 - ub0))"
fi
for o in osd_min_pg_log_entries osd_max_pg_log_entries osd_pg_log_trim_min; do ceph config rm osd $o; done
verify_all "(c) backfill ($(secs $t) s)"

# ---------------------------------------------------------------- (d) PG split and merge
t=$(date +%s)
pgnums() { ceph osd pool ls detail -f json | /usr/bin/python3 -c '
import json, sys
p = [p for p in json.load(sys.stdin) if p["pool_name"] == "'$pool'"][0]
print(p["pg_num"], p["pg_placement_num"])'; }
pg_is() { [ "$(pgnums)" = "$1 $1" ] && _cq_pgs_clean; }
# the mgr moves 5 % of the objects per pgp_num step: that would make this phase take long
ceph config set mgr target_max_misplaced_ratio 0.5
writer_start d --names 400 --min-size 1 --max-size 131072 --threads 4 --delete-ratio 0.05
_cq_wait 60 "writer d to start" "" rec_ge d.journal 50 || true
ceph osd pool set $pool pg_num 32 >/dev/null 2>&1
if _cq_wait 600 "pg_num and pgp_num 32, clean" "" pg_is 32; then
  ceph_qa_pass "(d) split 8 -> 32 under writes: pg_num=pgp_num=32, active+clean in $(secs $t) s"
else
  ceph_qa_fail "(d) split to 32 not done: $(pgnums)"
fi
t1=$(date +%s)
ceph osd pool set $pool pg_num 8 >/dev/null 2>&1
if _cq_wait 900 "pg_num and pgp_num 8, clean" "" pg_is 8; then
  ceph_qa_pass "(d) merge 32 -> 8 under writes: pg_num=pgp_num=8, active+clean in $(secs $t1) s"
else
  ceph_qa_fail "(d) merge to 8 not done: $(pgnums)"
fi
writer_stop d
ceph config rm mgr target_max_misplaced_ratio
all_up_clean 300 || true
verify_all "(d) split and merge ($(secs $t) s)"

# ---------------------------------------------------------------- (e) one flipped byte
t=$(date +%s)
flip() {  # TOKEN FILES...: flips one byte in every occurrence of TOKEN; prints "hits file:offset..."
  /usr/bin/python3 - "$@" <<'EOF'
import os, sys
tok = sys.argv[1].encode(); hits = []
for p in sys.argv[2:]:
    fd = os.open(p, os.O_RDWR); size = os.fstat(fd).st_size; off = 0
    while off < size:
        try:
            d = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:
            break
        h = os.lseek(fd, d, os.SEEK_HOLE); pos = d
        while pos < h:
            n = min(32 << 20, h - pos); buf = os.pread(fd, n + len(tok), pos); i = buf.find(tok)
            while i != -1 and i < n:
                hits.append((p, pos + i)); i = buf.find(tok, i + 1)
            pos += n
        off = h
    for hp, ho in hits:
        if hp == p:
            b = os.pread(fd, 1, ho + 7); os.pwrite(fd, bytes([b[0] ^ 0x01]), ho + 7)
    os.close(fd)
print(len(hits), " ".join("%s:%d" % (os.path.basename(p), o) for p, o in hits))
EOF
}
# pattern object: 64 KiB of lines that begin with a token unique to this run
mkpattern() { /usr/bin/python3 -c '
import sys
tok = sys.argv[1]; out = b""; i = 0
while len(out) < 65536:
    out += b"%s-%06d|" % (tok.encode(), i); i += 1
sys.stdout.buffer.write(out[:65536])' "$1" >"$2"; }
scrub_wait() {  # PGID FIELD: waits until FIELD of the PG moved past its value in scrub.before
  _cq_wait 300 "PG $1 $2 to move" "" $QA pg-newer --pool $pool --pgid "$1" --field "$2" --before scrub.before
}
flip_case() {  # WHICH(replica|primary)
  tok="SMRQAFLIP$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  obj="flip.$1"
  mkpattern "$tok" "$obj.data"
  rados -p $pool put "$obj" "$obj.data"
  map=$(ceph osd map $pool "$obj" -f json)
  fpg=$(echo "$map" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["pgid"])')
  prim=$(echo "$map" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["acting_primary"])')
  if [ "$1" = primary ]; then victim=$prim; else
    victim=$(echo "$map" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print([o for o in d["acting"] if o != d["acting_primary"]][0])')
  fi
  ceph osd set noout >/dev/null 2>&1
  ceph_osd_stop "$cl" "$victim"
  res=$(flip "$tok-000000|" "$cl/osd.$victim"/drive*.img)
  ceph_osd_start "$cl" "$victim" || ceph_qa_osd_tails "$cl" "$victim"
  ceph osd unset noout >/dev/null 2>&1
  all_up_clean 180 || true
  if [ "${res%% *}" -lt 1 ]; then
    ceph_qa_fail "(e/$1) the pattern of $obj was not found on osd.$victim's drives: cannot corrupt it"; return
  fi
  echo "    (e/$1) $obj in PG $fpg (primary osd.$prim): flipped 1 byte on osd.$victim in ${res%% *} place(s): ${res#* }"
  how=
  if [ "$1" = primary ]; then
    # a client read first: the primary's copy is bad
    if rados -p $pool get "$obj" "$obj.got" 2>read.err; then
      if cmp -s "$obj.data" "$obj.got"; then how="client read returned correct data"; else how="client read returned WRONG data"; fi
    else
      how="client read failed: $(tr '\n' ' ' <read.err)"
    fi
    echo "    (e/$1) $how"
  fi
  $QA pg-field --pool $pool --pgid "$fpg" >scrub.before
  ceph pg deep-scrub "$fpg" >/dev/null 2>&1
  scrub_wait "$fpg" last_deep_scrub_stamp || true
  incons=$(rados list-inconsistent-obj "$fpg" --format=json 2>&1 || true)
  found=$(echo "$incons" | /usr/bin/python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception:
    print("unparsable"); sys.exit()
out = []
for x in d.get("inconsistents", []):
    errs = sorted(set(e for s in x.get("shards", []) for e in s.get("errors", [])))
    out.append("%s: %s on osd %s" % (x["object"]["name"], ",".join(errs + x.get("errors", [])),
               [s["osd"] for s in x.get("shards", []) if s.get("errors")]))
print("; ".join(out) or "none")')
  echo "    (e/$1) deep-scrub of $fpg: inconsistent: $found; health: $(ceph health 2>&1 | head -n 1)"
  $QA pg-field --pool $pool --pgid "$fpg" --field last_scrub_stamp >scrub.before
  ceph pg repair "$fpg" >/dev/null 2>&1
  _cq_wait 300 "repair of $fpg" "" $QA pg-newer --pool $pool --pgid "$fpg" --field last_scrub_stamp --before scrub.before || true
  healthy_scrub() { ! ceph health detail 2>/dev/null | grep -q 'OSD_SCRUB_ERRORS\|PG_DAMAGED'; }
  _cq_wait 60 "scrub errors to clear" "" healthy_scrub || true
  $QA pg-field --pool $pool --pgid "$fpg" >scrub.before
  ceph pg deep-scrub "$fpg" >/dev/null 2>&1
  scrub_wait "$fpg" last_deep_scrub_stamp || true
  after=$(rados list-inconsistent-obj "$fpg" --format=json 2>&1 | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin).get("inconsistents", [])))' 2>/dev/null || echo '?')
  rados -p $pool get "$obj" "$obj.got2" 2>>client.err || true
  evidence=$(grep -h "smrstore: read .*$obj.*checksum mismatch" "$cl/log/osd.$victim.log" | head -n 1 | sed 's/^[^ ]* [^ ]* *-1 //')
  evidence="$evidence$(grep -h "missing primary copy of .*$obj" "$cl/log/osd.$victim.log" | head -n 1 | sed 's/^.*log \[ERR\] : / | /')"
  echo "    (e/$1) osd.$victim's log: ${evidence:-nothing about $obj}"
  if [ "$1" = replica ]; then
    want_found=$(echo "$found" | grep -c "osd \[$victim\]" || true)
  else
    want_found=1  # the read may have repaired it already
  fi
  if [ "$want_found" -ge 1 ] && [ "$after" = 0 ] && cmp -s "$obj.data" "$obj.got2" && healthy_scrub; then
    ceph_qa_pass "(e/$1) flipped byte on osd.$victim: ${how:+$how; }osd log: ${evidence:-none}; deep-scrub found: $found; pg repair fixed it: second deep-scrub 0 inconsistent, no scrub errors, object byte-exact"
  else
    ceph_qa_fail "(e/$1) flipped byte on osd.$victim: ${how:+$how; }deep-scrub found: $found; after repair + deep-scrub: $after inconsistent; read-back equal: $(cmp -s "$obj.data" "$obj.got2" && echo yes || echo no); health: $(ceph health detail 2>&1 | head -n 3 | tr '\n' ' ')"
    ceph_qa_osd_tails "$cl" "$victim"
  fi
}
flip_case replica
flip_case primary
all_up_clean 120 || true
verify_all "(e) flipped bytes ($(secs $t) s)"

# ---------------------------------------------------------------- (g) zone GC under churn
t=$(date +%s)
for i in 0 1 2 3; do gc_field $i >gc.before.$i; done
gc_grown() {  # every OSD reset at least 20 more zones than before
  for _i in 0 1 2 3; do
    _b=$(cut -d' ' -f1 gc.before.$_i); _n=$(gc_field $_i | cut -d' ' -f1)
    [ "${_n:-0}" -ge $((_b + 20)) ] || return 1
  done
}
writer_start g --names 150 --min-size 262144 --max-size 1048576 --threads 8 --delete-ratio 0.2
if _cq_wait 600 "every OSD's GC to reset 20 more zones" "" gc_grown; then
  gcres=ok
else
  gcres=timeout
fi
writer_stop g
sum="" ok=1
for i in 0 1 2 3; do
  read -r b_z b_r b_m b_b _ _ _ <gc.before.$i
  read -r z r m b wa lwa zm <<<"$(gc_field $i)"
  sum="$sum osd.$i: zones reset +$((z - b_z)) (total $z), GC runs +$((r - b_r)), live moved +$(( (m - b_m) / 1048576 )) MiB, GC wrote +$(( (b - b_b) / 1048576 )) MiB, WA since mount $wa, lifetime $lwa, zones $zm;"
  [ $((z - b_z)) -ge 20 ] || ok=0
done
if [ $gcres = ok ] && [ $ok = 1 ]; then
  ceph_qa_pass "(g) zone GC under churn ($(secs $t) s):$sum"
else
  ceph_qa_fail "(g) zone GC did not reset 20 zones on every OSD within 600 s:$sum"
fi
ceph osd df 2>/dev/null | sed 's/^/    /'
all_up_clean 120 || true
verify_all "(g) after GC churn"

# ---------------------------------------------------------------- (f2) final scrub, fsck
t=$(date +%s)
$QA pg-field --pool $pool >scrub.before
for p in $(cut -d' ' -f1 scrub.before); do ceph pg deep-scrub "$p" >/dev/null 2>&1 || true; done
if _cq_wait 600 "every PG deep-scrubbed" "" $QA pg-newer --pool $pool --before scrub.before; then
  incons=$(rados list-inconsistent-pg $pool 2>&1)
  if [ "$incons" = "[]" ] && ! ceph health detail 2>/dev/null | grep -q 'OSD_SCRUB_ERRORS\|PG_DAMAGED'; then
    ceph_qa_pass "(f2) final deep-scrub of all $(wc -l <scrub.before) PGs in $(secs $t) s: 0 inconsistent"
  else
    ceph_qa_fail "(f2) final deep-scrub: inconsistent PGs $incons; $(ceph health 2>&1 | head -n 1)"
  fi
else
  ceph_qa_fail "(f2) final deep-scrub did not finish in 600 s"
fi
verify_all "(f2) final"
ceph_qa_final_checks "$cl" || true
ceph_cluster_stop "$cl" || true   # (the mon keeps the last OSDs "up": mon_osd_min_up_ratio)
for i in 0 1 2 3; do
  if otool "$cl/osd.$i" --op fsck >fsck.$i.out 2>&1; then
    ceph_qa_pass "(f2) ceph-objectstore-tool --op fsck of stopped osd.$i: exit 0 $(head -c 150 fsck.$i.out | tr '\n' ' ')"
  else
    ceph_qa_fail "(f2) --op fsck of osd.$i: $(tail -n 3 fsck.$i.out | tr '\n' ' ')"
  fi
done
keep=; [ $# -ge 1 ] && keep=keep
ceph_qa_finish 0006_osd_faults "$t_start" $keep
