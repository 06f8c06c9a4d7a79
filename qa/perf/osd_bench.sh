#!/bin/sh
# make osd-bench: 4 smrstore OSDs vs 4 BlueStore OSDs (file-backed block devices) vs 4
# memstore OSDs, one after the other, each on its own private cluster (qa/ceph/lib.sh, cephx,
# replicated pool of size 3, 32 PGs), same client workloads, measured in one run:
#   rados bench 4 MiB write (--no-cleanup) and seq read, rados bench 4 KiB write, 15 s each;
#   qa/perf/rados_lat.py (python3-rados aio, 16 in flight) 4 MiB write, 4 MiB read, 4 KiB
#   write, 10 s each, for per-operation p50/p99;
#   the device write amplification the smrstore OSDs report (smrstore stats over the asok).
# Prints a markdown table with ratios to BlueStore and writes $OUT/osd-bench.json.
# On a 2-core machine every OSD shares the same two cores and a page-cached disk: this
# measures the CPU paths of the stores, not drives.
# smrstore's emulated drives write with O_DIRECT (spec key direct=1), as BlueStore writes
# its block file and as a real drive's zbd: path writes; OSD_BENCH_SMR_WRITES=buffered
# writes them through the page cache instead. With direct writes the drives are read with
# O_DIRECT too by default (spec key direct_reads=1), as a zbd: drive is read;
# OSD_BENCH_SMR_READS=buffered reads them through the page cache instead. After the 4 MiB
# write phase the bench records how much of the stores' data files sits in the page cache
# (fincore).
# SMRSTORE_QA_CONF (qa/ceph/lib.sh) sets the smrstore OSDs' smrstore.conf, e.g.
# "commit_pipeline = false" for the one-thread commit path; the bench prints it. It also
# prints where the smrstore OSDs' commit time went over the 4 MiB write phase (the stats
# document's io.commit_*_ns).
# OSD_BENCH_PERF=1 profiles the 4 OSDs with `perf record` (all their threads, 499 Hz, no call
# graphs) over the rados bench 4 MiB and 4 KiB write phases: OUT/perf-STORE-w4m.txt and
# -w4k.txt hold `perf report`'s flat profile by shared object and symbol (self time), and
# OUT/perf-STORE-*-dso.txt the share of each shared object; the profiled phases' rates are
# lowered by perf's sampling (~2 %), on both stores alike.
#   sh qa/perf/osd_bench.sh [OUT_DIR]   (~10 min; default build/perf)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# 12 GiB of drives per OSD on both sides (smrstore: two drives of 96 x 64 MiB zones; BlueStore:
# a 12 GiB block file): the phases write about 6 GB per OSD once the commit path is fast, and
# a store that fills aborts its OSD (lib.sh's default drives hold 6 GiB).
SMRSTORE_QA_DRIVES=${SMRSTORE_QA_DRIVES:-"emu:@DIR@/drive0.img?zones=96&zone_mib=64&conv=2 emu:@DIR@/drive1.img?zones=96&zone_mib=64&conv=2"}
. "$repo/qa/ceph/lib.sh"
OUT=${1:-$repo/build/perf}
mkdir -p "$OUT"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/osd-bench.XXXXXX")
cl=
perf_pid=
# The clusters' data (tens of GB after the 4 MiB writes) goes with the run; results are in $OUT.
cleanup() {
  [ -z "$perf_pid" ] || kill -INT "$perf_pid" 2>/dev/null || true
  [ -z "$cl" ] || [ ! -d "$cl/run" ] || ceph_cluster_stop "$cl" || true
  cd / && rm -rf "$scratch"
}
trap cleanup EXIT
results="$OUT/osd-bench.jsonl"
# OSD_BENCH_STORES picks stores (default all three); OSD_BENCH_APPEND=1 keeps earlier rows.
STORES=${OSD_BENCH_STORES:-smrstore bluestore memstore}
[ "${OSD_BENCH_APPEND:-0}" = 1 ] || : >"$results"

