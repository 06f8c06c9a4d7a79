# smrstore-tool gcsim: every policy x placement and the oracle on a small synthetic trace;
# on skewed deletes (zipf over names) ours beats greedy single-stream and the oracle is the
# lowest; bad input is one line and a non-zero exit.
. "$(dirname "$0")/lib.sh"
$TOOL gcsim --zones 256 --zone-size 16M --reserve 2 --size-dist fixed:258048 --fills 3 \
  --json >sim.json
python3 - <<'PY' || die "gcsim results"
import json
r = json.load(open("sim.json"))
wa = {(x["policy"], x["placement"]): x["steady_wa"] for x in r["results"]}
assert len(wa) == 8, wa
g, ours, oracle = wa[("greedy", "single-stream")], wa[("lifetime", "separated")], wa[("greedy", "oracle")]
rate = wa[("lifetime", "rate-oracle")]
print(f"ok: gcsim zipf 80 %: greedy {g:.2f}, ours {ours:.2f} ({ours / g:.2f}x), rate oracle {rate:.2f}, oracle {oracle:.2f}")
assert 1.0 <= oracle < ours < 0.9 * g, wa
# Knowing each name's write rate places better than estimating it; knowing death times
# better still.
assert oracle < rate < ours, wa
PY
expect_fail "gcsim --util 1.5" $TOOL gcsim --util 1.5
expect_fail "gcsim --delete sometimes" $TOOL gcsim --delete sometimes
expect_fail "gcsim --size-dist fixed:0" $TOOL gcsim --size-dist fixed:0
