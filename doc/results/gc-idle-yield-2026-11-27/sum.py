import json, sys, glob, os
for f in sys.argv[1:]:
    try: d = json.load(open(f))
    except Exception as e: print(os.path.basename(f), "unreadable", e); continue
    s = d["steady"]; l = d["latency_ms"]
    g, n = l["put_gc"], l["put_nogc"]
    ratio = g["p99"] / n["p99"] if n["p99"] else float("nan")
    sl = s.get("gc_slices") or 0
    mean = s["gc_live_moved"] / sl / 2**20 if sl else 0
    print(f'{os.path.basename(f):18s} WA {s["wa"]:.3f} PUT p50/p99 {l["put"]["p50"]:.1f}/{l["put"]["p99"]:.1f} '
          f'gc p99 {g["p99"]:.1f} ({g["count"]}) nogc p99 {n["p99"]:.1f} ({n["count"]}) ratio {ratio:.2f}x '
          f'slices {sl} mean {mean:.2f} MiB queuedGC {s["gc_throttle_s"]:.2f}s puts {s["puts"]}')