SMR_WRITES=${OSD_BENCH_SMR_WRITES:-direct}
if [ "$SMR_WRITES" = direct ]; then SMR_READS=${OSD_BENCH_SMR_READS:-direct}; else SMR_READS=${OSD_BENCH_SMR_READS:-buffered}; fi
case $SMR_READS in
  buffered) keys="direct=1" ;;
  direct) keys="direct=1&direct_reads=1"
    [ "$SMR_WRITES" = direct ] || { echo "osd-bench: OSD_BENCH_SMR_READS=direct needs direct writes" >&2; exit 2; } ;;
  *) echo "osd-bench: OSD_BENCH_SMR_READS=$SMR_READS is neither direct nor buffered" >&2; exit 2 ;;
esac
case $SMR_WRITES in
  direct)
    drives=
    set -f  # the specs hold '?': no pathname expansion
    for spec in $SMRSTORE_QA_DRIVES; do
      case $spec in
        emu:*\?*) spec="$spec&$keys" ;;
        emu:*) spec="$spec?$keys" ;;
      esac
      drives="${drives:+$drives }$spec"
    done
    set +f
    SMRSTORE_QA_DRIVES=$drives ;;
  buffered) ;;
  *) echo "osd-bench: OSD_BENCH_SMR_WRITES=$SMR_WRITES is neither direct nor buffered" >&2; exit 2 ;;
esac
echo "== smrstore drives: $SMRSTORE_QA_DRIVES"

cached_bytes() {  # DIR STORE: bytes of the OSDs' data files in the page cache now
  if [ "$2" = memstore ] || ! command -v fincore >/dev/null 2>&1; then echo null; return; fi
  if [ "$2" = smrstore ]; then set -- "$1"/osd.*/drive*.img; else set -- "$1"/osd.*/block; fi
  fincore -b -n -o RES "$@" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'
}

# smr_commit_totals DIR: the smrstore OSDs' io.commit_* counters (stats document), summed,
# as JSON; "null" for another store.
smr_commit_totals() {
  [ "$2" = smrstore ] || { echo null; return; }
  for i in 0 1 2 3; do ceph --admin-daemon "$1/run/osd.$i.asok" smrstore stats; done |
    /usr/bin/python3 -c '
import json, sys
dec = json.JSONDecoder(); text = sys.stdin.read(); tot = {}; i = 0
while i < len(text):
    if text[i].isspace(): i += 1; continue
    d, i = dec.raw_decode(text, i)
    for k, v in d["io"].items():
        if k.startswith("commit_"): tot[k] = tot.get(k, 0) + v
print(json.dumps(tot))'
}

# osd_cpu CLUSTER: the cluster's OSD processes' CPU seconds (user + system, all threads) and
# context switches (voluntary + involuntary, all threads) so far, as JSON; a phase's cost is
# the difference, for either store (the 4 KiB rows are bound by the 2 cores here).
osd_cpu() {
  /usr/bin/python3 - "$1" <<'PY'
import glob, json, os, sys
tick = os.sysconf("SC_CLK_TCK"); cpu = 0.0; switches = 0
for cmd in glob.glob("/proc/[0-9]*/cmdline"):
    try:
        argv = open(cmd, "rb").read().split(b"\0")
        if not argv[0].endswith(b"ceph-osd") or not any(sys.argv[1].encode() + b"/" in a for a in argv):
            continue
        pid = cmd.split("/")[2]
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        cpu += (int(f[11]) + int(f[12])) / tick  # utime, stime (fields 14, 15)
        for st in glob.glob(f"/proc/{pid}/task/*/status"):
            for line in open(st):
                if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                    switches += int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        continue
print(json.dumps({"cpu_s": round(cpu, 2), "ctx_switches": switches}, separators=(",", ":")))
PY
}

