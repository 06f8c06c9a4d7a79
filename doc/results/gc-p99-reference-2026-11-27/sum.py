# Prints the columns of doc/results/performance-history.md's goal-4 tables from bench JSON files.
import json, sys, os
for f in sys.argv[1:]:
    try: d = json.load(open(f))
    except Exception as e: print(os.path.basename(f), "unreadable", e); continue
    s = d["steady"]; l = d["latency_ms"]
    g, n = l["put_gc"], l["put_nogc"]
    ratio = g["p99"] / n["p99"] if n["p99"] else float("nan")
    ci = lambda h: (" [%s, %s]" % tuple("-" if v is None else f"{v:.1f}" for v in h["p99_ci95"])) if "p99_ci95" in h else ""
    print(f'{os.path.basename(f):28s} WA {s["wa"]:.3f} user MB/s {s["user_mbps"]:.1f} '
          f'PUT p50/p99 {l["put"]["p50"]:.1f}/{l["put"]["p99"]:.1f}{ci(l["put"])} '
          f'gc p99 {g["p99"]:.1f}{ci(g)} ({g["count"]}) nogc p99 {n["p99"]:.1f}{ci(n)} ({n["count"]}) '
          f'split {ratio:.2f}x queuedGC {s["gc_throttle_s"]:.2f}s puts {s["puts"]}')
