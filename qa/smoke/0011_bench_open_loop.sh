# smrstore-tool bench --rate: the steady state as an open loop (Poisson arrivals, latency
# from the scheduled arrival) issues about rate x duration operations — far fewer than the
# closed loop the same store sustains — and says so in its config; bad rates are one line.
. "$(dirname "$0")/lib.sh"
common="--dir . --zones 32 --zone-mib 16 --size-dist fixed:1048576 --util 0.7 --mix 0:1:1 --clients 2 --duration 6"
$TOOL bench $common --json >closed.json 2>/dev/null
$TOOL bench $common --rate 10 --json >open.json 2>/dev/null
python3 - <<'PY' || die "bench --rate"
import json
c, o = json.load(open("closed.json")), json.load(open("open.json"))
assert c["config"]["rate"] is None and o["config"]["rate"] == 10, (c["config"], o["config"])
ops = lambda r: r["steady"]["puts"] + r["steady"]["deletes"]
secs = o["steady"]["seconds"]
# Poisson arrivals at 10/s for ~6 s: ~60 ops (a PUT that makes room deletes too: up to 2x).
assert 25 <= ops(o) <= 2.5 * 10 * secs, (ops(o), secs)
assert ops(c) > 2 * ops(o), ("the closed loop should run far more ops", ops(c), ops(o))
print(f"ok: open loop {ops(o)} ops in {secs:.1f} s at 10/s; closed loop {ops(c)} ops")
PY
expect_fail "bench --rate 0" $TOOL bench --rate 0
expect_fail "bench --rate fast" $TOOL bench --rate fast
