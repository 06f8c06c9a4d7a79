#!/usr/bin/python3
"""The figures of qa/perf/recovery_bench.sh: drive snapshots, backfill polls, one run's row, the
report.

  recovery_bench_report.py snap STORE TAG OSD      stdin: `smrstore stats` (smrstore) or the
                                                   filter's stats.N.json (BlueStore) -> one line
  recovery_bench_report.py poll NOW PGSTAT.json    one line; exit 0 if every PG is active+clean
  recovery_bench_report.py row STORE RUN WORKDIR T0 T1 VICTIM MBPS   one run's figures, one line
  recovery_bench_report.py brief RESULTS.jsonl     one line per run so far
  recovery_bench_report.py report RESULTS.jsonl OUT.json MODEL   the markdown table

Drive counters are cumulative; the row takes the source drives' deltas from just before the
new OSD started (`start`) to the end of the backfill (`end`), and the new drive's counters at
the end (`new`: its emulated drive / its filter were created with it).
"""
import json
import statistics
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

Json = Dict[str, Any]
# Both stores' drive counters, under the filter's names: reads / writes and their bytes,
# charged I/Os and how the head model classified them, device time.
KEYS = ("reads", "read_bytes", "writes", "write_bytes", "charged_ios", "sequential", "skips",
        "seeks", "busy_seconds")


def _doc(text: str) -> Json:
    text = text.strip()
    if not text:
        return {}
    d = json.JSONDecoder().raw_decode(text)[0]
    return d if isinstance(d, dict) else {}


def snap(store: str, tag: str, osd: str) -> None:
    d = _doc(sys.stdin.read())
    s: Json = {"tag": tag, "osd": int(osd), "store": store, "ok": False}
    for k in KEYS:
        s[k] = 0
    if store == "smrstore":
        heads = [dr.get("head") for dr in d.get("drives", [])]
        heads = [h for h in heads if h]
        s["ok"] = bool(heads)
        for h in heads:
            s["reads"] += h["read_ios"]
            s["read_bytes"] += h["read_bytes"]
            s["writes"] += h["ios"] - h["read_ios"]
            s["write_bytes"] += h["bytes"] - h["read_bytes"]
            s["charged_ios"] += h["ios"]
            for k in ("sequential", "skips", "seeks", "busy_seconds"):
                s[k] += h[k]
        s["store_bytes_read"] = d.get("io", {}).get("bytes_read", 0)
    else:
        s["ok"] = "charged_ios" in d
        for k in KEYS:
            s[k] = d.get(k, 0)
    print(json.dumps(s))


def poll(now: str, path: str) -> int:
    d = json.load(open(path))
    s = d.get("pg_summary", d)
    states = {x["name"]: x["num"] for x in s.get("num_pg_by_state", [])}
    line: Json = {"t": float(now), "num_pgs": s.get("num_pgs"), "states": states}
    for k, v in s.items():
        if isinstance(v, (int, float)) and k not in line:
            line[k] = v
    print(json.dumps(line))
    clean = bool(s.get("num_pgs")) and states == {"active+clean": s.get("num_pgs")}
    return 0 if clean else 1


def _pgs(path: str) -> List[Json]:
    try:
        d = json.load(open(path))
    except (OSError, ValueError):
        return []
    if isinstance(d, dict):
        d = d.get("pg_stats", d.get("pg_map", {}).get("pg_stats", []))
    return d if isinstance(d, list) else []


def _recovered(path: str) -> Tuple[int, int]:
    b = o = 0
    for p in _pgs(path):
        ss = p.get("stat_sum", {})
        b += ss.get("num_bytes_recovered", 0)
        o += ss.get("num_objects_recovered", 0)
    return b, o


def _osd_data(path: str, osd: int) -> Optional[int]:
    try:
        d = json.load(open(path))
    except (OSError, ValueError):
        return None
    for n in d.get("nodes", []):
        if n.get("id") == osd:
            return int(n["kb_used_data"]) * 1024
    return None


def _sum(snaps: Sequence[Json], tag: str) -> Optional[Json]:
    rows = [s for s in snaps if s["tag"] == tag]
    if not rows or not all(s["ok"] for s in rows):
        return None
    out: Json = {k: sum(s[k] for s in rows) for k in KEYS}
    out["drives"] = len(rows)
    return out


def _per_gb(n: float, nbytes: float) -> Optional[float]:
    return round(n / (nbytes / 1e9), 1) if nbytes else None


