# Prints doc/results/performance-history.md's "Idle GC reads its victim ahead" table from the bench JSON
# files of this folder (run from it): each run's PUT p50 / p99 with the p99's 95 % interval,
# the read-ahead's bytes against the live bytes GC moved, and the p99 over the same drive's
# FIFO reference (its interval from the two p99 intervals: holds at >= 90 %).
import json, sys


def load(name):
    return json.load(open(f"./{name}.json"))


def interval(h):
    c = h.get("p99_ci95")
    return "" if not c else " [%s, %s]" % tuple("–" if v is None else f"{v:.1f}" for v in c)


ROWS = [  # drive, tree, read-ahead, idle slice, file, reference file
    ("HDD model", "91cf34b (engine of 628fe05)", "on (auto)", "4 MiB", "hdd-r4-default", "hdd-r4-fifo"),
    ("HDD model", "91cf34b", "FIFO reference", "4 MiB", "hdd-r4-fifo", None),
    ("HDD model", "628fe05", "on (auto)", "4 MiB", "hdd-r3-default", "hdd-r3-fifo"),
    ("HDD model", "628fe05", "off", "4 MiB", "hdd-r3-off", "hdd-r3-fifo"),
    ("HDD model", "628fe05", "FIFO reference", "4 MiB", "hdd-r3-fifo", None),
    ("HDD model", "628fe05 but for `auto`", "on", "4 MiB", "hdd-ra2-on", "hdd-fifo"),
    ("HDD model", "628fe05 but for `auto`", "on", "0 (sized)", "hdd-ra2-slice0", "hdd-fifo"),
    ("HDD model", "628fe05 but for `auto`", "on", "1 MiB", "hdd-ra2-slice1m", "hdd-fifo"),
    ("HDD model", "first build (slice-sized read-ahead)", "on", "4 MiB", "hdd-ra-on", "hdd-fifo"),
    ("HDD model", "first build", "off", "4 MiB", "hdd-ra-off", "hdd-fifo"),
    ("HDD model", "first build", "FIFO reference", "4 MiB", "hdd-fifo", None),
    ("tmpfs", "first build", "on", "4 MiB", "shm-ra-on", "shm-fifo"),
    ("tmpfs", "first build", "off (the default here since 628fe05)", "4 MiB", "shm-ra-off", "shm-fifo"),
    ("tmpfs", "first build", "FIFO reference", "4 MiB", "shm-fifo", None),
]

for drive, tree, ra, slice_, name, ref in ROWS:
    try:
        a = load(name)
    except (OSError, ValueError) as e:
        print(f"| {drive} | {tree} | {ra} | {slice_} | {name}: {e} |", file=sys.stderr)
        continue
    s, put = a["steady"], a["latency_ms"]["put"]
    moved = s["gc_live_moved"]
    ahead = s.get("gc_read_ahead_bytes", 0)
    ra_col = f"{ahead / moved:.3f} ({s.get('gc_read_ahead_yields', 0)})" if ahead and moved else "—"
    if ref:
        b = load(ref)["latency_ms"]["put"]
        ratio = f"**{put['p99'] / b['p99']:.2f}x**"
        lo = put["p99_ci95"][0] / b["p99_ci95"][1] if b["p99_ci95"][1] else 0
        hi = put["p99_ci95"][1] / b["p99_ci95"][0] if put["p99_ci95"][1] else None
        ratio += f" [{lo:.2f}, {'–' if hi is None else format(hi, '.2f')}]"
    else:
        ratio = "—"
    print(f"| {drive} | {tree} | {ra} | {slice_} | {s['wa']:.3f} | {s['user_mbps']:.1f} | "
          f"{put['p50']:.1f} / {put['p99']:.1f}{interval(put)} | {ra_col} | {ratio} |")