# perf_start CLUSTER STORE PHASE: with OSD_BENCH_PERF=1, profile the cluster's OSDs in the
# background until perf_stop.
perf_start() {
  [ "${OSD_BENCH_PERF:-0}" = 1 ] || return 0
  pids=$(pgrep -d, -f "ceph-osd .*$1/") || { echo "osd-bench: no OSD processes to profile" >&2; exit 1; }
  perf record -F 499 -o "$OUT/perf-$2-$3.data" -p "$pids" >"$OUT/perf-$2-$3.log" 2>&1 &
  perf_pid=$!
  sleep 1
}
perf_stop() {  # STORE PHASE
  [ -n "$perf_pid" ] || return 0
  kill -INT "$perf_pid"; wait "$perf_pid" || true
  perf_pid=
  perf report -i "$OUT/perf-$1-$2.data" --stdio --no-children --sort dso,sym --percent-limit 0.5 \
    2>/dev/null | grep -v '^$' >"$OUT/perf-$1-$2.txt" || true
  perf report -i "$OUT/perf-$1-$2.data" --stdio --no-children --sort dso --percent-limit 0.5 \
    2>/dev/null | grep -v '^$' >"$OUT/perf-$1-$2-dso.txt" || true
  # The store's own code (and its RocksDB) in finer detail: their symbols down to 0.05 %.
  if [ "$1" = smrstore ]; then
    perf report -i "$OUT/perf-$1-$2.data" --stdio --no-children --sort dso,sym --percent-limit 0.05 \
      --dsos libsmrstore_osd.so,librocksdb.so.7.8.3 2>/dev/null | grep -v '^$' >"$OUT/perf-$1-$2-store.txt" || true
  fi
  rm -f "$OUT/perf-$1-$2.data"
}

bench_field() {  # FILE FIELD: a number from rados bench's summary
  sed -n "s/^$2: *\\([0-9.]*\\).*/\\1/p" "$1" | head -1
}