def row(store: str, run: str, work: str, t0: str, t1: str, victim: str, mbps: str) -> None:
    seconds = float(t1) - float(t0)
    before_b, before_o = _recovered(f"{work}/pg-dump-before.json")
    after_b, after_o = _recovered(f"{work}/pg-dump-after.json")
    rec_bytes, rec_objs = after_b - before_b, after_o - before_o
    snaps = [json.loads(line) for line in open(f"{work}/snaps.jsonl") if line.strip()]
    a, b, new = _sum(snaps, "start"), _sum(snaps, "end"), _sum(snaps, "new")
    r: Json = {"store": store, "run": int(run), "seconds": round(seconds, 1),
               "recovered_bytes": rec_bytes, "recovered_objects": rec_objs,
               "new_osd_data_bytes": _osd_data(f"{work}/osd-df-after.json", int(victim)),
               "victim_data_bytes_before": _osd_data(f"{work}/osd-df-before.json", int(victim)),
               "mb_s": round(rec_bytes / 1e6 / seconds, 2) if seconds > 0 else None}
    r["fraction_of_seq_bw"] = round(r["mb_s"] / float(mbps), 3) if r["mb_s"] is not None else None
    if a and b:
        src: Json = {k: round(b[k] - a[k], 6) for k in KEYS}
        src["drives"] = b["drives"]
        io = src["read_bytes"] + src["write_bytes"]
        src["seeks_per_gb"] = _per_gb(src["seeks"], io)
        src["seeks_per_gb_read"] = _per_gb(src["seeks"], src["read_bytes"])
        src["read_mb_s"] = round(src["read_bytes"] / 1e6 / seconds, 2) if seconds > 0 else None
        src["busy_fraction"] = (round(src["busy_seconds"] / (seconds * src["drives"]), 3)
                                if seconds > 0 else None)
        r["source"] = src
    else:
        r["source"] = None
    if new:
        r["new_drive"] = dict(new, write_mb_s=round(new["write_bytes"] / 1e6 / seconds, 2)
                              if seconds > 0 else None,
                              seeks_per_gb=_per_gb(new["seeks"], new["read_bytes"] + new["write_bytes"]))
        r["new_drive"]["busy_fraction"] = (round(new["busy_seconds"] / seconds, 3)
                                           if seconds > 0 else None)
        # The new drive's writes per recovered byte (its write amplification in the backfill).
        r["new_drive"]["wa"] = round(new["write_bytes"] / rec_bytes, 3) if rec_bytes else None
    else:
        r["new_drive"] = None
    # The largest number of PGs seen in each state during the backfill (backfilling vs
    # recovering: which of Ceph's two ways the new OSD was filled).
    # And the first poll with a PG backfilling: the seconds before it are the new OSD's
    # start, boot and peering; MB/s from there on is the copying alone.
    seen: Dict[str, int] = {}
    first: Optional[float] = None
    for line in open(f"{work}/backfill.jsonl"):
        if line.strip():
            p = json.loads(line)
            for st, n in p["states"].items():
                for part in st.split("+"):
                    seen[part] = max(seen.get(part, 0), n)
                    if part in ("backfilling", "recovering") and first is None:
                        first = p["t"]
    r["max_pgs_in_state"] = seen
    r["start_to_first_backfill_s"] = round(first - float(t0), 1) if first is not None else None
    copy_s = float(t1) - first if first is not None else None
    r["copy_mb_s"] = round(rec_bytes / 1e6 / copy_s, 2) if copy_s else None
    r["snaps"] = snaps
    print(json.dumps(r))


def load(path: str) -> List[Json]:
    return [json.loads(line) for line in open(path) if line.strip()]


def _g(r: Json, *path: str) -> Optional[float]:
    v: Any = r
    for p in path:
        if not isinstance(v, dict) or v.get(p) is None:
            return None
        v = v[p]
    return float(v)


def _scaled(r: Json, path: Tuple[str, ...], scale: float) -> Optional[float]:
    v = _g(r, *path)
    return None if v is None else v * scale


def brief(path: str) -> None:
    for r in load(path):
        print(f"   {r['store']} run {r['run']}: {r['recovered_bytes'] / 2**20:.0f} MiB "
              f"({r['recovered_objects']} objects) in {r['seconds']} s = {r['mb_s']} MB/s "
              f"({100 * (r['fraction_of_seq_bw'] or 0):.0f} % of the model); source seeks/GB "
              f"{_g(r, 'source', 'seeks_per_gb')}, new drive writes "
              f"{_g(r, 'new_drive', 'write_mb_s')} MB/s")


Stat = Tuple[Optional[float], Optional[float], Optional[float]]


def med(vals: Sequence[Optional[float]]) -> Stat:
    xs = [v for v in vals if v is not None]
    if not xs:
        return None, None, None
    return statistics.median(xs), min(xs), max(xs)


def fmt(v: Optional[float]) -> str:
    if v is None:
        return "n/a"
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}"


def cell(m: Stat) -> str:
    v, lo, hi = m
    return "n/a" if v is None else f"{fmt(v)} ({fmt(lo)}–{fmt(hi)})"


