# smrstore-tool bench --rate: the steady state as an open loop (Poisson arrivals, latency
# from the scheduled arrival) issues about rate x duration operations — far fewer than the
# closed loop the same store sustains — and says so in its config; an open loop the store
# cannot keep up with is flagged (steady.open_loop_kept_up false, seconds behind schedule),
# one it can is not; bad rates are one line.
. "$(dirname "$0")/lib.sh"
common="--dir . --zones 32 --zone-mib 16 --size-dist fixed:1048576 --util 0.7 --mix 0:1:1 --clients 2 --duration 6"
$TOOL bench $common --json >closed.json 2>/dev/null
$TOOL bench $common --rate 10 --json >open.json 2>/dev/null
$TOOL bench $common --rate 100000 --json >over.json 2>over.err
python3 - <<'PY' || die "bench --rate"
import json
c, o = json.load(open("closed.json")), json.load(open("open.json"))
assert c["config"]["rate"] is None and o["config"]["rate"] == 10, (c["config"], o["config"])
ops = lambda r: r["steady"]["puts"] + r["steady"]["deletes"]
secs = o["steady"]["seconds"]
# Poisson arrivals at 10/s for ~6 s: ~60 ops (a PUT that makes room deletes too: up to 2x).
assert 25 <= ops(o) <= 2.5 * 10 * secs, (ops(o), secs)
assert ops(c) > 2 * ops(o), ("the closed loop should run far more ops", ops(c), ops(o))
assert c["steady"]["open_loop_lag_s"] is None and c["steady"]["open_loop_kept_up"] is None
assert o["steady"]["open_loop_kept_up"] is True and o["steady"]["open_loop_lag_s"] < 2, o["steady"]
# 100000 ops/s for 6 s: the store does a few hundred, so it ends seconds behind schedule.
v = json.load(open("over.json"))["steady"]
assert v["open_loop_kept_up"] is False and v["open_loop_lag_s"] > 3, v
assert "fell behind" in open("over.err").read(), "no warning on stderr"
# Every p99 comes with its 95 % interval (order statistics): it brackets the p99, and has an
# upper bound only from 381 samples on (n q + 1.96 sqrt(n q (1 - q)) <= n).
for r in (c, o):
    for k in ("put", "put_gc", "put_nogc", "get", "delete"):
        h = r["latency_ms"][k]
        lo, hi = h["p99_ci95"]
        assert lo <= h["p99"] and (hi is None or h["p99"] <= hi), (k, h)
        assert (hi is not None) == (h["count"] >= 381), (k, h)
    g = r["latency_ms"]["put_p99_gc_over_nogc"]
    if g["ratio"] is not None:
        lo, hi = g["ci95"]
        assert lo <= g["ratio"] and (hi is None or g["ratio"] <= hi), g
print(f"ok: open loop {ops(o)} ops in {secs:.1f} s at 10/s; closed loop {ops(c)} ops; "
      f"at 100000/s {v['open_loop_lag_s']:.1f} s behind, flagged")
PY
expect_fail "bench --rate 0" $TOOL bench --rate 0
expect_fail "bench --rate fast" $TOOL bench --rate fast