for store in $STORES; do
  # memstore holds every byte in RAM (3 GiB per OSD here): a 15 s 4 MiB write at size 3
  # fills it and the cluster blocks writes, so it gets shorter phases (rates stay comparable).
  SECS=${OSD_BENCH_SECONDS:-15}; LSECS=${OSD_BENCH_LAT_SECONDS:-10}
  if [ "$store" = memstore ]; then SECS=${OSD_BENCH_MEMSTORE_SECONDS:-5}; LSECS=$SECS; fi
  cl="$scratch/$store"
  echo "== $store: 4 OSDs, pool size 3"
  # memstore keeps everything in RAM: 3 GiB per OSD; BlueStore: a 12 GiB file per OSD,
  # memory target 1 GiB like the others' footprint.
  CEPH_QA_BLUESTORE_BYTES=12884901888 CEPH_QA_MEMSTORE_BYTES=3221225472 \
    CEPH_QA_EXTRA_CONF="osd memory target = 1073741824" ceph_cluster_start "$cl" --objectstore "$store" --osds 4 --size 3 --cephx
  ceph_pool_create bench 32 3
  cd "$scratch"
  c0=$(smr_commit_totals "$cl" "$store"); u0=$(osd_cpu "$cl")
  perf_start "$cl" "$store" w4m
  rados bench -p bench "$SECS" write -b 4194304 -t 16 --no-cleanup >"$store.w4m" 2>&1
  perf_stop "$store" w4m
  c1=$(smr_commit_totals "$cl" "$store"); u1=$(osd_cpu "$cl")
  pc=$(cached_bytes "$cl" "$store")
  rados bench -p bench "$SECS" seq -t 16 >"$store.r4m" 2>&1
  rados -p bench cleanup >/dev/null 2>&1 || true
  c2=$(smr_commit_totals "$cl" "$store"); u2=$(osd_cpu "$cl")
  perf_start "$cl" "$store" w4k
  rados bench -p bench "$SECS" write -b 4096 -t 16 --no-cleanup >"$store.w4k" 2>&1
  perf_stop "$store" w4k
  c3=$(smr_commit_totals "$cl" "$store"); u3=$(osd_cpu "$cl")
  rados -p bench cleanup >/dev/null 2>&1 || true
  lw=$(/usr/bin/python3 "$here/rados_lat.py" bench write 4194304 "$LSECS")
  lr=$(/usr/bin/python3 "$here/rados_lat.py" bench read 4194304 "$LSECS")
  rados -p bench cleanup --prefix lat. >/dev/null 2>&1 || true
  for o in $(rados -p bench ls); do rados -p bench rm "$o"; done
  l4=$(/usr/bin/python3 "$here/rados_lat.py" bench write 4096 "$LSECS")
  wa=null
  if [ "$store" = smrstore ]; then
    wa=$(for i in 0 1 2 3; do ceph --admin-daemon "$cl/run/osd.$i.asok" smrstore stats; done |
      /usr/bin/python3 -c '
import json, sys
dec = json.JSONDecoder(); text = sys.stdin.read(); docs = []; i = 0
while i < len(text):
    if text[i].isspace(): i += 1; continue
    d, i = dec.raw_decode(text, i); docs.append(d)
u = sum(d["io"]["user_bytes"] for d in docs); v = sum(d["io"]["device_bytes"] for d in docs)
print(json.dumps({"user_bytes": u, "device_bytes": v, "wa": round(v / u, 4) if u else None}))')
  fi
  cd "$repo"
  SMR_READS=$SMR_READS /usr/bin/python3 - "$store" "$scratch" "$lw" "$lr" "$l4" "$wa" "$pc" "$SMR_WRITES" "$c0" "$c1" "$c2" "$c3" "$u0 $u1 $u2 $u3" >>"$results" <<'EOF'
import json, os, re, sys
store, d, lw, lr, l4, wa, pc, smr_writes, c0, c1, c2, c3, cpu = sys.argv[1:]
def field(path, name):
    m = re.search(r"^" + re.escape(name) + r":\s*([0-9.]+)", open(path).read(), re.M)
    return float(m.group(1)) if m else None
row = {"store": store}
for tag, f in (("w4m", "w4m"), ("r4m", "r4m"), ("w4k", "w4k")):
    p = f"{d}/{store}.{f}"
    row[tag] = {"mb_s": field(p, "Bandwidth (MB/sec)"), "iops": field(p, "Average IOPS"),
                "avg_lat_s": field(p, "Average Latency(s)"), "max_lat_s": field(p, "Max latency(s)")}
row["lat_w4m"], row["lat_r4m"], row["lat_w4k"] = json.loads(lw), json.loads(lr), json.loads(l4)
row["device"] = json.loads(wa)
row["page_cache_after_w4m_bytes"] = json.loads(pc)
# The OSDs' CPU seconds and thread switches over each write phase, and per operation.
u = [json.loads(x) for x in cpu.split(" ")]
for tag, (a, b) in (("w4m", (u[0], u[1])), ("w4k", (u[2], u[3]))):
    w = field(f"{d}/{store}.{tag}", "Total writes made")
    cpu_s, sw = b["cpu_s"] - a["cpu_s"], b["ctx_switches"] - a["ctx_switches"]
    row[f"osd_cpu_{tag}"] = {"cpu_s": round(cpu_s, 2), "ctx_switches": sw, "ops": w,
                             "cpu_ms_per_op": round(1000 * cpu_s / w, 3) if w else None,
                             "switches_per_op": round(sw / w, 1) if w else None}
if store == "smrstore":
    row["smr_writes"] = smr_writes
    row["smr_reads"] = os.environ.get("SMR_READS", "buffered")
    row["smr_conf"] = os.environ.get("SMRSTORE_QA_CONF", "")
    # The commit threads' time over the 4 MiB and 4 KiB write phases, per stage (4 OSDs
    # summed).
    for tag, (a, b) in (("commit_w4m", (c0, c1)), ("commit_w4k", (c2, c3))):
        a, b = json.loads(a), json.loads(b)
        row[tag] = {k: b[k] - a.get(k, 0) for k in b}
print(json.dumps(row))
EOF
  ceph_cluster_stop "$cl"
  rm -rf "$cl"
  cl=
done

/usr/bin/python3 - "$results" "$OUT/osd-bench.json" <<'EOF'
import json, sys
rows = {r["store"]: r for r in map(json.loads, open(sys.argv[1]))}
json.dump(rows, open(sys.argv[2], "w"), indent=1)
STORES = ("smrstore", "bluestore", "memstore")
def ratio(a, c):
    return f"{a / c:.2f}x" if a and c else "n/a"
def cell(store, tag, key):  # a store left out (OSD_BENCH_STORES) is "not run"
    return rows[store][tag][key] if store in rows else None
def show(v):
    return "not run" if v is None else str(v)
print("| workload (4 OSDs, size 3) | smrstore | BlueStore | memstore | smrstore / BlueStore |")
print("|---|---|---|---|---|")
for tag, name, key in (("w4m", "rados bench 4 MiB write, MB/s", "mb_s"),
                       ("r4m", "rados bench 4 MiB seq read, MB/s", "mb_s"),
                       ("w4k", "rados bench 4 KiB write, IOPS", "iops")):
    v = [cell(s, tag, key) for s in STORES]
    print(f"| {name} | {show(v[0])} | {show(v[1])} | {show(v[2])} | {ratio(v[0], v[1])} |")
for tag, name in (("lat_w4m", "4 MiB write p99, ms"), ("lat_r4m", "4 MiB read p99, ms"),
                  ("lat_w4k", "4 KiB write p99, ms")):
    v = [cell(s, tag, "p99_ms") for s in STORES]
    p50 = " / ".join(show(cell(s, tag, "p50_ms")) for s in STORES)
    print(f"| {name} (p50: {p50}) | {show(v[0])} | {show(v[1])} | {show(v[2])} | {ratio(v[0], v[1])} |")
if "smrstore" in rows and rows["smrstore"].get("device"):
    d = rows["smrstore"]["device"]
    print(f"\nsmrstore device WA over the run: {d['wa']} ({d['device_bytes']} device bytes for {d['user_bytes']} user bytes, 4 OSDs)")
for tag, phase in (("commit_w4m", "4 MiB"), ("commit_w4k", "4 KiB")):
    c = rows.get("smrstore", {}).get(tag)
    if not c:
        continue
    stages = ("plan", "write", "flush", "meta", "sync", "callback")
    busy = sum(c.get(f"commit_{k}_ns", 0) for k in stages)
    parts = ", ".join(f"{k} {c.get(f'commit_{k}_ns', 0) / 1e9:.2f} s" for k in stages)
    print(f"\nsmrstore commit threads over the {phase} write phase (4 OSDs summed): {c.get('commit_groups', 0)} groups; {parts}; busy {busy / 1e9:.2f} s; transactions' queue wait {c.get('commit_queue_ns', 0) / 1e9:.2f} s")
for tag, phase in (("w4m", "4 MiB"), ("w4k", "4 KiB")):
    parts = []
    for s in ("smrstore", "bluestore"):
        c = rows.get(s, {}).get(f"osd_cpu_{tag}")
        if c:
            parts.append(f"{s} {c['cpu_ms_per_op']} ms CPU and {c['switches_per_op']} thread switches per write ({c['cpu_s']} s over {c['ops']:.0f} writes)")
    if parts:
        print(f"\nOSDs over the {phase} write phase (4 OSDs summed): " + "; ".join(parts))
def mib(store):
    v = rows.get(store, {}).get("page_cache_after_w4m_bytes")
    return "not measured" if v is None else f"{v / 2**20:.0f} MiB"
if "smrstore" in rows:
    print(f"\nsmrstore.conf: {rows['smrstore'].get('smr_conf') or '(defaults)'}")
    print(f"\nsmrstore drive writes: {rows['smrstore'].get('smr_writes', 'buffered')}, reads: {rows['smrstore'].get('smr_reads', 'buffered')}; data files in the page cache after the 4 MiB writes: smrstore {mib('smrstore')}, BlueStore {mib('bluestore')}")
EOF