ROWS: Tuple[Tuple[str, Tuple[str, ...], float, str], ...] = (
    # key, path in a row, scale, label
    ("mb_s", ("mb_s",), 1, "backfill MB/s (recovered bytes / seconds)"),
    ("fraction", ("fraction_of_seq_bw",), 100, "backfill MB/s, % of the model's sequential bandwidth"),
    ("seconds", ("seconds",), 1, "backfill seconds (new OSD started → all PGs active+clean)"),
    ("start", ("start_to_first_backfill_s",), 1, "of which: new OSD started → first PG backfilling, s"),
    ("copy_mb_s", ("copy_mb_s",), 1, "MB/s from the first PG backfilling to the end"),
    ("recovered", ("recovered_bytes",), 2.0 ** -20, "bytes recovered, MiB (PG stats' num_bytes_recovered)"),
    ("objects", ("recovered_objects",), 1, "objects recovered"),
    ("new_data", ("new_osd_data_bytes",), 2.0 ** -20, "new OSD's data after, MiB (ceph osd df)"),
    ("src_read", ("source", "read_bytes"), 2.0 ** -20, "source drives: read, MiB (all sources)"),
    ("src_read_mb_s", ("source", "read_mb_s"), 1, "source drives: read MB/s (all sources)"),
    ("src_reads", ("source", "reads"), 1, "source drives: read I/Os"),
    ("src_seeks", ("source", "seeks"), 1, "source drives: seeks"),
    ("src_spg", ("source", "seeks_per_gb"), 1, "source drives: seeks per GB of drive I/O"),
    ("src_busy", ("source", "busy_fraction"), 100, "source drives: head busy, % of the backfill time"),
    ("new_write_mb_s", ("new_drive", "write_mb_s"), 1, "new drive: write MB/s over the backfill"),
    ("new_written", ("new_drive", "write_bytes"), 2.0 ** -20, "new drive: written, MiB"),
    ("new_wa", ("new_drive", "wa"), 1, "new drive: written / recovered bytes"),
    ("new_busy", ("new_drive", "busy_fraction"), 100, "new drive: head busy, % of the backfill time"),
    ("new_spg", ("new_drive", "seeks_per_gb"), 1, "new drive: seeks per GB"),
    ("pgs_backfilling", ("max_pgs_in_state", "backfilling"), 1, "PGs backfilling at once, most seen"),
    ("pgs_recovering", ("max_pgs_in_state", "recovering"), 1, "PGs recovering (log-based) at once, most seen"),
)


def report(path: str, out: str, model: str) -> None:
    rows = load(path)
    by = {st: [r for r in rows if r["store"] == st] for st in ("smrstore", "bluestore")}
    mbps = float(model.split("mbps=")[1].split()[0]) if "mbps=" in model else 25.0
    summary: Json = {"model": model, "runs": rows, "rows": {}}
    print(f"Drive model: {model}. Runs: smrstore {len(by['smrstore'])}, BlueStore "
          f"{len(by['bluestore'])}, alternating; median (min–max) over runs.\n")
    print("| figure | smrstore | BlueStore | smrstore / BlueStore |")
    print("|---|---|---|---|")
    for key, p, scale, label in ROWS:
        s = med([_scaled(r, p, scale) for r in by["smrstore"]])
        b = med([_scaled(r, p, scale) for r in by["bluestore"]])
        ratio = s[0] / b[0] if s[0] is not None and b[0] else None
        shown = "—" if ratio is None else fmt(ratio) + "x"
        print(f"| {label} | {cell(s)} | {cell(b)} | {shown} |")
        summary["rows"][key] = {"label": label, "smrstore": s, "bluestore": b, "ratio": ratio}
    ms = summary["rows"]["mb_s"]
    ratio = ms["ratio"]
    frac = ms["smrstore"][0] / mbps if ms["smrstore"][0] is not None else None
    g_ratio = ratio is not None and ratio >= 2.0
    g_frac = frac is not None and frac >= 0.8
    summary["goal"] = {"ratio": ratio, "ratio_met": g_ratio, "fraction_of_seq_bw": frac,
                       "fraction_met": g_frac, "met": g_ratio and g_frac}
    print(f"\nGoal 3 (backfill ≥ 2x BlueStore's rate: {fmt(ratio)}x, "
          f"{'met' if g_ratio else 'not met'}; ≥ 80 % of the model's {mbps:g} MB/s: "
          f"{'n/a' if frac is None else f'{100 * frac:.0f} %'}, {'met' if g_frac else 'not met'}; "
          "WA: the new drive's written / recovered bytes above): "
          + ("met" if g_ratio and g_frac else "NOT met") + ".")
    json.dump(summary, open(out, "w"), indent=1)


def main(argv: List[str]) -> int:
    cmd = argv[0] if argv else ""
    if cmd == "snap" and len(argv) == 4:
        snap(argv[1], argv[2], argv[3])
    elif cmd == "poll" and len(argv) == 3:
        return poll(argv[1], argv[2])
    elif cmd == "row" and len(argv) == 8:
        row(*argv[1:8])
    elif cmd == "brief" and len(argv) == 2:
        brief(argv[1])
    elif cmd == "report" and len(argv) == 4:
        report(argv[1], argv[2], argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
