# Prints doc/results/performance-history.md's "A cap on the free zones the watermarks keep" table from the
# bench JSON files of this folder (run from it): WA, throughput, PUT p50 / p99 with the
# p99's 95 % interval, GC's commit-thread time with work queued, free space at the end.
import json, sys

ROWS = [  # loop, gc_free_zones_max, file
    ("open, 800 ops/s (pair 1)", "64 (default)", "open-cap64"),
    ("open, 800 ops/s (pair 1)", "0 (no cap)", "open-nocap"),
    ("open, 800 ops/s (pair 2)", "64 (default)", "open-cap64-2"),
    ("open, 800 ops/s (pair 2)", "0 (no cap)", "open-nocap-2"),
    ("closed, 16 clients", "64 (default)", "lifetime-cap64"),
    ("closed, 16 clients", "0 (no cap)", "lifetime-nocap"),
]

for loop, cap, name in ROWS:
    try:
        a = json.load(open(f"./{name}.json"))
    except (OSError, ValueError) as e:
        print(f"| {loop} | {cap} | {name}: {e} |", file=sys.stderr)
        continue
    s, put = a["steady"], a["latency_ms"]["put"]
    c = put.get("p99_ci95") or [None, None]
    ci = " [%s, %s]" % tuple("–" if v is None else f"{v:.1f}" for v in c)
    st = s["statfs_end"]
    print(f"| {loop} | {cap} | {s['wa']:.3f} | {s['user_mbps']:.1f} | "
          f"{put['p50']:.1f} / {put['p99']:.1f}{ci} | {s['gc_throttle_s']:.1f} | "
          f"{100 * st['available'] / st['total']:.2f} % |")
