# Hybrid drives (emulator only): mkdev/zones show the realms and inactive zones, mkfs on a
# hybrid drive, plan-conversion before converting (store and bare device), convert moves a
# realm's data out and the drive converts it (data intact), refusals are one-line errors.
. "$(dirname "$0")/lib.sh"
H="emu:$PWD/h.img?zone_mib=16&conv=2&realms=4&convert_ms=20"
$TOOL mkdev "$H" | tee mkdev.txt
grep -q "38 zones of 16 MiB" mkdev.txt || die "mkdev geometry"
grep -q "hybrid: 4 realms of 4 CMR zones (64 MiB) or 5 SMR zones (80 MiB); CMR domain zones \[2, 18), SMR domain zones \[18, 38); conversion 20 ms per realm; 4 realms cmr, 0 smr" mkdev.txt || die "mkdev hybrid line"
$TOOL zones "emu:$PWD/h.img" | tee zones.txt
grep -q "^    3  cmr     \[14, 18)          \[33, 38)" zones.txt || die "realm table"
grep -q "zone     20 .*inactive  *realm 0 smr (inactive)$" zones.txt || die "inactive SMR zone marked"
grep -q "zone      5 .*not-write-pointer realm 0 cmr$" zones.txt || die "active CMR zone tagged"
$TOOL zones "emu:$PWD/h.img" --json --zone 20 --count 1 >zones.json
python3 - <<'PY'
import json
r = json.load(open("zones.json"))
d = r["device"]
assert d["hybrid"] and d["nr_realms"] == 4 and d["conversion_ms"] == 20, d
assert d["cmr_first_zone"] == 2 and d["smr_first_zone"] == 18, d
assert len(r["realms"]) == 4 and r["realms"][1] == {"realm": 1, "domain": "cmr", "cmr_first": 6,
    "cmr_count": 4, "smr_first": 23, "smr_count": 5}, r["realms"]
z = r["zones"][0]
assert z["zone"] == 20 and z["cond"] == "inactive" and z["realm"] == 0 and z["domain"] == "smr", z
assert r["summary"]["inactive"] == 1, r["summary"]
PY
# A bare device: realms assumed written full; the cost given (no calibration): 64 MiB at
# 16 MiB a zone, one record of 1 MiB a quantum at most 20 + 8 + 4 ms.
$TOOL plan-conversion "emu:$PWD/h.img" --bound-ms 100 --realms 2 --live-fraction 0.5 \
  --read-mbps 250 --write-mbps 125 --fixed-ms 20 --json >plan_dev.json
python3 - <<'PY'
import json
p = json.load(open("plan_dev.json"))
assert p["assumed"] and p["from"] == "cmr" and p["to"] == "smr", p
assert [r["live_bytes"] for r in p["realms"]] == [32 << 20, 32 << 20], p["realms"]
assert p["conversion_ms"] == 40 and p["quanta"] > 0 and p["bound_held"], p
assert p["total_ms"] > p["drain_ms"] > 0, p
PY
expect_fail "plan-conversion without --bound-ms on a device" \
  $TOOL plan-conversion "emu:$PWD/h.img" --realms 1
rc=0; $TOOL plan-conversion "emu:$PWD/h.img" --realms 1 2>/dev/null || rc=$?
[ $rc -eq 2 ] || die "a missing --bound-ms is exit 2, not $rc"
$TOOL mkdev "emu:$PWD/plain.img?zones=8&zone_mib=16" >/dev/null
expect_fail "plan-conversion of a drive that is not hybrid" \
  $TOOL plan-conversion "emu:$PWD/plain.img" --bound-ms 100

# A store on the hybrid drive: its CMR realms are data zones.
$TOOL mkfs st "$H" | grep -q "created store st" || die "mkfs on a hybrid drive"
$TOOL mkcoll st c
head -c 30M /dev/urandom >f30m
$TOOL put st c a f30m
$TOOL put st c b f30m
$TOOL zones st --json >st_zones.json
python3 -c "
import json; r = json.load(open('st_zones.json'))
assert [x['domain'] for x in r['drives'][0]['realms']] == ['cmr'] * 4, r['drives'][0]['realms']"
# plan-conversion on the store (read-only, calibrated), then the conversion it planned.
$TOOL plan-conversion st --realms 1 --pick most-live --json >plan.json
realm=$(python3 -c "
import json; p = json.load(open('plan.json'))
r = p['realms'][0]; assert r['live_bytes'] > 0 and r['quanta'] > 0 and not p['assumed'], p
assert p['bound_ms'] == 100 and p['relocation']['read_mbps'] > 0, p
print(r['realm'])")
$TOOL convert st --realm "$realm" --to smr --json 2>conv.err | tee convert.json
python3 -c "
import json; c = json.load(open('convert.json'))
assert c['from'] == 'cmr' and c['to'] == 'smr' and c['quanta'] > 0 and c['moved_bytes'] > 0, c
assert c['quantum_ms_max'] >= c['quantum_ms_p99'] > 0 and c['activation_ms'] >= 20, c"
$TOOL zones st | grep -q "^ *$realm  smr " || die "realm $realm is not smr in the zone report"
$TOOL get st c a a.out && cmp f30m a.out || die "object a after the conversion"
$TOOL get st c b b.out && cmp f30m b.out || die "object b after the conversion"
$TOOL fsck st --deep | grep -q clean || die "fsck after the conversion"
# Refusals: one line, exit 1; bad usage exit 2.
expect_fail "convert a realm that is smr already" $TOOL convert st --realm "$realm" --to smr
expect_fail "convert a realm that does not exist" $TOOL convert st --realm 9 --to smr
expect_fail "convert --to something else" $TOOL convert st --realm 0 --to tape
rc=0; $TOOL convert st --realm 0 --to tape 2>/dev/null || rc=$?
[ $rc -eq 2 ] || die "a bad --to is exit 2, not $rc"
rc=0; $TOOL convert st --realm 9 --to smr 2>/dev/null || rc=$?
[ $rc -eq 1 ] || die "no such realm is exit 1, not $rc"
# And back to CMR: empty SMR realms convert without moving anything.
$TOOL convert st --realm "$realm" --to cmr | grep -q "smr -> cmr done" || die "convert back"
echo "hybrid ok"
