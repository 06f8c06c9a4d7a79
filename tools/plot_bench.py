#!/usr/bin/env python3
"""Plots `smrstore-tool bench --json` results (doc/performance.md, "GC workload bench").

usage: plot_bench.py [--out FILE.png] [--wa-util FILE.png] [--timeline FILE.png] RESULT.json...

Each RESULT file holds one bench JSON object (or several, one per line / concatenated).
  (a) WA vs utilization: one line per (policy, placement, size-dist, delete pattern), x =
      config.util, y = steady.wa; plus a dashed "oracle" line per (size-dist, delete) from
      oracle.wa_floor where the runs had --oracle.
  (b) throughput and WA over time: per result, user and device MB/s per second (top) and
      the cumulative WA (bottom), from the timeline.
--out draws both in one PNG; --wa-util / --timeline draw them to separate PNGs. With no
output option, --out bench.png. Headless (matplotlib Agg backend).
Debian: python3-matplotlib (scripts/install-deps.sh installs it).
"""
import argparse
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(paths):
    results = []
    dec = json.JSONDecoder()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        pos = 0
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                break
            try:
                obj, pos = dec.raw_decode(text, pos)
            except json.JSONDecodeError as e:
                sys.exit(f"plot_bench.py: {path}: not bench JSON ({e})")
            if not isinstance(obj, dict) or "config" not in obj or "steady" not in obj:
                sys.exit(f"plot_bench.py: {path}: not a smrstore-tool bench result")
            obj["_path"] = path
            results.append(obj)
    if not results:
        sys.exit("plot_bench.py: no results")
    return results


def label(r, with_workload=True):
    c = r["config"]
    s = f'{c["policy"]}/{c["placement"]}'
    if with_workload:
        s += f' {c["size_dist"]} {c["delete"]}'
    return s


def workloads(results):
    return {(r["config"]["size_dist"], r["config"]["delete"]) for r in results}


def draw_wa_util(ax, results):
    multi = len(workloads(results)) > 1
    lines = defaultdict(list)
    floors = defaultdict(list)
    for r in results:
        c = r["config"]
        wa = r["steady"].get("wa") or 0
        if wa > 0:
            lines[label(r, multi)].append((c["util"], wa))
        o = r.get("oracle")
        if isinstance(o, dict) and o.get("wa_floor"):
            key = "oracle" + (f' {c["size_dist"]} {c["delete"]}' if multi else "")
            floors[key].append((c["util"], o["wa_floor"]))
    for name, pts in sorted(lines.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    styles = [("k", "x", "--"), ("0.45", "+", "-."), ("0.65", "v", ":"), ("0.3", "s", "--")]
    for i, (name, pts) in enumerate(sorted(floors.items())):
        color, marker, ls = styles[i % len(styles)]
        # Several runs at one utilization: the lowest floor.
        best = {}
        for u, w in pts:
            best[u] = min(w, best.get(u, w))
        us = sorted(best)
        ax.plot(us, [best[u] for u in us], color=color, linestyle=ls, marker=marker, label=name)
    ax.set_xlabel("utilization (live bytes / data capacity)")
    ax.set_ylabel("write amplification (steady state)")
    ax.set_title("(a) WA vs utilization")
    ax.grid(True, alpha=0.3)
    if lines or floors:
        ax.legend(fontsize="small")


def draw_timeline(ax_tp, ax_wa, results):
    multi = len(results) > 1
    for i, r in enumerate(results):
        tl = r.get("timeline") or []
        if not tl:
            continue
        t = [p["t"] for p in tl]
        name = label(r) + (f' u={r["config"]["util"]}' if multi else "")
        color = f"C{i % 10}"
        ax_tp.plot(t, [p["user_mbps"] for p in tl], color=color, label=f"{name} user")
        ax_tp.plot(t, [p["device_mbps"] for p in tl], color=color, linestyle=":",
                   label=f"{name} device")
        ax_wa.plot(t, [p["wa_so_far"] for p in tl], color=color, label=name)
    ax_tp.set_ylabel("MB/s")
    ax_tp.set_title("(b) throughput (solid: user, dotted: device incl. GC) and WA over time")
    ax_tp.grid(True, alpha=0.3)
    ax_tp.legend(fontsize="x-small")
    ax_wa.set_xlabel("steady-state time (s)")
    ax_wa.set_ylabel("WA so far")
    ax_wa.grid(True, alpha=0.3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="bench JSON files")
    ap.add_argument("--out", help="PNG with both plots")
    ap.add_argument("--wa-util", help="PNG with (a) WA vs utilization")
    ap.add_argument("--timeline", help="PNG with (b) throughput and WA over time")
    args = ap.parse_args()
    for p in (args.out, args.wa_util, args.timeline):
        if p and not p.endswith(".png"):
            sys.exit(f"plot_bench.py: {p}: output must be a .png file")
    if not (args.out or args.wa_util or args.timeline):
        args.out = "bench.png"
    results = load(args.results)
    written = []
    if args.out:
        fig = plt.figure(figsize=(14, 7))
        gs = fig.add_gridspec(2, 2)
        draw_wa_util(fig.add_subplot(gs[:, 0]), results)
        ax_tp = fig.add_subplot(gs[0, 1])
        draw_timeline(ax_tp, fig.add_subplot(gs[1, 1], sharex=ax_tp), results)
        fig.tight_layout()
        fig.savefig(args.out, dpi=100)
        plt.close(fig)
        written.append(args.out)
    if args.wa_util:
        fig, ax = plt.subplots(figsize=(7, 5))
        draw_wa_util(ax, results)
        fig.tight_layout()
        fig.savefig(args.wa_util, dpi=100)
        plt.close(fig)
        written.append(args.wa_util)
    if args.timeline:
        fig, (ax_tp, ax_wa) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
        draw_timeline(ax_tp, ax_wa, results)
        fig.tight_layout()
        fig.savefig(args.timeline, dpi=100)
        plt.close(fig)
        written.append(args.timeline)
    for w in written:
        print(f"plot_bench.py: wrote {w}")


if __name__ == "__main__":
    main()
