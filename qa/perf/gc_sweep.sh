#!/bin/sh
# GC sweep for doc/performance.md: steady-state WA of 4 MiB objects at 50/70/80/90 %
# utilization, uniform and zipf-skewed deletes, for greedy and cost-benefit (single stream)
# and ours (lifetime policy, separated streams), each next to the offline oracle's floor.
# Usage: qa/perf/gc_sweep.sh [TOOL] [OUTDIR]   (about 20 minutes on 2 cores)
set -eu
TOOL=${1:-build/src/tools/smrstore-tool}
OUT=${2:-/var/tmp/smrstore-gc-sweep}
OPS=${SMRSTORE_SWEEP_OPS:-1200}
mkdir -p "$OUT"
for del in uniform zipf; do
  for util in 0.5 0.7 0.8 0.9; do
    for cfg in "greedy single" "cost-benefit single" "lifetime separated"; do
      set -- $cfg
      name="$del-$util-$1-$2"
      [ -s "$OUT/$name.json" ] && continue
      $TOOL bench --dir "$OUT" --zones 64 --zone-mib 16 --size-dist fixed:4194304 \
        --util "$util" --mix 0:1:1 --delete "$del" --clients 4 --ops "$OPS" \
        --policy "$1" --placement "$2" --seed 1 --oracle --json > "$OUT/$name.json.tmp" \
        && mv "$OUT/$name.json.tmp" "$OUT/$name.json"
      echo "done $name"
    done
  done
done
python3 - "$OUT" <<'PY'
import glob, json, os, sys
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    r = json.load(open(f))
    c = r["config"]
    key = (c["delete"], c["util"])
    rows.setdefault(key, {})[(c["policy"], c["placement"])] = r
print("| deletes | util | greedy | cost-benefit | ours (lifetime, separated) | oracle floor | ours / greedy |")
print("|---|---|---|---|---|---|---|")
for (d, u), rs in sorted(rows.items()):
    def wa(p, pl):
        r = rs.get((p, pl))
        return r["steady"]["wa"] if r else float("nan")
    g, cb, ours = wa("greedy", "single"), wa("cost-benefit", "single"), wa("lifetime", "separated")
    orc = [r["oracle"].get("wa_floor") for r in rs.values() if r.get("oracle", {}).get("wa_floor")]
    o = min(orc) if orc else float("nan")
    print(f"| {d} | {u:.0%} | {g:.2f} | {cb:.2f} | {ours:.2f} | {o:.2f} | {ours / g:.2f} |")
PY
