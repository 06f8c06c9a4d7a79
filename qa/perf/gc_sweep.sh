#!/bin/sh
# GC sweep for doc/performance.md: steady-state WA of the store at 50/70/80/90 %
# utilization for greedy and cost-benefit (one shared stream: the baseline placement) and
# ours (lifetime policy, separated streams: name-history placement), each next to the
# offline oracle's floor for the run's own trace.
#   uniform: uniform random deletes of 4 MiB objects, 128 zones x 32 MiB (4 GiB)
#   zipf:    skewed deletes (zipf 0.99 over names; the paired PUT overwrites the victim's
#            name) of 256 KiB objects on 256 zones x 16 MiB (4 GiB): 62 objects per zone,
#            the shape of 4 MiB RADOS objects in 256 MiB zones (a 4 MiB-object run of that
#            shape needs a 64 GiB store).
# Usage: qa/perf/gc_sweep.sh [TOOL] [OUTDIR] [uniform|zipf|all]   (~40 min on 2 cores)
# Results that exist in OUTDIR are kept (delete them to re-measure).
set -eu
TOOL=${1:-build/src/tools/smrstore-tool}
OUT=${2:-/var/tmp/smrstore-gc-sweep}
WHICH=${3:-all}
mkdir -p "$OUT"
run() {  # name geometry... (bench args)
  name=$1
  shift
  [ -s "$OUT/$name.json" ] && return 0
  scratch="$OUT/scratch-$name"
  rm -rf "$scratch"
  mkdir -p "$scratch"
  if "$TOOL" bench --dir "$scratch" "$@" --mix 0:1:1 --seed 1 --oracle --json \
      >"$OUT/$name.json.tmp"; then
    mv "$OUT/$name.json.tmp" "$OUT/$name.json"
    echo "done $name"
  else
    echo "FAILED $name (see $OUT/$name.json.tmp)"
  fi
  rm -rf "$scratch"
}
for util in ${SMRSTORE_SWEEP_UTILS:-0.8 0.5 0.7 0.9}; do
  for cfg in "greedy single" "cost-benefit single" "lifetime separated"; do
    set -- $cfg
    if [ "$WHICH" = all ] || [ "$WHICH" = uniform ]; then
      run "uniform-$util-$1-$2" --zones 128 --zone-mib 32 --size-dist fixed:4194304 \
        --util "$util" --delete uniform --ops "${SMRSTORE_SWEEP_UNIFORM_OPS:-4000}" --clients 4 \
        --policy "$1" --placement "$2"
    fi
    if [ "$WHICH" = all ] || [ "$WHICH" = zipf ]; then
      run "zipf-$util-$1-$2" --zones 256 --zone-mib 16 --size-dist fixed:262144 \
        --util "$util" --delete zipf --ops "${SMRSTORE_SWEEP_ZIPF_OPS:-60000}" --clients 16 \
        --policy "$1" --placement "$2"
    fi
  done
done
python3 - "$OUT" <<'PY'
import glob, json, os, sys
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    r = json.load(open(f))
    c = r["config"]
    rows.setdefault((c["delete"], c["util"]), {})[(c["policy"], c["placement"])] = r
print("| deletes | util | greedy | cost-benefit | ours (lifetime, separated) | oracle floor | ours / greedy | PUT p99 ms, ours: all / GC-free |")
print("|---|---|---|---|---|---|---|---|")
nan = float("nan")
for (d, u), rs in sorted(rows.items()):
    def wa(p, pl):
        r = rs.get((p, pl))
        return r["steady"]["wa"] if r else nan
    g, cb, ours = wa("greedy", "single"), wa("cost-benefit", "single"), wa("lifetime", "separated")
    orc = [r["oracle"]["wa_floor"] for r in rs.values() if r.get("oracle", {}).get("wa_floor")]
    o = min(orc) if orc else nan
    lat = rs.get(("lifetime", "separated"), {}).get("latency_ms", {})
    p99 = lambda k: lat.get(k, {}).get("p99", nan)
    print(f"| {d} | {u:.0%} | {g:.2f} | {cb:.2f} | {ours:.2f} | {o:.2f} | {ours / g:.2f} "
          f"| {p99('put'):.0f} / {p99('put_nogc'):.0f} |")
PY
