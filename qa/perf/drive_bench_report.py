#!/usr/bin/python3
"""The figures of qa/perf/drive_bench.sh: device snapshots, one run's row, the report.

  drive_bench_report.py snap-smr TAG      stdin: `smrstore stats` of every OSD -> one line
  drive_bench_report.py snap-bs TAG       stdin: the filter's stats.N.json and/or
                                          `perf dump` of every OSD -> one line
  drive_bench_report.py row STORE RUN WORKDIR NA NB DRIVE_BYTES   one run's figures, one JSON line
  drive_bench_report.py brief RESULTS.jsonl             one line per run so far
  drive_bench_report.py report RESULTS.jsonl OUT.json MODEL   the markdown table
  drive_bench_report.py slow-steps FILE   the commit thread's slow steps (OSD log lines,
                                          with the phase ends) by phase and cause

Snapshots are cumulative counters; the row takes deltas over the measured phases (from
after the fill to the end) and over the 4 MiB overwrite phase alone (ow4m, GC's steady state).
"""
import json
import re
import statistics
import sys


def docs(text):
    dec = json.JSONDecoder()
    out, i = [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        d, i = dec.raw_decode(text, i)
        out.append(d)
    return out


FILTER_KEYS = ("reads", "read_bytes", "writes", "write_bytes", "flushes", "charged_ios",
               "sequential", "skips", "seeks", "busy_seconds")


def snap_smr(tag):
    s = {"tag": tag, "user_bytes": 0, "device_bytes": 0, "gc_bytes": 0, "bytes_read": 0,
         "gc_runs": 0, "gc_live_moved": 0, "osds": 0}
    for d in docs(sys.stdin.read()):
        if "io" not in d:
            continue
        s["osds"] += 1
        s["user_bytes"] += d["io"]["user_bytes"]
        s["device_bytes"] += d["io"]["device_bytes"]
        s["bytes_read"] += d["io"].get("bytes_read", 0)
        s["gc_bytes"] += d["gc"]["bytes_written"]
        s["gc_runs"] += d["gc"]["runs"]
        s["gc_live_moved"] += d["gc"]["live_moved"]
        # The drives' HeadModel counters (doc/stats-schema.md `drives[].head`): seeks and
        # bytes moved, reads and writes; absent when a drive runs no timing model.
        for drive in d.get("drives", []):
            h = drive.get("head")
            if not h:
                continue
            s["head_seeks"] = s.get("head_seeks", 0) + int(h["seeks"])
            s["head_bytes"] = s.get("head_bytes", 0) + int(h["bytes"])
            s["head_busy_seconds"] = s.get("head_busy_seconds", 0.0) + float(h["busy_seconds"])
    print(json.dumps(s))


def snap_bs(tag):
    s = {"tag": tag, "drives": 0, "perf_osds": 0, "user_bytes": 0, "deferred_bytes": 0,
         "bluefs_bytes": 0}
    for k in FILTER_KEYS:
        s[k] = 0
    for d in docs(sys.stdin.read()):
        if "charged_ios" in d:
            s["drives"] += 1
            for k in FILTER_KEYS:
                s[k] += d.get(k, 0)
        elif "bluestore" in d:
            s["perf_osds"] += 1
            b = d["bluestore"]
            s["user_bytes"] += b.get("bluestore_write_big_bytes", 0) + b.get("bluestore_write_small_bytes", 0)
            s["deferred_bytes"] += b.get("deferred_write_bytes", 0)
            f = d.get("bluefs", {})
            s["bluefs_bytes"] += f.get("bytes_written_wal", 0) + f.get("bytes_written_sst", 0)
    print(json.dumps(s))


def bench_out(path):
    t = open(path).read()

    def f(name):
        m = re.search(r"^" + re.escape(name) + r":\s*([0-9.]+)", t, re.M)
        return float(m.group(1)) if m else None
    return {"mb_s": f("Bandwidth (MB/sec)"), "iops": f("Average IOPS"),
            "avg_lat_ms": None if f("Average Latency(s)") is None else round(1000 * f("Average Latency(s)"), 2),
            "max_lat_ms": None if f("Max latency(s)") is None else round(1000 * f("Max latency(s)"), 2),
            "total_writes": f("Total writes made"), "total_reads": f("Total reads made"),
            "seconds": f("Total time run")}


def delta(a, b, keys):
    return {k: round(b[k] - a[k], 6) for k in keys if k in a and k in b}


def row(store, run, work, na, nb, drive_bytes):
    r = {"store": store, "run": int(run), "fill_objects": int(na) + int(nb),
         "kept_objects": int(na)}
    for tag in ("w4m", "seq", "rand", "w4k"):
        r[tag] = bench_out(f"{work}/{tag}.out")
    for tag in ("r4m", "ow4m", "l4k", "rbd"):
        r[tag] = json.loads(open(f"{work}/{tag}.json").read().strip().splitlines()[-1])
    r["fillA"] = bench_out(f"{work}/fillA.out")
    try:
        df = json.load(open(f"{work}/osd-df.json"))
        # data bytes on each OSD / the drive's capacity (`ceph osd df`'s own %USE counts
        # BlueStore's whole DB device as used)
        r["use_after_fill_pct"] = [round(100.0 * n["kb_used_data"] * 1024 / int(drive_bytes), 1)
                                   for n in df.get("nodes", [])]
    except (OSError, ValueError):
        r["use_after_fill_pct"] = None
    snaps = {}
    for line in open(f"{work}/snaps.jsonl"):
        d = json.loads(line)
        snaps[d["tag"]] = d
    r["snaps"] = snaps
    end = snaps.get("rbd")
    if end and snaps.get("final"):  # BlueStore: the filter's counters at close, perf at "rbd"
        end = dict(end, **{k: snaps["final"][k] for k in FILTER_KEYS})
    if store == "smrstore":
        keys = ("user_bytes", "device_bytes", "gc_bytes", "bytes_read", "gc_runs", "gc_live_moved",
                "head_seeks", "head_bytes", "head_busy_seconds")
    else:
        keys = FILTER_KEYS + ("user_bytes", "deferred_bytes", "bluefs_bytes")
    dev = {}
    for name, a, b in (("measured", snaps.get("fill"), end),
                       ("ow4m", snaps.get("r4m"), snaps.get("ow4m"))):
        if a and b:
            d = delta(a, b, keys)
            if store == "smrstore":
                d["wa"] = round(d["device_bytes"] / d["user_bytes"], 3) if d.get("user_bytes") else None
                if d.get("head_bytes"):  # both snapshots had the head counters
                    d["seeks_per_gb"] = round(d["head_seeks"] / (d["head_bytes"] / 1e9), 1)
            else:
                io_bytes = d.get("read_bytes", 0) + d.get("write_bytes", 0)
                d["seeks_per_gb"] = round(d["seeks"] / (io_bytes / 1e9), 1) if io_bytes else None
                d["wa"] = round(d["write_bytes"] / d["user_bytes"], 3) if d.get("user_bytes") else None
            dev[name] = d
    r["device"] = dev
    print(json.dumps(r))


ROWS = (  # key, label, throughput field, p99 field (None: the tool gives none)
    ("w4m", "rados bench 4 MiB write (into freed space), MB/s", "mb_s", None),
    ("seq", "rados bench 4 MiB seq read, MB/s", "mb_s", None),
    ("rand", "rados bench 4 MiB rand read, MB/s", "mb_s", None),
    ("r4m", "4 MiB random read (rados_lat), MB/s", "mb_s", "p99_ms"),
    ("ow4m", "4 MiB overwrite at the fill (rados_lat, GC), MB/s", "mb_s", "p99_ms"),
    ("w4k", "rados bench 4 KiB write, IOPS", "iops", None),
    ("l4k", "4 KiB write (rados_lat), ops/s", "ops_s", "p99_ms"),
    ("rbd", "RBD 4 KiB random write (verified), IOPS", "iops", "p99_ms"),
)


def load(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def brief(path):
    for r in load(path):
        print(f"   {r['store']} run {r['run']}: " + ", ".join(
            f"{k} {r[k].get(f)}" + (f" (p99 {r[k].get(p)} ms)" if p else "")
            for k, _, f, p in ROWS))


def med(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None, None, None
    return statistics.median(vals), min(vals), max(vals)


def fmt(v):
    if v is None:
        return "n/a"
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}"


def cell(m):
    v, lo, hi = m
    return "n/a" if v is None else f"{fmt(v)} ({fmt(lo)}–{fmt(hi)})"


def report(path, out, model):
    rows = load(path)
    by = {"smrstore": [r for r in rows if r["store"] == "smrstore"],
          "bluestore": [r for r in rows if r["store"] == "bluestore"]}
    summary = {"model": model, "runs": rows, "rows": {}}
    ns, nb = len(by["smrstore"]), len(by["bluestore"])
    print(f"Drive model: {model}. Runs: smrstore {ns}, BlueStore {nb}, alternating; "
          "median (min–max) over runs.\n")
    print("| row | smrstore | BlueStore | smrstore / BlueStore | p99 ms smrstore | p99 ms BlueStore | p99 ratio | goal (≥ 1.0x, p99 ≤ 1.2x) |")
    print("|---|---|---|---|---|---|---|---|")
    met_all = True
    for key, label, f, p in ROWS:
        s = med([r[key].get(f) for r in by["smrstore"]])
        b = med([r[key].get(f) for r in by["bluestore"]])
        ratio = s[0] / b[0] if s[0] and b[0] else None
        ps = med([r[key].get(p) for r in by["smrstore"]]) if p else (None, None, None)
        pb = med([r[key].get(p) for r in by["bluestore"]]) if p else (None, None, None)
        pratio = ps[0] / pb[0] if ps[0] and pb[0] else None
        ok = ratio is not None and ratio >= 1.0 and (pratio is None or pratio <= 1.2)
        met_all = met_all and ok
        verdict = "met" if ok else "not met"
        if key == "rbd":
            bad = [r["store"] for r in rows if not r["rbd"].get("read_equal")]
            label += "" if not bad else f" — VERIFY FAILED: {bad}"
        print(f"| {label} | {cell(s)} | {cell(b)} | {fmt(ratio)}x | "
              f"{cell(ps) if p else '—'} | {cell(pb) if p else '—'} | "
              f"{(fmt(pratio) + 'x') if pratio else '—'} | {verdict} |")
        summary["rows"][key] = {"label": label, "smrstore": s, "bluestore": b, "ratio": ratio,
                                "p99_smrstore": ps, "p99_bluestore": pb, "p99_ratio": pratio,
                                "met": ok}
    summary["goal_met"] = met_all
    print(f"\nGoal 1 (every row ≥ 1.0x, every p99 ≤ 1.2x): {'met' if met_all else 'not met'}.")
    print("\nDevice figures over the measured phases (after the fill to the end), median (min–max):\n")
    print("| store | data after the fill, % of each drive (per run) | written / user bytes (WA) | in the 4 MiB overwrite phase | GC bytes | drive seeks per GB |")
    print("|---|---|---|---|---|---|")
    for st, name in (("smrstore", "smrstore (own counters)"), ("bluestore", "BlueStore (filter: drive writes / BlueStore write bytes)")):
        rs = by[st]
        if not rs:
            continue
        use = "; ".join(" ".join(f"{u:.0f}" for u in (r["use_after_fill_pct"] or [])) for r in rs)
        wa = cell(med([r["device"].get("measured", {}).get("wa") for r in rs]))
        wo = cell(med([r["device"].get("ow4m", {}).get("wa") for r in rs]))
        gc = cell(med([r["device"].get("measured", {}).get("gc_bytes", None) and
                       r["device"]["measured"]["gc_bytes"] / 2**20 for r in rs])) + " MiB" if st == "smrstore" else "—"
        seeks = [r["device"].get("measured", {}).get("seeks_per_gb") for r in rs]
        sk = cell(med(seeks)) if any(v is not None for v in seeks) else "not exposed"
        print(f"| {name} | {use} | {wa} | {wo} | {gc} | {sk} |")
    json.dump(summary, open(out, "w"), indent=1)


def slow_steps(path):
    """Per phase (the steps logged before its end line), per cause: count, max, median ms."""
    phase_end = re.compile(r"^(\S+) (\w+)$")
    step = re.compile(r"slow commit-thread step: (.*?) took (\d+) ms")
    causes = {}
    for line in open(path):
        line = line.rstrip("\n")
        m = step.search(line)
        if m:
            cause = re.sub(r"of \d+ transactions", "of N transactions", m.group(1))
            cause = re.sub(r"slice of \d+ KiB", "slice", cause)
            causes.setdefault(cause, []).append(int(m.group(2)))
            continue
        m = phase_end.match(line)
        if not m:
            continue
        print(f"{m.group(2)} (ended {m.group(1)[11:19]}):" + ("" if causes else " none"))
        for cause, ms in sorted(causes.items(), key=lambda kv: -len(kv[1])):
            print(f"  {len(ms):4d} x {cause}: max {max(ms)} ms, median {statistics.median(ms):.0f} ms")
        causes = {}
    if causes:
        print("after the last phase:")
        for cause, ms in causes.items():
            print(f"  {len(ms):4d} x {cause}: max {max(ms)} ms")


def main(argv):
    cmd = argv[0]
    if cmd == "snap-smr":
        snap_smr(argv[1])
    elif cmd == "snap-bs":
        snap_bs(argv[1])
    elif cmd == "row":
        row(*argv[1:7])
    elif cmd == "brief":
        brief(argv[1])
    elif cmd == "report":
        report(argv[1], argv[2], argv[3])
    elif cmd == "slow-steps":
        slow_steps(argv[1])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
