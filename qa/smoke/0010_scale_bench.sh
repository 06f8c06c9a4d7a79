# smrstore-tool scale-bench / probe-mount (issue 19 goal 6): two small sizes on drives that
# drop payloads, filled by a process that is then killed: every object is written and found
# again by mounts in fresh processes (the first after the crash), the
# drives hold headers only (a few MB per GB), memory and mount time are measured and fitted;
# the same with payloads kept uses the disk it should. Bad input is one line, exit non-zero.
. "$(dirname "$0")/lib.sh"
$TOOL scale-bench --dir sb --sizes 256M,1G --mounts 2 --stats 300 --json >scale.json 2>progress.txt
$TOOL scale-bench --dir sk --sizes 64M,128M --mounts 1 --stats 10 --keep-payloads --clean-fill --json \
  >kept.json 2>>progress.txt
python3 - <<'PY' || die "scale-bench results"
import json
r = json.load(open("scale.json"))
pts = r["points"]
assert r["config"]["payloads_dropped"] is True and len(pts) == 2, r["config"]
for p, size in zip(pts, (256 << 20, 1 << 30)):
    assert p["objects"] == size // (4 << 20) and p["live_bytes"] == size, p
    assert p["zones_used"] >= size // (256 << 20), p
    # Headers and tails only: 4 KiB per 1 MiB record, plus the superblock zones.
    assert p["drive_disk_bytes"] < size // 20, ("payloads were stored", p["drive_disk_bytes"])
    assert len(p["probes"]) == 2 and all(q["open_s"] > 0 and q["rss_mib_open"] > 0
                                         for q in p["probes"]), p["probes"]
    assert p["meta_bytes"] > 0, p
    # The fill ended in kill -9; the first mount after it found every object.
    assert p["mount_after_crash_s"] > 0, p
f = r["fit"]
for k in ("mount_warm_s", "rss_mb_open", "rss_mb_stats", "meta_mb"):
    assert set(f[k]) == {"intercept", "per_tb", "at_1tb"}, f[k]
assert f["at_1tb_extrapolated"] is True
k = json.load(open("kept.json"))
for p in k["points"]:
    assert p["drive_disk_bytes"] >= p["live_bytes"], ("payloads were dropped", p)
    assert p["mount_after_crash_s"] is None and p["live_bytes"] == p["objects"] << 22, p
print("ok: scale-bench", [(p["live_bytes"] >> 20, round(p["mount_warm_s"], 3),
                           round(p["rss_mib_stats"], 1)) for p in pts])
PY
[ ! -e sb ] || die "scale-bench left its scratch files in sb"
expect_fail "scale-bench --sizes 1G" $TOOL scale-bench --sizes 1G
expect_fail "scale-bench --object-size 1000" $TOOL scale-bench --object-size 1000
expect_fail "scale-bench --sizes 1G,lots" $TOOL scale-bench --sizes 1G,lots
expect_fail "probe-mount of no store" $TOOL probe-mount nothing-here
expect_fail "probe-mount --stats without --objects" $TOOL probe-mount . --stats 5
