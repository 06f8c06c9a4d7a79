#!/usr/bin/env python3
"""Table and plot of a qa/vm/peers.sh run: smrstore vs F2FS, btrfs, dm-zoned (+ext4/XFS)
on the same kernel zoned device in one VM run.

usage: peers_report.py --dir DIR --systems "raw smrstore f2fs ..." [--wall-seconds N]
                       [--geometry TEXT] [--bench TEXT] [--zoned-dev nullb0]
                       [--device TEXT] [--emu-raw FILE --hdd-stats FILE]
--emu-raw (PEERS_DEVICE=hdd): the host's raw leg on an emulated drive with the timing
model's parameters; the report puts it beside the VM's raw leg (sequential write, read,
random 4 KiB reads) with their ratios. --hdd-stats: the nbdkit filter's counters.
Reads DIR/result-SYSTEM.json (smrstore-tool bench --json; raw: bench --raw-only --json),
writes DIR/results.json (one summary row per system), DIR/results.md (markdown table) and
DIR/peers.png (throughput / raw and device WA per system). A system without a result (it
failed or did not run) gets a row with its status and no numbers.
Per system:
  ratio     steady-state user PUT MB/s / the raw sequential write MB/s of the same device
            in the same VM run (the `raw` leg)
  dev WA    bytes the kernel wrote to the zoned device (--zoned-dev, /sys/block/DEV/stat) /
            user PUT bytes, over the steady state (after a syncfs at both ends)
  +meta WA  the zoned device + nullb1 (the regular device holding smrstore's RocksDB, and
            in hdd mode F2FS's metadata)
  x F2FS    steady MB/s / F2FS's (at the common --util; if F2FS has no result there, at
            the util of an f2fs@UTIL row)
Debian: python3-matplotlib.
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

NAMES = {"smrstore": "smrstore", "f2fs": "F2FS", "btrfs": "btrfs (zoned)",
         "dmz-ext4": "dm-zoned + ext4", "dmz-xfs": "dm-zoned + XFS"}


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().strip()
        return json.loads(text) if text else None
    except (OSError, json.JSONDecodeError) as e:
        print(f"peers_report.py: {path}: {e}", file=sys.stderr)
        return None


def row(name, r, raw_mbps, device_bytes, zdev):
    sys_, _, util = name.partition("@")
    if util == "f2fs":
        label = NAMES.get(sys_, sys_) + " @ F2FS's live bytes"
        if r is not None:
            label += f" (util {r['capacity']['target_live_bytes'] / r['capacity']['data_bytes']:.3f})"
    else:
        label = NAMES.get(sys_, sys_) + (f" @ util {util}" if util else "")
    out = {"system": name, "label": label}
    if r is None:
        out["status"] = "failed (no result)"
        return out
    st, bd, cap = r["steady"], r.get("blockdev") or {}, r["capacity"]
    per = bd.get("per_dev", {})
    user = st["user_bytes"]
    z = per.get(zdev, {}).get("steady_bytes")
    allb = bd.get("steady_bytes")
    lat = r["latency_ms"]
    out.update({
        "status": r["status"],
        "capacity_mib": cap["data_bytes"] / 2**20,
        "live_target_mib": cap["target_live_bytes"] / 2**20,
        "live_of_device": cap["target_live_bytes"] / device_bytes if device_bytes else None,
        "fill_mbps": r["fill"]["user_bytes"] / 1e6 / r["fill"]["seconds"],
        "steady_s": st["seconds"],
        "user_mbps": st["user_mbps"],
        "ratio_to_raw": st["user_mbps"] / raw_mbps if raw_mbps else None,
        "turnover": user / cap["target_live_bytes"] if cap["target_live_bytes"] else None,
        "dev_wa": z / user if (z is not None and user) else None,
        "dev_wa_with_meta": allb / user if (allb is not None and user and len(per) > 1) else None,
        "store_wa": st["wa"] if sys_ == "smrstore" else None,
        "puts": st["puts"], "gets": st["gets"], "deletes": st["deletes"],
        "put_p50_ms": lat["put"]["p50"], "put_p99_ms": lat["put"]["p99"],
        "get_p99_ms": lat["get"]["p99"],
        "bench_raw_write_mbps": r["raw"]["write_mbps"] or None,
    })
    return out


def agreement(vm, emu):
    """The VM's raw leg beside the emulated drive's: {leg: {vm, emu, ratio}}, or None."""
    if not vm or not emu:
        return None
    out = {}
    for k in ("write_mbps", "read_mbps", "rand4k_read_iops", "rand4k_read_mean_ms"):
        v, e = vm["raw"].get(k), emu["raw"].get(k)
        out[k] = {"vm": v, "emu": e, "ratio": (v / e) if (v and e) else None}
    return out


def per_system_device(d, systems):
    """{system: counter deltas} from DIR/hdd-stats-BEGIN-S.json and -END-S.json (peers.sh
    copies the filter's counters at each marker), for the systems that have both."""
    out = {}
    for s in systems:
        b = load_quiet(os.path.join(d, f"hdd-stats-BEGIN-{s}.json"))
        e = load_quiet(os.path.join(d, f"hdd-stats-END-{s}.json"))
        if b and e:
            out[s] = {k: e[k] - b[k] for k in ("reads", "read_bytes", "writes", "write_bytes",
                                               "sequential", "skips", "seeks", "busy_seconds")}
    return out


def load_quiet(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError):
        return None


def fmt(v, nd=2):
    if v is None:
        return "–"
    return f"{v:.{nd}f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--systems", required=True)
    ap.add_argument("--wall-seconds", type=int, default=None)
    ap.add_argument("--geometry", default="")
    ap.add_argument("--bench", default="")
    ap.add_argument("--device-bytes", type=int, default=0,
                    help="size of the zoned device (for live bytes / device)")
    ap.add_argument("--zoned-dev", default="nullb0")
    ap.add_argument("--device", default="null_blk zoned")
    ap.add_argument("--emu-raw", default=None)
    ap.add_argument("--hdd-stats", default=None)
    a = ap.parse_args()
    systems = a.systems.split()
    raw = load(os.path.join(a.dir, "result-raw.json")) if "raw" in systems else None
    raw_w = raw["raw"]["write_mbps"] if raw else None
    raw_r = raw["raw"]["read_mbps"] if raw else None
    rows = [row(s, load(os.path.join(a.dir, f"result-{s}.json")), raw_w, a.device_bytes,
                a.zoned_dev) for s in systems if s != "raw"]
    agree = agreement(raw, load(a.emu_raw) if a.emu_raw else None)
    hdd = load(a.hdd_stats) if a.hdd_stats else None
    summary = {"raw_write_mbps": raw_w, "raw_read_mbps": raw_r, "geometry": a.geometry,
               "device": a.device, "zoned_dev": a.zoned_dev, "bench": a.bench,
               "vm_wall_seconds": a.wall_seconds, "model_agreement": agree,
               "hdd_filter_stats": hdd,
               "hdd_filter_per_system": per_system_device(a.dir, systems), "systems": rows}
    with open(os.path.join(a.dir, "results.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")

    # "x F2FS": relative to F2FS at the common --util, else at its own (f2fs@U) one.
    ref = next((r for r in rows if r["system"] == "f2fs" and r.get("user_mbps")), None) or \
        next((r for r in rows if r["system"].startswith("f2fs@") and r.get("user_mbps")), None)
    md = [f"Device: {a.device} ({a.zoned_dev}), {a.geometry}; raw sequential write "
          f"{fmt(raw_w, 1)} MB/s, read {fmt(raw_r, 1)} MB/s (same VM run). "
          f"Workload: smrstore-tool bench {a.bench}.", "",
          "| system | status | capacity MiB | live MiB | live / device | fill MB/s | "
          "steady MB/s | ratio to raw | x F2FS | device WA | WA incl. metadata dev | "
          "turnover | PUT p50 / p99 ms | GET p99 ms |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "user_mbps" not in r:
            md.append(f"| {r['label']} | {r['status']} |" + " – |" * 12)
            continue
        xf = r["user_mbps"] / ref["user_mbps"] if ref else None
        status = r["status"] if r["status"] == "ok" else \
            f"{r['status']} after {r['steady_s']:.0f} s of steady state"
        md.append(
            f"| {r['label']} | {status} | {fmt(r['capacity_mib'], 0)} | "
            f"{fmt(r['live_target_mib'], 0)} | {fmt(r['live_of_device'])} | "
            f"{fmt(r['fill_mbps'], 1)} | "
            f"{fmt(r['user_mbps'], 1)} | {fmt(r['ratio_to_raw'], 3)} | {fmt(xf)} | "
            f"{fmt(r['dev_wa'])} | {fmt(r['dev_wa_with_meta'])} | {fmt(r['turnover'])} | "
            f"{fmt(r['put_p50_ms'], 1)} / {fmt(r['put_p99_ms'], 1)} | {fmt(r['get_p99_ms'], 1)} |")
    if agree:
        md += ["", "Drive model in the VM vs the emulated drive's timing model (raw leg, "
               "bench --raw-only; same geometry and parameters):", "",
               "| leg | VM device | emulated drive | VM / emulated |", "|---|---|---|---|"]
        for k, label in (("write_mbps", "sequential write MB/s (4 MiB)"),
                         ("read_mbps", "sequential read MB/s (4 MiB)"),
                         ("rand4k_read_iops", "random 4 KiB read IOPS (QD1)"),
                         ("rand4k_read_mean_ms", "random 4 KiB read mean ms")):
            v = agree[k]
            md.append(f"| {label} | {fmt(v['vm'], 2)} | {fmt(v['emu'], 2)} | "
                      f"{fmt(v['ratio'], 3)} |")
    per = summary["hdd_filter_per_system"]
    if per:
        md += ["", "Device work per system (nbdkit filter counters at the system's BEGIN and "
               "END markers, each up to 1 s stale):", "",
               "| system | writes | GB written | reads | GB read | seeks | short skips | "
               "sequential | seeks per GB written | device busy s |",
               "|---|---|---|---|---|---|---|---|---|---|"]
        for name, d in per.items():
            gbw = d["write_bytes"] / 1e9
            md.append(f"| {name} | {d['writes']} | {gbw:.2f} | {d['reads']} | "
                      f"{d['read_bytes'] / 1e9:.2f} | {d['seeks']} | {d['skips']} | "
                      f"{d['sequential']} | {fmt(d['seeks'] / gbw if gbw else None, 0)} | "
                      f"{d['busy_seconds']:.0f} |")
    if hdd:
        md += ["", f"nbdkit filter over the whole run: {hdd.get('writes')} writes "
               f"({hdd.get('write_bytes', 0) / 1e9:.2f} GB), {hdd.get('reads')} reads "
               f"({hdd.get('read_bytes', 0) / 1e9:.2f} GB); charged I/Os: "
               f"{hdd.get('sequential')} sequential, {hdd.get('skips')} short skips, "
               f"{hdd.get('seeks')} seeks; {hdd.get('busy_seconds', 0):.0f} s of device time."]
    if a.wall_seconds is not None:
        md += ["", f"VM run (boot + all systems): {a.wall_seconds} s."]
    with open(os.path.join(a.dir, "results.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))

    # The plot shows only complete runs (a run stopped by ENOSPC has no steady state).
    ok = [r for r in rows if r.get("status") == "ok"]
    if not ok:
        return 1
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    labels = [r["label"] for r in ok]
    colors = ["tab:blue" if r["system"].startswith("smrstore") else "tab:gray" for r in ok]
    a1.bar(labels, [r["ratio_to_raw"] or 0 for r in ok], color=colors)
    a1.set_ylabel("steady-state PUT MB/s / raw seq. write MB/s")
    a1.set_title("Throughput (ratio to the raw device)")
    a2.bar(labels, [r["dev_wa"] or 0 for r in ok], color=colors)
    for i, r in enumerate(ok):
        if r.get("dev_wa_with_meta"):
            a2.plot([i - 0.4, i + 0.4], [r["dev_wa_with_meta"]] * 2, "k--", lw=1)
    a2.set_ylabel("device bytes written / user bytes")
    a2.set_title("Device-level WA (dashed: incl. metadata device)")
    for ax in (a1, a2):
        for bar in ax.patches:
            ax.annotate(f"{bar.get_height():.2f}", (bar.get_x() + bar.get_width() / 2,
                        bar.get_height()), ha="center", va="bottom", fontsize=8)
        ax.tick_params(axis="x", labelrotation=20)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(f"Same null_blk zoned device ({a.geometry}), same workload, one VM run",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(a.dir, "peers.png"), dpi=90)
    return 0


if __name__ == "__main__":
    sys.exit(main())
